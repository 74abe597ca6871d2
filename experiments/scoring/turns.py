"""The turn an evaluator receives: built from its binding's mapping, the row's data and the
target's stored outputs when a chunk runs, and rebuilt from the same parts when a page, an
export or the API shows a result.

The turn is not copied into every result (it was most of a result's bytes): every part of it
is stored once — the row in its immutable evalset version, the target's outputs once per
(experiment, item, repetition) in `TargetResult`, the mapping on the binding — and building it
is a pure function of them, so the rebuilt turn is the one the evaluator was given. A result
skipped because it had nothing to score received no turn (`{}`).

Pages rebuild a few results' turns from model instances (`result_turns`); a streamed export
rebuilds every result's from the parts read beside it as JSON text (`TurnRebuilder`): each
row's data parsed once by orjson, no model instance, no cap walk over strings already short.
"""

from __future__ import annotations

import json
import re
from collections import defaultdict, namedtuple
from collections.abc import Iterable
from dataclasses import dataclass, field

import orjson

from assay.safety.caps import DISPLAY_STRING_BYTES, cap_json
from assay.vocabulary import ResultStatus
from evalsets.models import EvalSetItem

from ..models import EvaluatorBinding, Experiment, Result, TargetResult
from .per_turn import binding_cases, row_turn


@dataclass
class TargetOutputs:
    """The target's outputs for some rows of one repetition, and why others have none."""

    outputs: dict[int, dict]  # item pk → {"actual_output": …, "trajectory": …, "conversation"}
    errors: dict[int, str]
    rounds: dict[int, int] = field(default_factory=dict)  # item pk → retry round that wrote it

    def missing(self, item_pk: int) -> str:
        """Why the row has no target output ('' when it has one)."""
        if item_pk in self.outputs:
            return ""
        return "no output from the target: " + (self.errors.get(item_pk) or "none was produced")


def target_outputs(*, experiment: Experiment, item_ids: list[int], repeat: int) -> TargetOutputs:
    """The stored target outputs of `item_ids` in one repetition (none without a target)."""
    if not experiment.target_spec.produces_output:
        return TargetOutputs({}, {})
    rows = TargetResult.objects.filter(
        experiment=experiment, repeat=repeat, item_id__in=item_ids
    ).values_list(
        "item_id", "status", "output", "trajectory", "conversation", "error", "retry_round"
    )
    outputs, errors, rounds = {}, {}, {}
    for item_id, status, output, trajectory, conversation, error, retry_round in rows:
        rounds[item_id] = retry_round
        if status == ResultStatus.SUCCESS:
            outputs[item_id] = {
                "actual_output": output,
                "trajectory": trajectory,
                "conversation": conversation,
            }
        else:
            errors[item_id] = error
    return TargetOutputs(outputs, errors, rounds)


# What rebuilding a result's turn reads of it (for `.only()` on the readers' querysets).
TURN_FIELDS = ("experiment", "binding", "item", "repeat", "turn", "status")


@dataclass(frozen=True)
class TurnKey:
    """What names a result's turn: its run, binding, row, repetition and turn index; a
    skipped result received none."""

    experiment_id: int
    binding_id: int
    item_id: int
    repeat: int
    turn: int
    status: str

    @classmethod
    def of(cls, result: Result) -> TurnKey:
        return cls(
            result.experiment_id,
            result.binding_id,
            result.item_id,
            result.repeat,
            result.turn,
            result.status,
        )


def result_turns(*, results: Iterable[Result]) -> dict[int, dict]:
    """The exact turn each result's evaluator received, by result pk (a few queries for any
    number of results of one experiment or several)."""
    results = list(results)
    cached = {r.item_id: r.item for r in results if Result.item.is_cached(r)}
    keys = [TurnKey.of(r) for r in results]
    turns = _keyed_turns(keys, cached)
    return {r.pk: turns[key] for r, key in zip(results, keys, strict=True)}


def _keyed_turns(keys: list[TurnKey], items: dict[int, EvalSetItem]) -> dict[TurnKey, dict]:
    """The turn of each key; `items` are rows read already (by pk), the rest are read."""
    turns: dict[TurnKey, dict] = {}
    for (experiment_id, repeat), group in _by_run(keys).items():
        experiment = Experiment.objects.get(pk=experiment_id)
        rows = _items({k.item_id for k in group}, items)
        outputs = target_outputs(experiment=experiment, item_ids=list(rows), repeat=repeat)
        bindings = _bindings({k.binding_id for k in group})
        for key in group:
            turns[key] = _turn(key, bindings[key.binding_id], rows, outputs)
    return turns


def result_turn(*, result: Result) -> dict:
    """The exact turn one result's evaluator received."""
    return result_turns(results=[result])[result.pk]


def _by_run(keys: Iterable[TurnKey]) -> dict[tuple[int, int], set[TurnKey]]:
    groups: dict[tuple[int, int], set[TurnKey]] = defaultdict(set)
    for key in keys:
        groups[(key.experiment_id, key.repeat)].add(key)
    return groups


def _items(ids: set[int], known: dict[int, EvalSetItem]) -> dict[int, EvalSetItem]:
    """The rows of `ids`: those in `known` (read already), the rest from the database."""
    found = {pk: known[pk] for pk in ids if pk in known}
    rows = EvalSetItem.objects.filter(pk__in=ids - set(found)).only("id", "item_id", "data")
    return {**found, **{item.pk: item for item in rows}}


