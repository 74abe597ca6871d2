"""Every behaviour of the run engine, for every kind of run: begin, run inline, a chunk
delivered twice (exactly once), a live lease turning a second runner away, cancel before and
during, fail, retry the failed, reap a dead worker's chunk (and one that keeps dying), restart
a lost start.

The kinds are experiments, pairwise runs, online runs and `counting`, a kind that exists only
in the tests (`tests/support/fake_run_kind.py`): a new kind is its module, and these pass for it
with nothing of `experiments/runs` changed. The engine's steps are called as the tasks call them,
in this process (the worker processes, kill -9 and a broker restart: test_reliability.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

import pytest
from django.core.exceptions import ValidationError
from django.utils import timezone

from experiments import services, tasks
from experiments.models import PairwiseResult, Result
from experiments.pairwise.services import pairwise_run_create
from experiments.pairwise.work import PAIRWISE
from experiments.runs import chunks, lifecycle, reaper
from experiments.runs.bases import ChunkStatus, RunStatus
from experiments.runs.inline import run_inline
from experiments.runs.kinds import RunKind, run_kinds
from experiments.runs.services import run_cancel, run_retry_failed
from experiments.scoring import EXPERIMENT
from online.kind import ONLINE
from online.models import OnlineOutcome
from online.services import online_sweep
from tests.online.support import code_rule, llm_span, store
from tests.support.factories import make_code_version, make_evalset_version, qa_rows
from tests.support.fake_run_kind import CountedRow, counting_run_launch
from tests.support.pairwise import qa_version

pytestmark = pytest.mark.django_db

ROWS = 30  # three chunks of ten for every kind


@dataclass
class Case:
    """One kind of run as the suite drives it: `launch()` makes a launched (queued) run of
    three chunks; `rows(run)` are its stored results as (id, marker); `mark(run)` sets every
    result's marker, a value a second write of the row would overwrite."""

    kind: RunKind
    launch: object
    model: type
    marker: str
    value: object

    def rows(self, run) -> set:
        found = self.model.objects.filter(**{self.kind.run_field: run})
        return set(found.values_list("pk", self.marker))

    def mark(self, run) -> None:
        self.model.objects.filter(**{self.kind.run_field: run}).update(**{self.marker: self.value})


@pytest.fixture
def experiment_case(workspace, user):
    def launch():
        version = make_evalset_version(workspace=workspace, user=user, rows=qa_rows(ROWS))
        ev = make_code_version(workspace=workspace, user=user)
        return services.experiment_create(
            workspace=workspace,
            user=user,
            name="run",
            evalset_version=version,
            bindings=[{"evaluator_version": ev}],
            chunk_size=10,
            launch=True,
        )

    return Case(EXPERIMENT, launch, Result, "stdout", "written once")


@pytest.fixture
def pairwise_case(workspace, user, pw_apps, pw_judge):
    def launch():
        version = qa_version(workspace=workspace, user=user, n=ROWS, name="Thirty")
        return pairwise_run_create(
            workspace=workspace,
            user=user,
            name="pairwise",
            experiments=pw_apps("X", "Y", on=version),
            evaluator_version=pw_judge,
            chunk_size=10,
        )

    return Case(PAIRWISE, launch, PairwiseResult, "reason_ab", "written once")


@pytest.fixture
def counting_case(workspace, counting_kind):
    def launch():
        return counting_run_launch(workspace=workspace, rows=ROWS)

    return Case(counting_kind, launch, CountedRow, "round", 9)


@pytest.fixture
def online_case(workspace, user):
    def launch():
        rule = code_rule(workspace, user)
        store([llm_span(workspace, output="a", expected="a") for _ in range(ROWS)])
        later = timezone.now() + timedelta(minutes=1)  # past the sweep's lag
        return online_sweep(rule_id=rule.pk, now=later, chunk_items=10)

    return Case(ONLINE, launch, OnlineOutcome, "reason", "written once")


@pytest.fixture(params=["experiment", "pairwise", "counting", "online"])
def case(request) -> Case:
    return request.getfixturevalue(f"{request.param}_case")


def chunks_of(case: Case, run):
    return case.kind.chunk_model.objects.filter(**{case.kind.run_field: run}).order_by("index")


def fresh(case: Case, run):
    return case.kind.run_model.objects.get(pk=run.pk)


def work_one(case: Case, chunk) -> str:
    """Claim, run and complete one chunk as a task does."""
    claimed, token = chunks.chunk_claim(case.kind, chunk_id=chunk.pk)
    outcome = chunks.chunk_run(chunk=claimed, token=token, keeper=False)
    if outcome == "done":
        chunks.chunk_complete(chunk=claimed, token=token)
    return outcome


# ----------------------------------------------------------------------------- the registry


def test_every_kind_of_the_app_is_registered():
    assert {kind.name for kind in run_kinds()} >= {"experiment", "pairwise", "online"}


