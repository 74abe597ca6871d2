"""The `rescore` target: the outputs of a finished run, scored again by other evaluator versions
without calling its target again. The new run records its source (`Experiment.outputs_from`),
uses the same evalset version and repetitions, and so compares paired with it."""

from __future__ import annotations

from django.utils.translation import gettext
from django.utils.translation import gettext as _t
from django.utils.translation import gettext_lazy as _

from assay.vocabulary import ResultStatus

from .base import TargetSpec

# What a re-score takes over from its source's rows: the output and how it was obtained.
# Tokens and cost stay with the source: this run spent nothing on its target.
COPIED = (
    "status output trajectory conversation error rendered_request raw_response latency_ms"
).split()
FINISHED = ("completed", "failed", "cancelled")


class RescoreTarget(TargetSpec):
    name = "rescore"
    label = _("Re-score: the outputs of an earlier run")
    in_new_form = False
    recalls_failed = False

    def clean(self, *, workspace, config, evalset_version, errors) -> dict:
        source = self.origin(workspace=workspace, config=config)
        if set(config) - {"experiment"}:
            errors["target"] = [
                gettext("A re-score takes only the experiment whose outputs it re-uses.")
            ]
        elif source is None:
            errors["target.experiment"] = [gettext("No such experiment in this workspace.")]
        elif not source.target_spec.produces_output:
            errors["target.experiment"] = [
                gettext("That run has no target outputs to score again.")
            ]
        elif source.status not in FINISHED:
            errors["target.experiment"] = [gettext("Re-score a run once it has finished.")]
        elif source.evalset_version_id != evalset_version.pk:
            errors["target.experiment"] = [gettext("A re-score uses its source's evalset version.")]
        return {"experiment": str(source.public_id)} if source else {}

    def origin(self, *, workspace, config):
        from ..selectors import experiment_find

        return experiment_find(workspace=workspace, public_id=config.get("experiment"))

    def outputs_for(self, config: dict) -> tuple[str, ...]:
        from ..models import Experiment

        source = Experiment.objects.filter(public_id=config.get("experiment")).first()
        return source.target_spec.outputs_for(source.target_config) if source else ()

    @property
    def produces_output(self) -> bool:
        return True

    def run_batch(self, *, experiment, items, repeat, cancel) -> list[dict]:
        from ..models import TargetResult

        rows = TargetResult.objects.filter(
            experiment_id=experiment.outputs_from_id,
            repeat=repeat,
            item_id__in=[item.pk for item in items],
        ).values("item_id", *COPIED)
        found = {row.pop("item_id"): {**row, "tokens_in": 0, "tokens_out": 0} for row in rows}
        return [found.get(item.pk) or _missing() for item in items]

    def summary(self, config: dict) -> str:
        return _t("Re-score of an earlier run")


def _missing() -> dict:
    return {
        "status": ResultStatus.SKIPPED,
        "output": "",
        "error": "the source run has no output for this row",
        "latency_ms": 0.0,
        "tokens_in": 0,
        "tokens_out": 0,
    }
