from django.core.management.base import BaseCommand

from assay.demo import DEMO_PASSWORD, DEMO_USERNAME, demo_load


class Command(BaseCommand):
    help = "Load the demo workspace and user (idempotent)."

    def handle(self, *args, **options):
        workspace = demo_load()
        self.stdout.write(
            f"Demo workspace {workspace.slug!r} ready: sign in as {DEMO_USERNAME} / {DEMO_PASSWORD}"
        )
