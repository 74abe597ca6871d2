"""`manage.py issue_ingest_key --workspace SLUG [--name NAME]`: a new ingest key, printed alone
on the last line (scripts take it with `tail -n1`)."""

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError

from assay.models import Workspace
from traces.services import ingest_key_issue


class Command(BaseCommand):
    help = "Issue a write-only ingest key for the OTLP endpoint; prints the key once."

    def add_arguments(self, parser):
        parser.add_argument("--workspace", required=True, help="the workspace's slug")
        parser.add_argument("--name", default="exporter", help="what the key is for")

    def handle(self, *args, workspace: str, name: str, **options):
        found = Workspace.objects.filter(slug=workspace).first()
        if found is None:
            raise CommandError(f"no workspace {workspace!r}")
        try:
            issued = ingest_key_issue(workspace=found, name=name)
        except ValidationError as exc:
            raise CommandError("; ".join(exc.messages)) from None
        self.stdout.write(f"Ingest key {issued.ingest_key.prefix}… for {found.slug} (shown once):")
        self.stdout.write(issued.key)
