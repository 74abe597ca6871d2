"""`manage.py import_evalset`: import a CSV/JSONL file into an evaluation set, with progress."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from django.core.exceptions import ValidationError
from django.core.files import File
from django.core.management.base import BaseCommand, CommandError

from assay.models import Workspace
from evalsets import services
from evalsets.importing import import_claim, import_create, import_run
from evalsets.models import EvalSet


class Command(BaseCommand):
    help = "Import a CSV or JSONL file into an evaluation set's draft (created if missing)."

    def add_arguments(self, parser):
        parser.add_argument("path", help="the CSV or JSONL file")
        parser.add_argument("--workspace", required=True, help="workspace slug")
        parser.add_argument("--evalset", required=True, help="evaluation set name")
        parser.add_argument("--format", choices=["csv", "jsonl"], default=None)
        parser.add_argument("--mapping", default=None, help='JSON: {"file field": "column"}')
        parser.add_argument("--skip-bad-rows", action="store_true")
        parser.add_argument("--replace", action="store_true", help="replace the draft's rows")
        parser.add_argument("--background", action="store_true", help="queue it for a worker")

    def handle(self, *args, path, workspace, evalset, background, **options):
        target = self._evalset(workspace, evalset)
        source = Path(path)
        if not source.is_file():
            raise CommandError(f"No file at {path}")
        job = self._create(target, source, background=background, **options)
        if background:
            self.stdout.write(f"import {job.public_id} queued")
            return
        job = import_run(job=import_claim(import_id=job.pk), on_progress=self._bar)
        self._bar(job)
        self.stderr.write("")
        for error in job.errors[:20]:
            self.stderr.write(f"line {error['line']}, {error['column'] or '-'}: {error['problem']}")
        if job.status != "completed":
            raise CommandError(job.message)
        done = f"{job.rows_imported} rows imported into {target.name!r}. {job.message}"
        self.stdout.write(done.strip())

    def _evalset(self, slug: str, name: str) -> EvalSet:
        workspace = Workspace.objects.filter(slug=slug).first()
        if workspace is None:
            raise CommandError(f"No workspace {slug!r}")
        found = EvalSet.objects.filter(workspace=workspace, name=name, deleted_at=None).first()
        if found is None:
            found = services.evalset_create(workspace=workspace, user=None, name=name)
            self.stdout.write(f"created evaluation set {name!r}")
        return found

    def _create(self, target, source: Path, *, background: bool, **options):
        mapping = json.loads(options["mapping"]) if options["mapping"] else None
        try:
            with source.open("rb") as handle:
                return import_create(
                    evalset=target,
                    user=None,
                    upload=File(handle, name=source.name),
                    file_format=options["format"],
                    mapping=mapping,
                    skip_bad_rows=options["skip_bad_rows"],
                    replace=options["replace"],
                    enqueue=background,
                )
        except ValidationError as exc:
            raise CommandError("; ".join(exc.messages)) from None

    def _bar(self, job) -> None:
        width = 30
        filled = int(width * job.percent / 100)
        sys.stderr.write(
            f"\r[{'#' * filled}{'.' * (width - filled)}] {job.percent:3d}% "
            f"{job.rows_done:,}/{job.rows_total:,} rows"
        )
        sys.stderr.flush()
