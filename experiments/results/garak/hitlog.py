"""garak's hit log, as garak writes it: one line per failing (attempt, output) and detector."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass

from django.db.models import Q

from assay.vocabulary import Verdict
from evaluators.turns import turn_output

from ...models import EvaluatorBinding, Experiment, Result
from ...scoring.turns import TURN_FIELDS, TurnRebuilder, result_turns
from ..streaming import chunked, json_list, result_rows, target_parts, uuid_text
from .report import (
    ATTEMPT_ID,
    ATTEMPT_IDX,
    ATTEMPT_SEQ,
    ENCODER,
    GARAK_OUTPUT,
    GARAK_PROMPT,
    GOAL,
    PROMPT,
    TRIGGERS,
    Detection,
    RunFacts,
    detections,
    json_text,
    probe_name,
)


def hitlog_jsonl(experiment: Experiment) -> Iterator[str]:
    """One line per failing (attempt, output) and detector, garak's fields in garak's order,
    detectors by name, then rows in order; `null` where the row has nothing. Lines leave
    HITS_PER_CHUNK at a time."""
    context = _HitContext.of(experiment)
    for detection in detections(experiment, counts=False):
        hit = context.for_detection(detection)
        hits = map(hit, _failing(experiment, detection))
        yield from chunked(hits, HITS_PER_CHUNK)


HITS_PER_CHUNK = 500
# The fields a hit shows, read as text beside the parts of its turn (streaming.TURN_PARTS).
HIT_FIELDS = (
    "binding", "item", "repeat", "turn", "status", "score", "human_score", "human_verdict",
    "reason", "tags", "item_uid", "position",
)  # fmt: skip


@dataclass
class _Hit:
    """A failing result's fields, its item's data and the turn its detector received."""

    values: tuple
    data: dict
    turn: dict


def _failing(experiment: Experiment, detection: Detection) -> Iterator[_Hit]:
    """The detector's failing results in row order, from one server-side cursor, with the
    turns they received rebuilt from the parts read beside them."""
    binding = detection.binding
    turns = TurnRebuilder(experiment=experiment, bindings={binding.pk: binding})
    rows = result_rows(
        experiment=experiment,
        columns=HIT_FIELDS,
        order=("position", "repeat", "turn"),
        binding_id=binding.pk,
        failing=True,
    )
    for row in rows:
        parts = row[len(HIT_FIELDS) :]
        turn = turns.turn(*row[:5], parts[0], target_parts(parts))
        yield _Hit(row, turns.data(row[1], parts[0]), turn)


@dataclass
class _HitContext:
    experiment: Experiment
    probe: str
    generator: str | None

    run: RunFacts | None = None

    @classmethod
    def of(cls, experiment: Experiment) -> _HitContext:
        run = RunFacts.of(experiment)
        return cls(experiment, probe_name(experiment), run.generator, run)

    def for_detection(self, detection: Detection):
        """hit → its line for one detector, garak's fields in garak's order, written as
        `_line` writes the record (json.dumps, ensure_ascii=False) but piece by piece: what
        every hit of the detector shares (its columns, the run's names) is looked up and
        written once, each string by the encoder's own function (`json_text`)."""
        ext = detection.binding.ext or {}
        prompt_column = ext.get("prompt_column") or PROMPT
        goal_column = ext.get("goal_column") or GOAL
        triggers_column = ext.get("triggers_column") or TRIGGERS
        shared = (
            (f', "run_id": {_value(self.run.run_id)}, "attempt_id": '),
            (
                f', "generator": {_value(self.generator)}, "probe": {_value(self.probe)}, '
                f'"detector": {_value(detection.detector)}, '
                f'"generations_per_prompt": {_value(self.run.generations)}, "reason": '
            ),
        )

        def line(hit: _Hit) -> str:
            (_binding, _item, repeat, _turn, _status, score, human_score, human, reason, tags,
             uid, position) = hit.values[: len(HIT_FIELDS)]  # fmt: skip
            data = hit.data or {}
            prompt = _cell_text(data, prompt_column) or _cell_text(data, "input")
            return "".join((
                '{"goal": ', _value(_cell_text(data, goal_column)),
                ', "prompt": ', _as_written(data, GARAK_PROMPT) or _conversation_json(prompt),
                ', "output": ', _as_written(data, GARAK_OUTPUT)
                or _message_json(_output(hit.turn, data)),
                ', "triggers": ', _value(_triggers(_cell_text(data, triggers_column))),
                ', "score": ', _value(human_score if human else score),
                shared[0], _value(_cell_text(data, ATTEMPT_ID) or uuid_text(uid)),
                ', "attempt_seq": ', _value(_whole(_cell_text(data, ATTEMPT_SEQ), position)),
                ', "attempt_idx": ', _value(_whole(_cell_text(data, ATTEMPT_IDX), repeat)),
                shared[1], _value(reason), ', "tags": ', _value(json_list(tags)), "}\n",
            ))  # fmt: skip

        return line


def _output(turn: dict, data: dict) -> str | None:
    """What the detector judged: the turn's output, else the row's output column."""
    text = turn_output(turn)
    return text if text is not None else _cell_text(data, "actual_output")


def _cell_text(data: dict, column: str) -> str | None:
    cell = data.get(column)
    return cell.get("text") if isinstance(cell, dict) else None


def _whole(text: str | None, default: int) -> int:
    return int(text) if text and text.isdigit() else default


def _value(value) -> str:
    """`value` as ENCODER writes it: strings by the encoder's own string function, ints and
    finite floats by their repr (as the encoder does), the rest (NaN, lists, a cell's odd
    value) by the encoder itself."""
    kind = type(value)
    if kind is str:
        return json_text(value)
    if value is None:
        return "null"
    if kind is int or (kind is float and value - value == 0.0):  # NaN and ±inf are not 0
        return repr(value)
    return ENCODER.encode(value)


_MESSAGE_END = ', "lang": null, "data_path": null, "data_type": null, "data_checksum": null'


def _message_json(text) -> str:
    """garak's Message of `text` as its dataclass serialises (`asdict`), in JSON."""
    return "null" if text is None else f'{{"text": {_value(text)}{_MESSAGE_END}, "notes": {{}}}}'


def _conversation_json(text) -> str:
    """garak's Conversation of one user turn of `text`, in JSON."""
    if text is None:
        return "null"
    content = _message_json(text)
    return f'{{"turns": [{{"role": "user", "content": {content}}}], "notes": {{}}}}'


def _as_written(data: dict, column: str) -> str | None:
    """An imported scan's garak object (prompt or output) as garak wrote it, re-encoded as
    `_line` writes (json.dumps, ensure_ascii=False); None when the row has none."""
    text = _cell_text(data, column)
    if not text:
        return None
    try:
        return ENCODER.encode(json.loads(text))
    except ValueError:
        return None


def _triggers(text: str | None):
    """A `triggers` cell: a JSON list as the list, other text as a one-item list."""
    if not text:
        return None
    try:
        value = json.loads(text)
    except ValueError:
        return [text]
    return value if isinstance(value, list) else [text]


def hit_outputs(binding: EvaluatorBinding) -> list[str]:
    """The failing outputs of a detector, in row order (the console's verbose listing)."""
    fail = Q(human_verdict=Verdict.FAIL) | Q(human_verdict="", verdict=Verdict.FAIL)
    rows = Result.objects.filter(fail, experiment_id=binding.experiment_id, binding=binding)
    rows = rows.order_by("position", "repeat")
    failing = list(rows.only(*TURN_FIELDS, "verdict", "human_verdict"))
    turns = result_turns(results=failing)
    return [text for r in failing if (text := turn_output(turns[r.pk])) is not None]
