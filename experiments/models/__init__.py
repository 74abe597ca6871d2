"""Experiments: a pinned evalset version scored by pinned evaluator versions, row by row.

`runs` (the experiment, its bindings and chunks), `results` (target rows, results, aggregates,
paired comparisons), `judging` (judge calibrations, gate decisions), `garak` (references and
report imports); pairwise runs' models live in their room (`experiments.pairwise.models`). All
are imported here, so that the app's migrations and `from experiments.models import …` see
them."""

from ..runs.bases import ACTIVE_STATUSES, ChunkStatus, RunStatus
from .garak import ACTIVE_GARAK_IMPORTS, GarakImport, GarakImportStatus, GarakReference
from .judging import GateDecision, JudgeCalibration
from .results import Aggregate, PairedComparison, Result, TargetResult, results_of_bindings_delete
from .runs import (
    ChunkKind,
    EvaluatorBinding,
    Experiment,
    ExperimentChunk,
    ExperimentStatus,
    TurnAggregate,
)

# isort: split
# Pairwise runs are experiments' too; their models, in their room, import the experiment's.
from ..pairwise.models import PairwiseChunk, PairwiseEntry, PairwiseResult, PairwiseRun

__all__ = [
    "ACTIVE_GARAK_IMPORTS",
    "ACTIVE_STATUSES",
    "Aggregate",
    "ChunkKind",
    "ChunkStatus",
    "EvaluatorBinding",
    "Experiment",
    "ExperimentChunk",
    "ExperimentStatus",
    "GarakImport",
    "GarakImportStatus",
    "GarakReference",
    "GateDecision",
    "JudgeCalibration",
    "PairedComparison",
    "PairwiseChunk",
    "PairwiseEntry",
    "PairwiseResult",
    "PairwiseRun",
    "Result",
    "RunStatus",
    "TargetResult",
    "TurnAggregate",
    "results_of_bindings_delete",  # the migrations name it here
]
