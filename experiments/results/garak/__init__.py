"""garak's formats, as garak writes them: the report's `eval` and `probe_summary` entries
(`report`) and the hit log (`hitlog`); the console lines are `results.console`. What the rest
of Assay reads of them is re-exported here."""

from .hitlog import hit_outputs, hitlog_jsonl
from .report import (
    CI_DISPLAY_MIN_WIDTH,
    HIT_AT_K,
    SYMBOLS,
    RowCounts,
    defcon,
    detections,
    detector_name,
    hit_at_k,
    per_row_counts,
    probe_name,
    report_jsonl,
)

__all__ = [
    "CI_DISPLAY_MIN_WIDTH",
    "HIT_AT_K",
    "SYMBOLS",
    "RowCounts",
    "defcon",
    "detections",
    "detector_name",
    "hit_at_k",
    "hit_outputs",
    "hitlog_jsonl",
    "per_row_counts",
    "probe_name",
    "report_jsonl",
]
