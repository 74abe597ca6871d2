"""Experiment workflows: runs (create, launch, cancel, retry, clone, correct) and outputs that
do not come from a worker (pushed by a client, re-used from a finished run), and the CI
gate's recorded decisions."""

from .garak import garak_scan_import, garak_upload_bytes, max_report_bytes
from .garak_jobs import garak_import_claim, garak_import_create, garak_import_run
from .garak_references import MAX_REFERENCE_BYTES, garak_reference_upload
from .gate import gate_decision_record
from .outputs import experiment_close, experiment_rescore, outputs_push, target_test
from .runs import (
    MAX_BINDINGS,
    MAX_REPETITIONS,
    experiment_cancel,
    experiment_clone,
    experiment_create,
    experiment_launch,
    experiment_mark_baseline,
    experiment_retry_failed,
    result_correct,
    workspace_interval_defaults_set,
)

__all__ = [
    "MAX_REFERENCE_BYTES",
    "MAX_BINDINGS",
    "MAX_REPETITIONS",
    "experiment_cancel",
    "experiment_clone",
    "experiment_close",
    "experiment_create",
    "experiment_launch",
    "experiment_mark_baseline",
    "experiment_rescore",
    "experiment_retry_failed",
    "garak_import_claim",
    "gate_decision_record",
    "garak_import_create",
    "garak_import_run",
    "garak_reference_upload",
    "garak_scan_import",
    "garak_upload_bytes",
    "max_report_bytes",
    "outputs_push",
    "result_correct",
    "target_test",
    "workspace_interval_defaults_set",
]
