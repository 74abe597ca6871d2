"""The turn an evaluator receives, in Coze Loop's shape, built in one place.

    {"evaluate_dataset_fields": {name: content},
     "evaluate_target_output_fields": {name: content},
     "ext": {str: str}}

Output-like names (`actual_output`, `output`, `trajectory`) and whatever came from the target
go to the target output fields; everything else to the dataset fields. Debug turns, test cases
and experiment rows all come from `turn_build`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

DATASET = "evaluate_dataset_fields"
TARGET = "evaluate_target_output_fields"
GROUPS = (DATASET, TARGET)
KEYS = frozenset({DATASET, TARGET, "ext"})
OUTPUT_NAMES = frozenset({"actual_output", "output", "trajectory"})


def turn_build(
    contents: Mapping[str, dict], *, from_target: Iterable[str] = (), ext: Mapping | None = None
) -> dict:
    """The turn for `contents` ({variable: content}); `from_target` names variables the target
    produced, which go with the outputs whatever they are called."""
    targeted = set(from_target)
    turn: dict = {DATASET: {}, TARGET: {}, "ext": dict(ext or {})}
    for name, content in contents.items():
        group = TARGET if name in OUTPUT_NAMES or name in targeted else DATASET
        turn[group][name] = content
    return turn


def turn_fields(turn: Mapping) -> dict:
    """Every variable of a turn, outputs and dataset fields together."""
    return {**(turn.get(DATASET) or {}), **(turn.get(TARGET) or {})}


def turn_output(turn: Mapping | None) -> str | None:
    """The text of the first output-side content (the answer being judged), if any."""
    for content in ((turn or {}).get(TARGET) or {}).values():
        if isinstance(content, dict):
            return content.get("text")
    return None


def for_pages() -> dict:
    """The shape for the debug panel's JavaScript (a JSON block on the page)."""
    return {"groups": list(GROUPS), "output_names": sorted(OUTPUT_NAMES)}
