from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from assay import services
from assay.models import Membership, Workspace


class Command(BaseCommand):
    help = "Issue an API token for a user in a workspace; prints the key once."

    def add_arguments(self, parser):
        parser.add_argument("--workspace", required=True, help="workspace slug")
        parser.add_argument("--user", required=True, help="username")
        parser.add_argument("--name", default="cli")

    def handle(self, *args, workspace, user, name, **options):
        ws = Workspace.objects.filter(slug=workspace).first()
        account = get_user_model().objects.filter(username=user).first()
        if ws is None or account is None:
            raise CommandError(f"No workspace {workspace!r} or no user {user!r}")
        if not Membership.objects.filter(workspace=ws, user=account).exists():
            raise CommandError(f"{user!r} is not a member of {workspace!r}")
        issued = services.token_issue(workspace=ws, user=account, name=name)
        self.stdout.write(issued.key)
