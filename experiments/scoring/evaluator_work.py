"""An evaluator chunk's mini-batches: which rows still lack a usable result, run them, and
hand the result rows (plain tuples) to the chunk's commit.

What every mini-batch of a chunk shares (the experiment, its bindings of the chunk's kind) is
read once per chunk; each mini-batch then asks one question of the results table — which of
its rows each binding scored already — over the mini-batch's own position range, so the
queries per mini-batch neither grow with the number of bindings nor with the run's size.
"""

from __future__ import annotations

from collections.abc import Callable

from assay.safety.caps import ERROR_BYTES, cap_text
from assay.vocabulary import ResultStatus
from evaluators.kinds import kind_get
from evaluators.runner import RunOutcome, version_run_batch

from ..mapping import applies, target_sources
from ..models import EvaluatorBinding, Experiment, Result
from .per_turn import Case, binding_cases
from .turns import TargetOutputs, target_outputs

FAILED = (ResultStatus.ERROR, ResultStatus.TIMEOUT)
# commit(rows scored, result tuples, tuples whose items' stale turns are pruned)
Commit = Callable[[int, list[tuple], list[tuple]], None]


class EvaluatorWork:
    """The evaluator work of one chunk: call it with each mini-batch of item rows."""

    def __init__(self, experiment: Experiment, queue: str, cancel, commit: Commit) -> None:
        self.experiment, self.cancel, self.commit = experiment, cancel, commit
        self.bindings = bindings_of(experiment, queue)

    def __call__(self, items: list, repeats: list[int] | None = None) -> None:
        """Score the rows (in every repetition, or in `repeats`) that still lack a usable
        result; one commit per repetition for every binding together."""
        if not self.bindings or not items:
            return
        for repeat in range(self.experiment.repetitions) if repeats is None else repeats:
            targets = target_outputs(
                experiment=self.experiment, item_ids=[i.pk for i in items], repeat=repeat
            )
            have = scored_rows(self.experiment, self.bindings, items, repeat, targets.rounds)
            self._batch(items, targets, have, repeat)

    def _batch(self, items, targets: TargetOutputs, have: set, repeat: int) -> None:
        count, rows, pruned = 0, [], []
        for binding in self.bindings:
            todo = [
                item
                for item in items
                if (binding.pk, item.pk) not in have
                and applies(binding.applies_to, data=item.data, tags=item.tags)
            ]
            if todo:
                found = self._evaluate(binding, todo, targets, repeat)
                rows += found
                pruned += found if binding.per_turn else []
                count += len(todo)  # progress counts rows scored, not turns
        if count:
            self.commit(count, rows, pruned)

    def _evaluate(self, binding, items, targets: TargetOutputs, repeat: int) -> list[tuple]:
        """Result rows of one binding on `items`: a row whose mapped target output is missing
        is skipped with the target's own error (unknown), as is a per-turn row without an
        assistant turn; the rest go through the runner (one case per row, or per turn)."""
        wanted = target_sources(binding.mapping)
        unfed = [item for item in items if wanted and targets.missing(item.pk)]
        fed = [item for item in items if not (wanted and targets.missing(item.pk))]
        cases, unscored = binding_cases(binding=binding, items=fed, outputs=targets.outputs)
        unscored += [(item, targets.missing(item.pk)) for item in unfed]
        outcomes = self._run(binding, cases, repeat)
        outcomes += [
            RunOutcome(status=ResultStatus.SKIPPED, error=cap_text(why, ERROR_BYTES))
            for _item, why in unscored
        ]
        cases += [Case(item, {}) for item, _why in unscored]
        return result_rows(self.experiment, binding, cases, outcomes, repeat)

    def _run(self, binding, cases: list[Case], repeat: int) -> list[RunOutcome]:
        return version_run_batch(
            version=binding.evaluator_version,
            workspace=self.experiment.workspace,
            turns=[case.turn for case in cases],
            policy=binding.policy,
            repeat=repeat,
            concurrency=self.experiment.concurrency,
            cancel=self.cancel,
            run_key=f"experiment:{self.experiment.public_id}:judge",
        )


def bindings_of(experiment: Experiment, queue: str) -> list[EvaluatorBinding]:
    """The bindings whose evaluator kind runs on `queue` (the chunk's kind), read once."""
    bindings = experiment.bindings.select_related("evaluator_version").order_by("pk")
    return [b for b in bindings if kind_get(b.evaluator_version.kind).queue == queue]


def scored_rows(
    experiment, bindings, items: list, repeat: int, rounds: dict[int, int] | None = None
) -> set[tuple[int, int]]:
    """(binding, item) pairs that already have a result, in one query over the mini-batch's
    position range; in a retry round a row with an error/timeout result (of any of its turns:
    a row's turns are written together) counts as not scored, and so does a binding's result
    that mapped a target output written by a later round than it (`rounds`: item → the round
    of its target row; the retry called the target again for that row)."""
    positions = [item.position for item in items]
    found = Result.objects.filter(
        experiment=experiment,
        binding_id__in=[b.pk for b in bindings],
        repeat=repeat,
        position__gte=min(positions),
        position__lte=max(positions),
    ).values_list("binding_id", "item_id", "status", "attempt")
    ids = {item.pk for item in items}
    fed = {b.pk for b in bindings if target_sources(b.mapping)}
    rounds = rounds or {}
    have, failed = set(), set()
    for binding_id, item_id, status, scored_in in found:
        if item_id in ids:
            have.add((binding_id, item_id))
            stale = binding_id in fed and rounds.get(item_id, 0) > scored_in
            if status in FAILED or stale:
                failed.add((binding_id, item_id))
    return have - failed if experiment.retry_round else have


def result_rows(experiment, binding, cases: list[Case], outcomes, repeat: int) -> list[tuple]:
    """One row tuple per case, in `writes.COLUMNS` order (outcomes are capped by the runner)."""
    rows = []
    for case, o in zip(cases, outcomes, strict=True):
        item = case.item
        rows.append(
            (experiment.pk, binding.pk, item.pk, repeat, case.index)
            + (item.position, _tags(item), o.status, o.score, o.reason, o.verdict, o.error)
            + (o.stdout, o.latency_ms, o.tokens_in, o.tokens_out, o.cost, o.rendered_request)
            + (o.raw_answer, experiment.retry_round, o.cached)
        )
    return rows


def _tags(item) -> list:
    """The item's own tag list (shared by a chunk's items of equal tags: encoded once)."""
    return item.tags if item.tags is not None else []
