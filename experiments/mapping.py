"""Field mappings: which column (or the target's output) feeds each evaluator variable, and
how a row becomes the turn an evaluator receives."""

from __future__ import annotations

from typing import Any

from assay.vocabulary import ContentType
from evaluators.turns import OUTPUT_NAMES, turn_build

TARGET_OUTPUT = "target:actual_output"


def suggest_mapping(*, variables: list[dict], columns: list[dict], has_target: bool) -> dict:
    """Map each variable to the same-named column, or output-like names to the target."""
    names = {c["name"] for c in columns}
    mapping = {}
    for variable in variables:
        name = variable["name"]
        if has_target and name in OUTPUT_NAMES:
            mapping[name] = TARGET_OUTPUT
        elif name in names:
            mapping[name] = f"column:{name}"
        elif name == "output" and "actual_output" in names:
            mapping[name] = "column:actual_output"
        elif name == "actual_output" and "output" in names:
            mapping[name] = "column:output"
    return mapping


def mapping_problems(
    *, variables: list[dict], mapping: Any, columns: list[dict], has_target: bool
) -> list[str]:
    """Every problem with a mapping: unmapped required variables, unknown sources, type clashes."""
    if not isinstance(mapping, dict):
        return ["The mapping must be an object of variable → source."]
    declared = {v["name"]: v for v in variables}
    by_name = {c["name"]: c for c in columns}
    problems = [
        f"{name!r} is not a variable of this evaluator." for name in mapping if name not in declared
    ]
    for name, variable in declared.items():
        source = mapping.get(name)
        if not source:
            if variable.get("required", True):
                problems.append(f"Required variable {name!r} is not mapped.")
            continue
        problems.extend(_source_problems(name, variable, source, by_name, has_target))
    return problems


def _source_problems(name, variable, source, by_name, has_target) -> list[str]:
    if source == TARGET_OUTPUT:
        if not has_target:
            return [f"{name!r} is mapped to the target output, but the experiment has no target."]
        if variable["content_type"] != "Text":
            return [f"{name!r} is {variable['content_type']}; the target output is Text."]
        return []
    if not isinstance(source, str) or not source.startswith("column:"):
        return [f"{name!r}: unknown source {source!r} (use column:<name> or {TARGET_OUTPUT})."]
    column = by_name.get(source.removeprefix("column:"))
    if column is None:
        return [f"{name!r} is mapped to a column the evalset does not have: {source!r}."]
    if column["content_type"] != variable["content_type"]:
        return [
            f"{name!r} is {variable['content_type']} but column {column['name']!r} is "
            f"{column['content_type']}."
        ]
    return []


def build_turn(*, mapping: dict, data: dict, target_output: str | None, ext: dict) -> dict:
    """The Coze Loop turn for one row (`evaluators.turns`): mapped columns and the target's
    output; a variable whose source is missing on the row is left out."""
    contents, from_target = {}, []
    for variable, source in mapping.items():
        if source == TARGET_OUTPUT:
            if target_output is None:
                continue
            contents[variable] = {"content_type": ContentType.TEXT, "text": target_output}
            from_target.append(variable)
        elif (content := data.get(source.removeprefix("column:"))) is not None:
            contents[variable] = content
    return turn_build(contents, from_target=from_target, ext=ext)
