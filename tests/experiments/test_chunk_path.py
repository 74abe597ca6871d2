"""The chunk path's costs stay proportional to the chunk, and its faster writes keep every
guarantee: one result per key, corrections kept, stale turns pruned, fair dispatch.

Counts are of queries, never of time (tests do not assert on speed; bench/ prints figures).
"""

import gc
from itertools import count

import pytest
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext

from experiments import scoring as engine
from experiments import services
from experiments.models import ChunkStatus, ExperimentChunk, Result
from experiments.runs import dispatch
from experiments.scoring import chunks, writes
from tests.support.factories import make_code_version, make_evalset_version, qa_rows

pytestmark = pytest.mark.django_db
NAMES = count()


@pytest.fixture(autouse=True)
def everything_dispatched(settings):
    """Every chunk is queued at begin, so each counted chunk meets the same dispatch state."""
    settings.ASSAY_DISPATCH_AHEAD = settings.ASSAY_WORKSPACE_MAX_CHUNKS = 1000


def launched(workspace, user, *, rows: int, checks: int = 1, chunk_size: int = 10):
    name = f"set {next(NAMES)}"
    version = make_evalset_version(workspace=workspace, user=user, rows=qa_rows(rows), name=name)
    bindings = [
        {"evaluator_version": make_code_version(workspace=workspace, user=user, name=f"{name} {n}")}
        for n in range(checks)
    ]
    experiment = services.experiment_create(
        workspace=workspace,
        user=user,
        name=f"run {rows} × {checks}",
        evalset_version=version,
        bindings=bindings,
        chunk_size=chunk_size,
    )
    services.experiment_launch(experiment=experiment)
    engine.experiment_begin(experiment_id=experiment.pk)
    return experiment


def chunk_of(experiment, index: int) -> ExperimentChunk:
    return ExperimentChunk.objects.get(experiment=experiment, index=index)


def run_counted(chunk: ExperimentChunk) -> int:
    """Queries of one chunk's claim, work and completion (its dispatches included)."""
    with CaptureQueriesContext(connection) as queries:
        claimed, token = engine.chunk_claim(chunk_id=chunk.pk)
        assert engine.chunk_run(chunk=claimed, token=token, keeper=False) == "done"
        engine.chunk_complete(chunk=claimed, token=token)
    return len(queries.captured_queries)


def test_a_chunks_queries_do_not_grow_with_the_runs_size_or_its_results(workspace, user):
    small = launched(workspace, user, rows=20)
    large = launched(workspace, user, rows=200)
    first = run_counted(chunk_of(small, 0))
    for index in range(15):  # most of the large run scored: its results table is larger
        run_counted(chunk_of(large, index))
    assert Result.objects.filter(experiment=large).count() == 150
    assert run_counted(chunk_of(large, 15)) == first


def test_a_mini_batchs_queries_do_not_grow_with_its_bindings(workspace, user):
    # two chunks each, so the one counted is not the last (finishing reads every binding)
    one = launched(workspace, user, rows=20, checks=1)
    three = launched(workspace, user, rows=20, checks=3)
    assert run_counted(chunk_of(three, 0)) == run_counted(chunk_of(one, 0))
    assert Result.objects.filter(experiment=three).count() == 30


def test_every_mini_batch_costs_the_same_queries(workspace, user, monkeypatch):
    experiment = launched(workspace, user, rows=80, chunk_size=40)
    monkeypatch.setitem(chunks.BATCH_ROWS, "code", 10)
    four_batches = run_counted(chunk_of(experiment, 0))
    other = launched(workspace, user, rows=40, chunk_size=20)
    two_batches = run_counted(chunk_of(other, 0))
    per_batch = (four_batches - two_batches) / 2
    # what a mini-batch asks: scored rows, its rows' write (its round trips), the lease and
    # the progress bump, the inline runner's cancel look and lease renewal, and the
    # transaction around them; nothing more
    assert per_batch <= 10
    assert Result.objects.filter(experiment=experiment).count() == 40