def test_the_test_kind_is_registered_only_for_its_test(counting_kind):
    assert counting_kind in run_kinds()


# ----------------------------------------------------------------------------- begin, inline


def test_launch_queues_and_begin_runs_and_dispatches(case):
    run = case.launch()
    assert run.status == RunStatus.QUEUED and run.chunks_total == 3 and run.queued_at
    dispatched = chunks.run_begin(case.kind, run_id=run.pk)
    run = fresh(case, run)
    assert run.status == RunStatus.RUNNING and run.started_at
    assert dispatched
    assert {chunks_of(case, run).get(pk=c.pk).status for c in dispatched} == {ChunkStatus.QUEUED}


def test_inline_runs_to_completion_with_every_row_once(case):
    run = case.launch()
    done = run_inline(case.kind, run_id=run.pk)
    assert done.status == RunStatus.COMPLETED and done.finished_at
    assert done.results_done == done.results_total == len(case.rows(done)) > 0
    assert done.chunks_done == done.chunks_total == 3
    assert set(chunks_of(case, done).values_list("status", flat=True)) == {ChunkStatus.DONE}


# ----------------------------------------------------------------------------- exactly once


def test_a_chunk_delivered_twice_writes_nothing_twice(case):
    run = case.launch()
    chunks.run_begin(case.kind, run_id=run.pk)
    chunk = chunks_of(case, run).first()
    assert tasks.run_chunk(chunk.pk, case.kind.name) == "done"
    case.mark(run)
    first = case.rows(run)
    assert first and tasks.run_chunk(chunk.pk, case.kind.name) == "already done"
    # even a chunk forced back to pending only fills what is missing
    case.kind.chunk_model.objects.filter(pk=chunk.pk).update(status=ChunkStatus.PENDING)
    assert tasks.run_chunk(chunk.pk, case.kind.name) == "done"
    assert case.rows(run) == first


def test_a_live_lease_turns_a_second_runner_away(case):
    run = case.launch()
    chunks.run_begin(case.kind, run_id=run.pk)
    chunk = chunks_of(case, run).first()
    assert chunks.chunk_claim(case.kind, chunk_id=chunk.pk) is not None
    assert tasks.run_chunk(chunk.pk, case.kind.name) == "held by another worker"
    assert lifecycle.claim(case.kind, chunk.pk) is None


# ----------------------------------------------------------------------------- cancel


def test_a_queued_run_cancelled_ends_at_once_and_never_completes(case):
    run = case.launch()
    cancelled = run_cancel(kind=case.kind, run=run)
    assert cancelled.status == RunStatus.CANCELLED and cancelled.cancel_requested
    assert cancelled.finished_at
    assert run_inline(case.kind, run_id=run.pk).status == RunStatus.CANCELLED
    assert case.rows(run) == set()
    assert run_cancel(kind=case.kind, run=run).status == RunStatus.CANCELLED  # again: no harm


def test_cancel_while_a_chunk_runs_ends_cancelled_with_the_rows_so_far(case):
    run = case.launch()
    chunks.run_begin(case.kind, run_id=run.pk)
    first, second, _third = chunks_of(case, run)
    assert work_one(case, first) == "done"
    kept = case.rows(run)
    claimed, token = chunks.chunk_claim(case.kind, chunk_id=second.pk)
    asked = run_cancel(kind=case.kind, run=run)
    assert asked.status == RunStatus.RUNNING and asked.cancel_requested  # a chunk is at work
    assert chunks.chunk_run(chunk=claimed, token=token, keeper=False) == "cancelled"
    ended = fresh(case, run)
    assert ended.status == RunStatus.CANCELLED and ended.finished_at
    assert case.rows(run) == kept and ended.results_done == len(kept)


def test_a_finished_run_cannot_be_cancelled(case):
    run = run_inline(case.kind, run_id=case.launch().pk)
    with pytest.raises(ValidationError) as raised:
        run_cancel(kind=case.kind, run=run)
    assert raised.value.message_dict == {
        "status": [case.kind.messages["cannot_cancel"] % {"status": "completed"}]
    }
    assert fresh(case, run).status == RunStatus.COMPLETED


# ----------------------------------------------------------------------------- fail, retry


def test_a_chunk_that_raised_fails_its_run_and_keeps_the_rows(case):
    run = case.launch()
    chunks.run_begin(case.kind, run_id=run.pk)
    first, second, _third = chunks_of(case, run)
    assert work_one(case, first) == "done"
    kept = case.rows(run)
    chunks.chunk_failed(case.kind, chunk_id=second.pk, message="RuntimeError: boom")
    failed = fresh(case, run)
    assert failed.status == RunStatus.FAILED and failed.finished_at
    assert failed.error_message == "A chunk of work failed: RuntimeError: boom"
    assert chunks_of(case, run).get(pk=second.pk).status == ChunkStatus.FAILED
    assert case.rows(run) == kept and failed.results_done == len(kept)


