"""Write an experiment's results (csv, jsonl) or its garak-style report / hitlog to a file."""

from __future__ import annotations

import sys

from django.core.management.base import BaseCommand, CommandError

from experiments.models import Experiment
from experiments.results.exports import FORMATS, export_stream


class Command(BaseCommand):
    help = "Export an experiment: --format csv | jsonl | report | hitlog."

    def add_arguments(self, parser):
        parser.add_argument("experiment", help="the experiment's id (UUID)")
        parser.add_argument("--format", choices=FORMATS, default="csv")
        parser.add_argument("--output", "-o", default="-", help="a file, or - for stdout")

    def handle(self, *args, experiment, format, output, **options):
        found = Experiment.objects.filter(public_id=experiment).first()
        if found is None:
            raise CommandError(f"No experiment {experiment!r}.")
        handle = sys.stdout if output == "-" else open(output, "w", encoding="utf-8", newline="")
        try:
            for chunk in export_stream(found, format):
                handle.write(chunk)
        finally:
            if handle is not sys.stdout:
                handle.close()
