"""What a target kind is: the thing an experiment runs per row before its evaluators.

A target kind owns its config (validation), whether it produces the `actual_output` that
bindings can map (`target:actual_output`), how a batch of rows runs, and how the new-experiment
form's fields become its config. The engine, services and pages only talk to this interface.
"""

from __future__ import annotations

import threading
from typing import ClassVar


class TargetSpec:
    """Subclass, fill in, and `register()` an instance in experiments.targets."""

    name: ClassVar[str]
    label: ClassVar[str]
    # True: the target produces actual_output, so the run has target chunks and bindings may
    # map variables to it.
    produces_output: ClassVar[bool] = False

    def clean(self, *, workspace, config: dict, evalset_version, errors: dict) -> dict:
        """The config to store; problems go into `errors` keyed by "target.<field>"."""
        return {}

    def run_batch(self, *, experiment, items: list, cancel: threading.Event | None) -> list[dict]:
        """One TargetResult field dict per item, in order; failures are rows, not exceptions."""
        raise NotImplementedError

    def form_problems(self, data: dict) -> dict[str, str]:
        """Problems with the new-experiment form's fields for this kind ({field: message})."""
        return {}

    def from_form(self, data: dict) -> dict | None:
        """The service's target dict from the form's cleaned data (None: no target)."""
        return None
