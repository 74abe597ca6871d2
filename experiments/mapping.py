"""Field mappings: which column (or which output of the target) feeds each evaluator variable,
and how a row becomes the turn an evaluator receives.

A source is `column:<name>` or `target:<output>`, where the output is one the experiment's
target produces (`actual_output`, and `trajectory` for HTTP and external targets, `conversation`
for the simulated user). Target outputs are Text (a trajectory is JSON text), except
`conversation`, a Conversation content.
"""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext as _

from assay.vocabulary import ContentType, field_synonym
from evaluators.turns import DATASET, OUTPUT_NAMES, TARGET

TARGET_PREFIX = "target:"
TARGET_OUTPUT = "target:actual_output"
# The content type of each target output that is not Text.
OUTPUT_TYPES = {"conversation": ContentType.CONVERSATION}


def output_type(output: str) -> str:
    """The content type a target output has for the variables mapped to it."""
    return OUTPUT_TYPES.get(output, ContentType.TEXT)


def target_source(output: str) -> str:
    return f"{TARGET_PREFIX}{output}"


def target_sources(mapping: dict) -> set[str]:
    """The target outputs a mapping reads."""
    return {
        source.removeprefix(TARGET_PREFIX)
        for source in mapping.values()
        if isinstance(source, str) and source.startswith(TARGET_PREFIX)
    }


def suggest_mapping(
    *,
    variables: list[dict],
    columns: list[dict],
    target_outputs: tuple[str, ...] = (),
    remembered: dict | None = None,
) -> dict:
    """Each variable's likely source: the target's output of its name (output-like names: the
    target's actual_output), else what `remembered` says when it still fits (the set's last
    mapping), else the column of its name, else a column whose name is a synonym of it
    (`question` feeds `input`, `answer` feeds `reference_output`: assay.vocabulary's
    FIELD_SYNONYMS), else a Conversation variable reads the target's conversation."""
    by_name = {c["name"]: c for c in columns}
    mapping = {}
    for variable in variables:
        source = _suggest_one(variable, by_name, target_outputs, remembered or {})
        if source:
            mapping[variable["name"]] = source
    return mapping


def _suggest_one(variable: dict, by_name: dict, target_outputs, remembered: dict) -> str:
    name = variable["name"]
    kind = variable.get("content_type", ContentType.TEXT)
    if name in target_outputs and kind == output_type(name):
        return target_source(name)
    if "actual_output" in target_outputs and name in OUTPUT_NAMES:
        return TARGET_OUTPUT
    source = remembered.get(name)
    typed = {**variable, "content_type": kind}
    if source and not _source_problems(name, typed, source, by_name, target_outputs):
        return source
    if name in by_name:
        return f"column:{name}"
    if column := _synonym_column(name, kind, by_name):
        return f"column:{column}"
    if kind == ContentType.CONVERSATION and "conversation" in target_outputs:
        return target_source("conversation")
    return ""


def _synonym_column(name: str, kind: str, by_name: dict) -> str:
    """The first column (in the set's order) whose name means what the variable's does, of the
    variable's content type; "" when none does or the name has no known meaning."""
    meaning = field_synonym(name)
    if meaning is None:
        return ""
    for column in by_name.values():
        if column["content_type"] == kind and field_synonym(column["name"]) == meaning:
            return column["name"]
    return ""


def mapping_problems(
    *,
    variables: list[dict],
    mapping: Any,
    columns: list[dict],
    target_outputs: tuple[str, ...] = (),
) -> list[str]:
    """Every problem with a mapping: unmapped required variables, unknown sources, type clashes."""
    by_name = {c["name"]: c for c in columns}
    return variables_problems(
        variables=variables,
        mapping=mapping,
        source_problems=lambda name, variable, source: _source_problems(
            name, variable, source, by_name, target_outputs
        ),
    )


def variables_problems(*, variables: list[dict], mapping: Any, source_problems) -> list[str]:
    """What every mapping checks (experiments', online rules'): an object, no unknown
    variables, every required one mapped; `source_problems(name, variable, source)` judges each
    mapped source in its own terms."""
    if not isinstance(mapping, dict):
        return [_("The mapping must be an object of variable → source.")]
    declared = {v["name"]: v for v in variables}
    problems = [
        _("%(name)r is not a variable of this evaluator.") % {"name": name}
        for name in mapping
        if name not in declared
    ]
    for name, variable in declared.items():
        source = mapping.get(name)
        if not source:
            if variable.get("required", True):
                problems.append(_("Required variable %(name)r is not mapped.") % {"name": name})
            continue
        problems.extend(source_problems(name, variable, source))
    return problems


