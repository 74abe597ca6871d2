from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError

from assay import services


class Command(BaseCommand):
    help = "Create a workspace and (if needed) its owner account."

    def add_arguments(self, parser):
        parser.add_argument("--name", required=True)
        parser.add_argument("--slug", default="")
        parser.add_argument("--owner", required=True, help="username; created if missing")
        parser.add_argument("--password", default="", help="required when the owner is new")

    def handle(self, *args, name, slug, owner, password, **options):
        user = get_user_model().objects.filter(username=owner).first()
        try:
            if user is None:
                if not password:
                    raise CommandError(
                        f"User {owner!r} does not exist: pass --password to create it"
                    )
                user = services.user_create(username=owner, password=password)
            workspace = services.workspace_create(name=name, slug=slug, owner=user)
        except ValidationError as exc:
            raise CommandError("; ".join(exc.messages)) from None
        self.stdout.write(f"workspace {workspace.slug} created, owner {user.username}")