def _bindings(ids: set[int]) -> dict[int, EvaluatorBinding]:
    return {b.pk: b for b in EvaluatorBinding.objects.filter(pk__in=ids)}


def _turn(key: TurnKey, binding, items, outputs: TargetOutputs) -> dict:
    item = items.get(key.item_id)
    if item is None or key.status == ResultStatus.SKIPPED:
        return {}
    cases, _unscored = binding_cases(binding=binding, items=[item], outputs=outputs.outputs)
    for case in cases:
        if case.index == key.turn:
            return cap_json(case.turn)  # capped for display, as the stored copy was
    return {}


# ----------------------------------------------------------------------------- streamed rows


# A row as `binding_cases` reads it: its pk and its data (no model instance per row).
_Row = namedtuple("_Row", "pk data")
# orjson reads an integer past 64 bits as a float, json as the integer: a text with a run of
# 19 digits goes to json. Counting digits (bytes.translate) is cheap; the search is not.
_LONG_NUMBER = re.compile(r"[0-9]{19}")
_DIGITS = b"0123456789"


def json_loads(text: str):
    """JSON text as Django's JSONField reads it (json.loads), through orjson where that gives
    the same value: every text but one with a 19-digit run or one orjson refuses."""
    data = text.encode("utf-8", "surrogatepass")
    few_digits = len(data) - len(data.translate(None, _DIGITS)) < 19
    if few_digits or _LONG_NUMBER.search(text) is None:
        try:
            return orjson.loads(data)
        except orjson.JSONDecodeError:
            pass  # NaN, 1e400, lone surrogates: json reads them
    return json.loads(text)


def fits_caps(text: str | None) -> bool:
    """Is every string inside this stored text (JSON or plain) within the display cap?
    A JSON text is at least as long as each string in it, so a short text needs no walk."""
    if text is None or len(text) * 4 <= DISPLAY_STRING_BYTES:
        return True
    return len(text.encode("utf-8", "surrogatepass")) <= DISPLAY_STRING_BYTES


class TurnRebuilder:
    """The turns of results streamed in (item, repetition) order, from the stored parts read
    beside each result as text: the item's data and the target's output columns. Each item's
    data and each target output is parsed once however many bindings and turns read it, and
    strings already within the display cap are not walked again (`cap_json`)."""

    def __init__(self, *, experiment: Experiment, bindings: dict[int, EvaluatorBinding]):
        self.bindings = bindings
        self.produces = experiment.target_spec.produces_output
        self.ext_fits = {pk: fits_caps(json.dumps(b.ext or {})) for pk, b in bindings.items()}
        self._data = self._outputs = self._cases = (None, None)

    def turn(self, binding_id, item_id, repeat, turn, status, data, target) -> dict:
        """The turn one result's evaluator received: `data` is the item's data as JSON text
        (None: no such item), `target` the target's (status, output, trajectory,
        conversation as JSON text), None without a stored output."""
        if data is None or status == ResultStatus.SKIPPED:
            return {}
        parsed, data_fits = self._item(item_id, data)
        outputs, outputs_fit = self._target(item_id, repeat, target)
        binding = self.bindings[binding_id]
        if binding.per_turn:
            given = self._turns(binding, item_id, repeat, parsed, outputs).get(turn, {})
        else:  # binding_cases' one case of a row, without its lists
            given = row_turn(binding, parsed, outputs) if turn == 0 else {}
        if data_fits and outputs_fit and self.ext_fits[binding_id]:
            return given
        return cap_json(given)  # capped for display, as the stored copy was

    def data(self, item_id: int, text: str) -> dict:
        """The item's data, parsed from its JSON text (once for the rows of one item)."""
        return self._item(item_id, text)[0]

    def _item(self, item_id: int, text: str) -> tuple[dict, bool]:
        """The item's parsed data and whether it is within the caps (the last item's, kept)."""
        if self._data[0] != item_id:
            self._data = (item_id, (json_loads(text), fits_caps(text)))
        return self._data[1]

    def _target(self, item_id: int, repeat: int, target) -> tuple[dict | None, bool]:
        """The outputs an evaluator mapped to `target:` received: only a successful output of
        a target that produces one (`target_outputs`)."""
        key = (item_id, repeat)
        if self._outputs[0] != key:
            self._outputs = (key, self._parse_target(target))
        return self._outputs[1]

    def _parse_target(self, target) -> tuple[dict | None, bool]:
        if not self.produces or target is None or target[0] != ResultStatus.SUCCESS:
            return None, True
        _status, output, trajectory, conversation = target
        outputs = {
            "actual_output": output,
            "trajectory": trajectory,
            "conversation": json_loads(conversation) if conversation is not None else None,
        }
        return outputs, fits_caps(output) and fits_caps(trajectory) and fits_caps(conversation)

    def _turns(self, binding, item_id, repeat, data, outputs) -> dict[int, dict]:
        """{turn index: turn} of a binding scored per turn on an item and repetition, built
        once for all its turns (they come one after another)."""
        key = (binding.pk, item_id, repeat)
        if self._cases[0] != key:
            row = _Row(item_id, data)
            found = {item_id: outputs} if outputs is not None else {}
            cases, _unscored = binding_cases(binding=binding, items=[row], outputs=found)
            self._cases = (key, {case.index: case.turn for case in cases})
        return self._cases[1]