def test_retry_failed_runs_only_what_is_missing_into_the_same_run(case):
    run = case.launch()
    chunks.run_begin(case.kind, run_id=run.pk)
    first, second, _third = chunks_of(case, run)
    work_one(case, first)
    kept = case.rows(run)
    chunks.chunk_failed(case.kind, chunk_id=second.pk, message="boom")
    assert run_retry_failed(kind=case.kind, run=fresh(case, run))  # how many, in its words
    queued = fresh(case, run)
    assert queued.status == RunStatus.QUEUED and queued.retry_round == 1
    assert not queued.cancel_requested and queued.error_message == "" and queued.chunks_done == 0
    done = run_inline(case.kind, run_id=run.pk)
    assert done.status == RunStatus.COMPLETED and done.results_done == done.results_total
    assert kept < case.rows(done) and len(case.rows(done)) == done.results_total


def test_retry_is_refused_while_running_and_when_nothing_failed(case):
    run = case.launch()
    with pytest.raises(Exception, match="Retry once"):
        run_retry_failed(kind=case.kind, run=run)
    done = run_inline(case.kind, run_id=run.pk)
    with pytest.raises(Exception, match="(?i)no failed|nothing"):
        run_retry_failed(kind=case.kind, run=done)


# ----------------------------------------------------------------------------- the reaper


def test_the_reaper_revives_a_dead_workers_chunk_and_the_run_completes(case):
    run = case.launch()
    chunks.run_begin(case.kind, run_id=run.pk)
    chunk = chunks_of(case, run).first()
    assert lifecycle.claim(case.kind, chunk.pk) is not None  # its worker then died
    past = timezone.now() - timedelta(seconds=1)
    case.kind.chunk_model.objects.filter(pk=chunk.pk).update(lease_expires_at=past)
    reaped = reaper.runs_reap()
    assert (case.kind.name, run.pk) in reaped.touched
    revived = chunks_of(case, run).get(pk=chunk.pk)
    assert revived.status in (ChunkStatus.PENDING, ChunkStatus.QUEUED) and not revived.lease_token
    assert run_inline(case.kind, run_id=run.pk).status == RunStatus.COMPLETED


def test_a_chunk_whose_worker_keeps_dying_fails_its_run(case, settings):
    run = case.launch()
    chunks.run_begin(case.kind, run_id=run.pk)
    chunk = chunks_of(case, run).first()
    lifecycle.claim(case.kind, chunk.pk)
    past = timezone.now() - timedelta(seconds=1)
    attempts = settings.ASSAY_CHUNK_MAX_ATTEMPTS
    case.kind.chunk_model.objects.filter(pk=chunk.pk).update(
        lease_expires_at=past, attempts=attempts
    )
    reaper.runs_reap()
    failed = fresh(case, run)
    assert failed.status == RunStatus.FAILED and case.kind.kept in failed.error_message
    assert chunks_of(case, run).get(pk=chunk.pk).status == ChunkStatus.FAILED


def test_the_reaper_restarts_a_lost_start(case, settings):
    settings.ASSAY_EXPERIMENT_STALE_S = 0
    run = case.launch()
    old = timezone.now() - timedelta(seconds=5)
    case.kind.run_model.objects.filter(pk=run.pk).update(heartbeat_at=old)
    # dispatch would start it too: only the start is looked at here
    case.kind.chunk_model.objects.filter(**{case.kind.run_field: run}).update(
        status=ChunkStatus.WAITING
    )
    reaped = reaper.runs_reap()
    assert (case.kind, run.pk) in reaped.start


def test_the_reaper_resends_a_lost_message(case, settings):
    settings.ASSAY_EXPERIMENT_STALE_S = 0
    run = case.launch()
    dispatched = chunks.run_begin(case.kind, run_id=run.pk)
    old = timezone.now() - timedelta(seconds=5)
    case.kind.chunk_model.objects.filter(pk=dispatched[0].pk).update(queued_at=old)
    reaped = reaper.runs_reap()
    assert dispatched[0].pk in {c.pk for c in reaped.send if isinstance(c, case.kind.chunk_model)}


# ----------------------------------------------------------------------------- a new kind


def test_a_chunk_task_that_raises_fails_the_run_of_its_kind(workspace, counting_kind):
    # the task's own failure path (ChunkTask.on_failure), for a kind the engine never named
    run = counting_run_launch(workspace=workspace, rows=ROWS, fail_at=15)
    chunks.run_begin(counting_kind, run_id=run.pk)
    second = counting_kind.chunk_model.objects.get(run=run, index=1)
    outcome = tasks.run_chunk.apply(args=[second.pk, counting_kind.name])
    assert outcome.failed()
    run.refresh_from_db()
    assert run.status == RunStatus.FAILED and "cannot count 15" in run.error_message
    assert CountedRow.objects.filter(run=run, number__gte=10, number__lt=15).count() == 4
