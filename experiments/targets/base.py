"""What a target kind is: the thing an experiment runs per row before its evaluators.

A target kind owns its config (validation), the outputs it produces (that bindings map as
`target:<output>`), how a batch of rows runs, and how the new-experiment form's fields become
its config. The engine, services and pages only talk to this interface.
"""

from __future__ import annotations

import threading
from typing import ClassVar


class TargetSpec:
    """Subclass, fill in, and `register()` an instance in experiments.targets."""

    name: ClassVar[str]
    label: ClassVar[str]
    # What the target produces per row ("actual_output", "trajectory"); none: the run has no
    # target chunks and bindings read columns only.
    outputs: ClassVar[tuple[str, ...]] = ()
    # False: outputs are pushed by a client (the external target), never computed by workers.
    runs_on_workers: ClassVar[bool] = True
    # A retry round calls it again for the rows whose call failed (False: a re-score would
    # copy the same failures again; an external target's rows are pushed, not called).
    recalls_failed: ClassVar[bool] = True
    # The new-experiment page's fields for this kind (a template partial), if it has any.
    form_template: ClassVar[str | None] = None
    # Offered on the new-experiment page (a re-score starts from the run it re-uses).
    in_new_form: ClassVar[bool] = True
    # One row can be sent through it to see what comes back ("Test request").
    testable: ClassVar[bool] = False
    # Each row is one call of the run's target slots (`experiment:<id>:target`), so the
    # engine counts rows as their calls finish, before the batch commits (progress).
    calls_are_rows: ClassVar[bool] = False
    # `run_batch` takes `landed(index, fields)` and calls it as each row's fields are ready
    # (while the batch's other calls are in flight), so the engine can write and score
    # early rows before the last one lands.
    streams_rows: ClassVar[bool] = False
    # Service error paths → this kind's form fields, so a problem shows beside its field.
    form_aliases: ClassVar[dict[str, str]] = {}

    @property
    def produces_output(self) -> bool:
        return bool(self.outputs)

    def outputs_for(self, config: dict) -> tuple[str, ...]:
        """The outputs a target with this `config` produces (a re-score: its source's)."""
        return self.outputs

    def origin(self, *, workspace, config: dict):
        """The finished experiment whose outputs this target re-uses (re-score), if any."""
        return None

    def clean(self, *, workspace, config: dict, evalset_version, errors: dict) -> dict:
        """The config to store; problems go into `errors` keyed by "target.<field>"."""
        return {}

    def run_batch(
        self, *, experiment, items: list, repeat: int, cancel: threading.Event | None
    ) -> list[dict]:
        """One TargetResult field dict per item (for repetition `repeat`), in order: status,
        output, error, latency_ms, tokens, and optionally trajectory, raw_response, cost,
        rendered_request. Failures are rows, not exceptions."""
        raise NotImplementedError

    def summary(self, config: dict) -> str:
        """The configured target in a few words for headers and lists."""
        return str(self.label)

    def public_config(self, config: dict) -> dict:
        """The config as pages and the API show it (secret values are never in a config)."""
        return config

    def form_fields(self, *, workspace) -> dict:
        """The new-experiment form's fields of this kind (names unique across kinds)."""
        return {}

    def form_problems(self, data: dict) -> dict[str, str]:
        """Problems with the new-experiment form's fields for this kind ({field: message})."""
        return {}

    def from_form(self, data: dict) -> dict | None:
        """The service's target dict from the form's cleaned data (None: no target)."""
        return None
