"""The turns a binding scores on a row: the row itself, or — for a binding scored per assistant
turn — one turn per assistant reply of its Conversation, each with the history up to and
including that reply (the reply being scored is the conversation's last message).

An assistant turn is an assistant message with text: a message that only calls tools belongs
to the reply that follows its results. Turns are numbered from 0 (`Result.turn`); a binding
scored per row has turn 0 only, so one unique key (experiment, position, binding, repeat, turn)
covers both.
"""

from __future__ import annotations

from dataclasses import dataclass

from assay.vocabulary import CONTENT_FIELD, ChatRole, ContentType
from evalsets.models import EvalSetItem

from ..mapping import TARGET_PREFIX, TurnPlan, plan_turn, turn_plan
from ..models import EvaluatorBinding

MESSAGES = CONTENT_FIELD[ContentType.CONVERSATION]


@dataclass
class Case:
    """One turn an evaluator is run on: the row, the turn it receives, and its turn index."""

    item: EvalSetItem
    turn: dict
    index: int = 0


def binding_cases(
    *, binding: EvaluatorBinding, items: list[EvalSetItem], outputs: dict[int, dict]
) -> tuple[list[Case], list[tuple[EvalSetItem, str]]]:
    """The cases to run for `binding` on `items` (target outputs by item pk), and the items
    with nothing to score and why (their result is skipped, unknown)."""
    cases, unscored = [], []
    plan = turn_plan(mapping=binding.mapping, ext=binding.ext)  # the mapping read once
    for item in items:
        row_outputs = outputs.get(item.pk)
        if not binding.per_turn:
            cases.append(Case(item, plan_turn(plan, data=item.data, target_outputs=row_outputs)))
            continue
        found, why = _turn_cases(binding, item, row_outputs, plan)
        cases += found
        if why:
            unscored.append((item, why))
    return cases, unscored


def row_turn(
    binding: EvaluatorBinding, data: dict, outputs: dict | None, plan: TurnPlan | None = None
) -> dict:
    """The turn a binding receives on a row's data and target outputs (`plan`: its mapping's,
    when the caller builds many)."""
    plan = plan or turn_plan(mapping=binding.mapping, ext=binding.ext)
    return plan_turn(plan, data=data, target_outputs=outputs)


def _turn_cases(binding, item, outputs, plan: TurnPlan) -> tuple[list[Case], str]:
    source = binding.turn_source
    conversation = _source_value(source, item.data or {}, outputs or {})
    messages = conversation.get(MESSAGES) if isinstance(conversation, dict) else None
    if not isinstance(messages, list):
        return [], f"the row has no conversation in {source}"
    ends = assistant_turn_ends(messages)
    if not ends:
        return [], f"the conversation in {source} has no assistant turn to score"
    cases = []
    for index, end in enumerate(ends):
        cut = {**conversation, MESSAGES: messages[:end]}
        data, row_outputs = _with_source(source, item.data or {}, outputs or {}, cut)
        cases.append(Case(item, row_turn(binding, data, row_outputs, plan), index))
    return cases, ""


def assistant_turn_ends(messages: list) -> list[int]:
    """For each assistant turn, the length of the history that ends with it."""
    return [
        number
        for number, message in enumerate(messages, 1)
        if isinstance(message, dict)
        and message.get("role") == ChatRole.ASSISTANT
        and (message.get("content") or "").strip()
    ]


def _source_value(source: str, data: dict, outputs: dict):
    if source.startswith(TARGET_PREFIX):
        return outputs.get(source.removeprefix(TARGET_PREFIX))
    return data.get(source.removeprefix("column:"))


def _with_source(source: str, data: dict, outputs: dict, value: dict) -> tuple[dict, dict]:
    """The row's data and target outputs with the turn source replaced by `value`."""
    if source.startswith(TARGET_PREFIX):
        return data, {**outputs, source.removeprefix(TARGET_PREFIX): value}
    return {**data, source.removeprefix("column:"): value}, outputs
