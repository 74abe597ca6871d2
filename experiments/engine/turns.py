"""The turn an evaluator receives: built from its binding's mapping, the row's data and the
target's stored outputs when a chunk runs, and rebuilt from the same parts when a page, an
export or the API shows a result.

The turn is not copied into every result (it was most of a result's bytes): every part of it
is stored once — the row in its immutable evalset version, the target's outputs once per
(experiment, item, repetition) in `TargetResult`, the mapping on the binding — and building it
is a pure function of them, so the rebuilt turn is the one the evaluator was given. A result
skipped because it had nothing to score received no turn (`{}`).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from assay.safety.caps import cap_json
from assay.vocabulary import ResultStatus
from evalsets.models import EvalSetItem

from ..models import EvaluatorBinding, Experiment, Result, TargetResult
from .per_turn import binding_cases


@dataclass
class TargetOutputs:
    """The target's outputs for some rows of one repetition, and why others have none."""

    outputs: dict[int, dict]  # item pk → {"actual_output": …, "trajectory": …, "conversation"}
    errors: dict[int, str]

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
    ).values_list("item_id", "status", "output", "trajectory", "conversation", "error")
    outputs, errors = {}, {}
    for item_id, status, output, trajectory, conversation, error in rows:
        if status == ResultStatus.SUCCESS:
            outputs[item_id] = {
                "actual_output": output,
                "trajectory": trajectory,
                "conversation": conversation,
            }
        else:
            errors[item_id] = error
    return TargetOutputs(outputs, errors)


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
    turns = keyed_turns(keys=keys, items=cached)
    return {r.pk: turns[key] for r, key in zip(results, keys, strict=True)}


def keyed_turns(
    *,
    keys: Iterable[TurnKey],
    items: dict | None = None,
    experiment: Experiment | None = None,
    bindings: dict | None = None,
) -> dict[TurnKey, dict]:
    """The turn of each key. A streaming reader passes what it has read already: `items` and
    `bindings` by pk, and the `experiment` when every key is of that one run."""
    turns: dict[TurnKey, dict] = {}
    for (experiment_id, repeat), group in _by_run(keys).items():
        run = experiment or Experiment.objects.get(pk=experiment_id)
        rows = _items({k.item_id for k in group}, items or {})
        outputs = target_outputs(experiment=run, item_ids=list(rows), repeat=repeat)
        known = bindings or _bindings({k.binding_id for k in group})
        for key in group:
            turns[key] = _turn(key, known[key.binding_id], rows, outputs)
    return turns


def batched(rows: Iterable, size: int) -> Iterator[list]:
    """`rows` in lists of `size` (a streaming reader rebuilds each batch's turns at once)."""
    batch = []
    for row in rows:
        batch.append(row)
        if len(batch) == size:
            yield batch
            batch = []
    if batch:
        yield batch


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
