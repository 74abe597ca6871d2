"""The `external` target: a client (the SDK, the CLI, the team's CI job) computes each row's
output itself and pushes it (`POST /api/v1/experiments/{id}/outputs/`); workers only run the
evaluators, range by range as the outputs arrive (`experiments.scoring.pushed`)."""

from __future__ import annotations

from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from .base import TargetSpec


class ExternalTarget(TargetSpec):
    name = "external"
    label = _("External: your code computes the outputs and pushes them (SDK, CLI, CI)")
    outputs = ("actual_output", "trajectory")
    runs_on_workers = False
    recalls_failed = False
    form_template = "experiments/targets/_external.html"

    def clean(self, *, workspace, config, evalset_version, errors) -> dict:
        if config:
            errors["target"] = [
                gettext("An external target takes no settings (got %(config)s).")
                % {"config": ", ".join(sorted(config))}
            ]
        return {}

    def run_batch(self, *, experiment, items, repeat, cancel) -> list[dict]:
        raise AssertionError("outputs of an external target are pushed, never computed here")

    def from_form(self, data: dict) -> dict:
        return {"kind": self.name}