def test_a_chunk_run_twice_still_leaves_one_result_per_key(workspace, user):
    experiment = launched(workspace, user, rows=10)
    chunk = chunk_of(experiment, 0)
    claimed, token = engine.chunk_claim(chunk_id=chunk.pk)
    assert engine.chunk_run(chunk=claimed, token=token, keeper=False) == "done"
    # a marker a second write would overwrite (results keep no update time)
    Result.objects.update(stdout="written once")
    written = sorted(Result.objects.values_list("pk", "stdout"))
    ExperimentChunk.objects.filter(pk=chunk.pk).update(status=ChunkStatus.PENDING)
    claimed, token = engine.chunk_claim(chunk_id=chunk.pk)
    with CaptureQueriesContext(connection) as queries:
        assert engine.chunk_run(chunk=claimed, token=token, keeper=False) == "done"
    assert sorted(Result.objects.values_list("pk", "stdout")) == written
    assert not [q for q in queries.captured_queries if "INSERT" in q["sql"].upper()]


def test_writing_the_same_rows_twice_updates_them_and_keeps_corrections(workspace, user):
    experiment = launched(workspace, user, rows=10)
    engine.experiment_run_inline(experiment_id=experiment.pk)
    corrected = Result.objects.filter(experiment=experiment).order_by("position").first()
    Result.objects.filter(pk=corrected.pk).update(human_verdict="fail", correction_note="no")
    rows = [
        tuple(getattr(r, c) for c in writes.COLUMNS)
        for r in Result.objects.filter(experiment=experiment)
    ]
    at = writes.COLUMNS.index("reason")
    again = [row[:at] + ("written again",) + row[at + 1 :] for row in rows]
    with transaction.atomic():
        writes.results_write(rows=again)
        writes.results_write(rows=again)  # twice in one transaction: the stage is emptied
    assert Result.objects.filter(experiment=experiment).count() == 10
    assert set(Result.objects.values_list("reason", flat=True)) == {"written again"}
    kept = Result.objects.get(pk=corrected.pk)
    assert (kept.human_verdict, kept.correction_note) == ("fail", "no")


def test_a_write_rolled_back_with_its_batch_leaves_nothing_and_the_next_one_works(workspace, user):
    experiment = launched(workspace, user, rows=10)
    engine.experiment_run_inline(experiment_id=experiment.pk)
    rows = [tuple(getattr(r, c) for c in writes.COLUMNS) for r in Result.objects.all()]
    Result.objects.all().delete()
    with pytest.raises(RuntimeError), transaction.atomic():
        writes.results_write(rows=rows)
        raise RuntimeError("the lease was lost")
    assert Result.objects.count() == 0
    with transaction.atomic():
        writes.results_write(rows=rows)
    assert Result.objects.count() == 10


def test_dispatch_reads_at_most_the_free_places_of_each_workspace(workspace, user, settings):
    settings.ASSAY_DISPATCH_AHEAD = 2
    launched(workspace, user, rows=100)  # ten chunks: two queued by begin, eight pending
    tables = dispatch._tables("code")
    waiting = dispatch._waiting_by_workspace(tables, 3)
    assert [len(chunks) for chunks in waiting.values()] == [3]
    indexes = [chunk.index for chunk, _move in waiting[workspace.pk]]
    assert indexes == sorted(indexes) and indexes[0] == 2


@pytest.mark.django_db(transaction=True)
def test_a_write_outside_a_transaction_still_lands(workspace, user):
    # the staging table empties at each commit: in autocommit the write opens its own
    experiment = launched(workspace, user, rows=10)
    engine.experiment_run_inline(experiment_id=experiment.pk)
    rows = [tuple(getattr(r, c) for c in writes.COLUMNS) for r in Result.objects.all()]
    Result.objects.all().delete()
    writes.results_write(rows=rows)
    writes.results_write(rows=rows)
    assert Result.objects.count() == 10


def test_a_worker_process_starts_its_sandbox_before_its_first_chunk():
    from celery.signals import worker_process_init

    import experiments.tasks  # noqa: F401 - connects the handler
    import sandbox

    sandbox.host.MANAGER.shutdown()
    worker_process_init.send(sender=None)  # what a freshly forked pool process receives
    assert sandbox.host.MANAGER.zygote is not None and sandbox.host.MANAGER.zygote.alive()


def test_a_worker_process_loads_the_url_map_before_its_first_chunk():
    """A run's end event links to its page: a pool process loads the URL map when it starts,
    not inside its first finishing transaction."""
    from celery.signals import worker_process_init
    from django.urls import clear_url_caches, get_resolver

    import experiments.tasks  # noqa: F401 - connects the handler

    clear_url_caches()
    assert not get_resolver()._populated
    try:
        worker_process_init.send(sender=None)  # what a freshly forked pool process receives
        assert get_resolver()._populated
        # and what it loaded is out of the collector's way
        assert gc.get_freeze_count() > 10_000
    finally:
        gc.unfreeze()
