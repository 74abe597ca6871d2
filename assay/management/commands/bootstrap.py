"""First start of an installation (the compose `init` service and the Helm migrations hook):
the administrator from ASSAY_ADMIN_* and, with ASSAY_DEMO=1, the demo. Safe on every start."""

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError
from django.test.utils import override_settings

from assay import services
from assay.env import env_bool, env_str

VARIABLE_OF_FIELD = {"password": "ASSAY_ADMIN_PASSWORD", "name": "ASSAY_ADMIN_WORKSPACE"}


class Command(BaseCommand):
    help = "Create the administrator from ASSAY_ADMIN_* and load the demo with ASSAY_DEMO=1."

    def handle(self, *args, **options):
        username = env_str("ASSAY_ADMIN_USERNAME")
        if username:
            self._admin(username)
        if env_bool("ASSAY_DEMO", False):
            self._demo()

    def _demo(self) -> None:
        """The demo's model providers are servers on this machine (a local Ollama, a scripted
        user served while loading), which a production policy (`public`) refuses to save: the
        demo loads with loopback allowed, as under `make run`. Runs started later still call
        out under the installation's own policy."""
        policy = settings.ASSAY_OUTBOUND_ALLOW
        allowed = policy if policy.strip() == "*" else f"{policy},127.0.0.0/8"
        with override_settings(ASSAY_OUTBOUND_ALLOW=allowed):
            call_command("load_demo", stdout=self.stdout)

    def _admin(self, username: str) -> None:
        try:
            user, workspace = services.admin_bootstrap(
                username=username,
                password=env_str("ASSAY_ADMIN_PASSWORD"),
                workspace_name=env_str("ASSAY_ADMIN_WORKSPACE", "Team"),
            )
        except ValidationError as exc:
            # name the variable to fix, never echo the password
            problems = exc.message_dict.items()
            raise CommandError(
                "; ".join(f"{VARIABLE_OF_FIELD.get(k, k)}: {' '.join(v)}" for k, v in problems)
            ) from None
        made = f", workspace {workspace.slug!r} created" if workspace else ""
        self.stdout.write(f"administrator {user.username!r} ready{made}")
