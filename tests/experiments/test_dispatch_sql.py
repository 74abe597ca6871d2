"""Dispatch on PostgreSQL runs fixed statements (`runs.dispatch_sql`) that pick exactly what
the ORM path picks: the same chunks in the same order, under the same caps, in a fixed number
of queries however many chunks it queues. Counts are of queries, never of time."""

from itertools import count

import pytest
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext

from assay import services as accounts
from experiments import scoring as engine
from experiments import services
from experiments.models import ChunkStatus, Experiment, ExperimentChunk
from experiments.runs import dispatch
from experiments.runs.kinds import run_kinds
from tests.support.factories import make_code_version, make_evalset_version, qa_rows

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.skipif(
        connection.vendor != "postgresql", reason="the SQL path is PostgreSQL's (SQLite: ORM)"
    ),
]
NAMES = count()


class Rollback(Exception):
    pass


def launched(workspace, user, *, rows: int) -> Experiment:
    name = f"set {next(NAMES)}"
    version = make_evalset_version(workspace=workspace, user=user, rows=qa_rows(rows), name=name)
    check = make_code_version(workspace=workspace, user=user, name=name)
    experiment = services.experiment_create(
        workspace=workspace,
        user=user,
        name=f"run {name}",
        evalset_version=version,
        bindings=[{"evaluator_version": check}],
        chunk_size=10,
    )
    services.experiment_launch(experiment=experiment)
    engine.experiment_begin(experiment_id=experiment.pk)
    return experiment


def picks(pick, queue: str = "code") -> list[int]:
    """What `pick` would queue now, rolled back."""
    try:
        with transaction.atomic():
            chosen = [chunk.pk for chunk in pick(queue)]
            raise Rollback
    except Rollback:
        return chosen


def workers_step(n: int) -> None:
    """Workers finish the oldest running chunk and take `n` queued ones (queued → running)."""
    running = ExperimentChunk.objects.filter(status=ChunkStatus.RUNNING).order_by("pk")
    ExperimentChunk.objects.filter(pk__in=running[:1].values("pk")).update(status="done")
    queued = ExperimentChunk.objects.filter(status=ChunkStatus.QUEUED).order_by("pk")[:n]
    for chunk in queued:
        assert engine.chunk_claim(chunk_id=chunk.pk)


def statements(queries) -> list[str]:
    """The statements run (not the savepoints of the test's own transaction)."""
    sql = [q["sql"] for q in queries.captured_queries]
    return [s for s in sql if not s.startswith(("SAVEPOINT", "RELEASE SAVEPOINT"))]


@pytest.fixture
def workspaces(user, make_user):
    others = [make_user(name) for name in ("bob", "carol")]
    return [
        (accounts.workspace_create(name=f"W{n}", slug=f"w{n}", owner=owner), owner)
        for n, owner in enumerate([user, *others])
    ]


def test_the_sql_path_picks_what_the_orm_path_picks_step_by_step(workspaces, user, settings):
    settings.ASSAY_DISPATCH_AHEAD, settings.ASSAY_WORKSPACE_MAX_CHUNKS = 4, 3
    (first, alice), (second, bob), (third, carol) = workspaces
    launched(first, alice, rows=60), launched(first, alice, rows=30), launched(second, bob, rows=40)
    launched(third, carol, rows=20)
    cancelling = launched(third, carol, rows=30)
    Experiment.objects.filter(pk=cancelling.pk).update(cancel_requested=True)
    queued = 0
    for step in range(16):
        workers_step(step % 3)  # frees places in the broker, fills and frees workspace caps
        expected = picks(dispatch._dispatch_queue_orm)
        assert picks(dispatch._dispatch_queue_sql) == expected, step
        chosen = dispatch.chunks_dispatch(["code"])
        assert [chunk.pk for chunk in chosen] == expected
        assert all(chunk.status == ChunkStatus.QUEUED for chunk in chosen)
        queued += len(chosen)
    assert queued >= 10  # the steps did pick, across workspaces and caps
    assert ExperimentChunk.objects.filter(status=ChunkStatus.RUNNING).count() > 0


def test_a_dispatch_is_three_queries_however_many_chunks_it_queues(workspaces, user, settings):
    settings.ASSAY_DISPATCH_AHEAD = 2
    for workspace, owner in workspaces:
        launched(workspace, owner, rows=100)
    settings.ASSAY_DISPATCH_AHEAD = settings.ASSAY_WORKSPACE_MAX_CHUNKS = 1000
    with CaptureQueriesContext(connection) as queries:
        chosen = dispatch.chunks_dispatch(["code"])
    assert len(chosen) == 3 * 10 - 2  # every pending chunk (begin queued two)
    # the lock, the runs launched since (none here), one read a kind of run on the queue
    # (experiments', online runs'), one UPDATE (only experiments' chunks were picked)
    assert len(statements(queries)) == 1 + 1 + kinds_on("code") + 1
    with CaptureQueriesContext(connection) as queries:
        assert dispatch.chunks_dispatch() == []  # both queues: nothing left to queue
    # the lock, the launched runs, a read a kind on each queue (llm: experiments', pairwise
    # runs', online runs')
    assert len(statements(queries)) == 1 + 1 + kinds_on("code") + kinds_on("llm")


def kinds_on(queue: str) -> int:
    """How many kinds of run have chunks on `queue` (dispatch reads each kind's table once)."""
    count = sum(queue in kind.queues for kind in run_kinds())
    assert count >= 2  # experiments and online runs on both queues: the test counts them
    return count


def test_the_returned_chunks_load_what_dispatch_did_not_read(workspace, user, settings):
    settings.ASSAY_DISPATCH_AHEAD = 1
    experiment = launched(workspace, user, rows=30)
    workers_step(1)
    (chunk,) = dispatch.chunks_dispatch(["code"])
    stored = ExperimentChunk.objects.get(pk=chunk.pk)
    assert (chunk.experiment_id, chunk.kind, chunk.index) == (experiment.pk, "code", 1)
    assert (chunk.position_from, chunk.position_to) == (stored.position_from, stored.position_to)
    assert chunk.queued_at == stored.queued_at and stored.status == ChunkStatus.QUEUED
