"""Launch an experiment (if it is a draft) and wait, printing a progress bar and the summary."""

from __future__ import annotations

import time

from django.core.management.base import BaseCommand, CommandError

from experiments import scoring as engine
from experiments import services
from experiments.models import Experiment, ExperimentStatus
from experiments.results.console import garak_lines, garak_rows, progress_bar, summary_lines


class Command(BaseCommand):
    help = "Run an experiment and wait: progress bar, then one summary line per evaluator."

    def add_arguments(self, parser):
        parser.add_argument("experiment", help="the experiment's id (UUID)")
        parser.add_argument(
            "--inline",
            action="store_true",
            help="run the chunks in this process instead of the workers",
        )
        parser.add_argument("--timeout", type=float, default=3600.0)
        parser.add_argument("--narrow", action="store_true", help="narrow summary layout")
        parser.add_argument(
            "--format",
            choices=["garak", "assay"],
            default="garak",
            help="garak: garak's console lines, byte for byte (-v 2 lists failing outputs); "
            "assay: ours, with unknowns and interval notes",
        )
        parser.add_argument(
            "--z-from-history",
            action="store_true",
            help="garak format: also rate detectors without a garak calibration against their "
            "earlier runs in this workspace (garak prints Z only from a calibration)",
        )

    def handle(self, *args, experiment, inline, timeout, narrow, format, **options):
        found = Experiment.objects.filter(public_id=experiment).first()
        if found is None:
            raise CommandError(f"No experiment {experiment!r}.")
        if found.status == ExperimentStatus.DRAFT:
            found = services.experiment_launch(experiment=found)
        if inline:
            engine.experiment_run_inline(experiment_id=found.pk)
        found = self._wait(found, timeout)
        if format == "garak":
            rows = garak_rows(
                found, hits=options["verbosity"] >= 2, history=options["z_from_history"]
            )
            lines = garak_lines(
                rows,
                narrow=narrow,
                verbose=options["verbosity"] >= 2,
                color=not options["no_color"],
            )
            self.stdout.write(f"{found.name}: {found.status}")
            for line in lines:
                self.stdout.write(line)
        else:
            self._summary(found, narrow=narrow)
        if found.status != ExperimentStatus.COMPLETED:
            raise CommandError(f"experiment ended {found.status}: {found.error_message}")

    def _wait(self, experiment: Experiment, timeout: float) -> Experiment:
        started, deadline = time.monotonic(), time.monotonic() + timeout
        while True:
            experiment.refresh_from_db()
            rate = experiment.results_done / max(time.monotonic() - started, 1e-6)
            bar = progress_bar(experiment.results_done, experiment.results_total, rate=rate)
            self.stdout.write(f"\r{bar}", ending="")
            if not experiment.is_active:
                self.stdout.write("")
                return experiment
            if time.monotonic() > deadline:
                raise CommandError("timed out waiting for the experiment")
            time.sleep(0.5)

    def _summary(self, experiment: Experiment, *, narrow: bool) -> None:
        rows = []
        for aggregate in experiment.aggregates.select_related(
            "binding__evaluator_version__evaluator"
        ):
            version = aggregate.binding.evaluator_version
            summary = aggregate.summary
            rows.append(
                {
                    "name": f"{version.evaluator.name}@{version.version}",
                    "passed": summary["passed"],
                    "fails": summary["fails"],
                    "nones": summary["nones"],
                    "fail_rate_ci": summary["fail_rate_ci"],
                }
            )
        self.stdout.write(f"{experiment.name}: {experiment.status}")
        for line in summary_lines(rows, wide=not narrow):
            self.stdout.write(line)