def _source_problems(name, variable, source, by_name, target_outputs) -> list[str]:
    if isinstance(source, str) and source.startswith(TARGET_PREFIX):
        return _target_problems(name, variable, source.removeprefix(TARGET_PREFIX), target_outputs)
    if not isinstance(source, str) or not source.startswith("column:"):
        return [f"{name!r}: unknown source {source!r} (use column:<name> or {TARGET_OUTPUT})."]
    column = by_name.get(source.removeprefix("column:"))
    if column is None:
        return [
            _("%(name)r is mapped to a column the evalset does not have: %(source)r.")
            % {"name": name, "source": source}
        ]
    if column["content_type"] != variable["content_type"]:
        return [
            f"{name!r} is {variable['content_type']} but column {column['name']!r} is "
            f"{column['content_type']}."
        ]
    return []


def _target_problems(name, variable, output: str, target_outputs) -> list[str]:
    if not target_outputs:
        return [
            _("%(name)r is mapped to the target output, but the experiment has no target.")
            % {"name": name}
        ]
    if output not in target_outputs:
        offered = ", ".join(target_source(o) for o in target_outputs)
        return [
            _("%(name)r: the target does not produce %(output)r (it offers %(offered)s).")
            % {"name": name, "output": output, "offered": offered}
        ]
    if variable["content_type"] != output_type(output):
        return [
            _("%(name)r is %(content_type)s; the target output is %(output_type)s.")
            % {
                "name": name,
                "content_type": variable["content_type"],
                "output_type": output_type(output),
            }
        ]
    return []


def build_turn(*, mapping: dict, data: dict, target_outputs: dict | None, ext: dict) -> dict:
    """The Coze Loop turn for one row (`evaluators.turns`): mapped columns and the target's
    outputs; a variable whose source is missing on the row is left out."""
    return plan_turn(turn_plan(mapping=mapping, ext=ext), data=data, target_outputs=target_outputs)


class TurnPlan:
    """A mapping read once for many rows: each variable's source, as (variable, from the
    target, the column or output name, goes with the outputs), and the binding's ext."""

    __slots__ = ("steps", "ext")

    def __init__(self, steps: tuple, ext: dict) -> None:
        self.steps, self.ext = steps, ext


def turn_plan(*, mapping: dict, ext: dict | None) -> TurnPlan:
    """What `build_turn` decides per variable, decided once (a chunk builds a turn a row)."""
    steps = []
    for variable, source in mapping.items():
        if source.startswith(TARGET_PREFIX):
            steps.append((variable, True, source.removeprefix(TARGET_PREFIX), True))
        else:  # turn_build: output-like names go with the outputs wherever they come from
            steps.append(
                (variable, False, source.removeprefix("column:"), variable in OUTPUT_NAMES)
            )
    return TurnPlan(tuple(steps), dict(ext or {}))


def plan_turn(plan: TurnPlan, *, data: dict, target_outputs: dict | None) -> dict:
    """The turn for one row by a plan: exactly `turn_build`'s, variables in mapping order."""
    dataset, outputs, produced = {}, {}, target_outputs or {}
    for variable, from_target, name, with_outputs in plan.steps:
        if from_target:
            value = produced.get(name)
            if value is None:
                continue
            # a content object (a conversation) as it is; text outputs become Text contents
            text = {"content_type": ContentType.TEXT, "text": value}
            outputs[variable] = value if isinstance(value, dict) else text
        elif (content := data.get(name)) is not None:
            (outputs if with_outputs else dataset)[variable] = content
    return {DATASET: dataset, TARGET: outputs, "ext": dict(plan.ext)}


# ----------------------------------------------------------------------------- row filters

APPLIES_KEYS = {"tags", "column"}


def applies_to_problems(value: Any, columns: list[dict]) -> list[str]:
    """What is wrong with a binding's row filter: {"tags": [...]} (rows with any of these
    tags) and/or {"column": name} (rows where that column has a value)."""
    if not isinstance(value, dict):
        return [_("applies_to is an object with tags and/or column.")]
    problems = [
        _("Unknown field %(field)r.") % {"field": k} for k in sorted(set(value) - APPLIES_KEYS)
    ]
    tags = value.get("tags")
    if tags is not None and (
        not isinstance(tags, list) or not tags or not all(isinstance(t, str) and t for t in tags)
    ):
        problems.append(_("tags is a non-empty list of tags."))
    column = value.get("column")
    if column is not None and column not in {c["name"] for c in columns}:
        problems.append(_("The evalset version has no column %(column)r.") % {"column": column})
    return problems


def applies(applies_to: dict | None, *, data: dict, tags) -> bool:
    """Does a binding with this row filter score this row? Rows outside get no result."""
    if not applies_to:
        return True
    wanted = applies_to.get("tags")
    if wanted and not set(wanted) & set(tags or []):
        return False
    column = applies_to.get("column")
    return not column or _has_value(data.get(column))


def _has_value(cell: Any) -> bool:
    if not isinstance(cell, dict):
        return False
    return bool(cell.get("text")) if cell.get("content_type") == ContentType.TEXT else True
