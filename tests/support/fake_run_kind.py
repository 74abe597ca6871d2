"""A third kind of run that exists only in the tests: counting. A run counts to `rows`, chunk
by chunk (a chunk's range of numbers), and stores each number once. It is everything a new
kind is — its models on the abstract bases, its `RunKind` and its registration — and nothing
of the run engine changes for it: dispatch, leases, the reaper, cancel, retry and the tasks
take it as they take experiments and pairwise runs.

Its models belong to no installed app (`app_label` "counting"), so migrations never see them;
the `counting_kind` fixture creates their tables in the test database and registers the kind
for the test (the reaper and dispatch of other tests never see it). Their references to the
platform's tables have no database constraint: a flush between other tests truncates those
tables, which PostgreSQL refuses while a table it does not truncate points at them.
"""

from __future__ import annotations

import pytest
from django.conf import settings
from django.db import connection, models

from assay.models import Workspace
from experiments.runs.bases import ChunkBase, RunBase
from experiments.runs.chunks import ChunkStopped, batch_commit
from experiments.runs.kinds import RetryPlan, RunKind, run_kind_register, run_kind_unregister

BATCH = 4  # numbers a commit writes (a chunk of 10 commits three times)
BROKEN = -1  # `fail_at` of a run whose work never raises


class CountingRun(RunBase):
    workspace = models.ForeignKey(
        Workspace, on_delete=models.CASCADE, related_name="+", db_constraint=False
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        on_delete=models.SET_NULL,
        related_name="+",
        db_constraint=False,
    )
    rows = models.PositiveIntegerField(default=0)
    fail_at = models.IntegerField(default=BROKEN, help_text="the number whose work raises")

    class Meta:
        app_label = "counting"


class CountingChunk(ChunkBase):
    run = models.ForeignKey(CountingRun, on_delete=models.CASCADE, related_name="chunks")
    first = models.PositiveIntegerField()
    last = models.PositiveIntegerField(help_text="exclusive")

    class Meta:
        app_label = "counting"


class CountedRow(models.Model):
    run = models.ForeignKey(CountingRun, on_delete=models.CASCADE, related_name="results")
    number = models.PositiveIntegerField()
    round = models.PositiveSmallIntegerField(default=0)

    class Meta:
        app_label = "counting"
        constraints = [models.UniqueConstraint(fields=["run", "number"], name="counted_once")]

    def __str__(self) -> str:
        return f"{self.run_id}:{self.number}"


class CountingRuns(RunKind):
    name = "counting"
    noun = "counting run"
    run_model = CountingRun
    chunk_model = CountingChunk
    run_field = "run"
    queues = {"code": ()}
    kept = "the numbers counted"
    messages = {
        "cannot_cancel": "A %(status)s counting run cannot be cancelled.",
        "not_finished": "Retry once the counting run has finished.",
        "nothing_to_retry": "Nothing is missing.",
        "changed": "The counting run changed meanwhile.",
    }

    def work(self, chunk, lease, **options) -> None:
        have = set(chunk.run.results.values_list("number", flat=True))
        todo = [n for n in range(chunk.first, chunk.last) if n not in have]
        for start in range(0, len(todo), BATCH):
            if not lease.check():
                raise ChunkStopped(lease.reason)
            batch = todo[start : start + BATCH]
            if chunk.run.fail_at in batch:
                raise RuntimeError(f"cannot count {chunk.run.fail_at}")
            batch_commit(lease, len(batch), lambda batch=batch: _write(chunk.run, batch))

    def settle(self, run_id: int) -> None:
        count = CountedRow.objects.filter(run_id=run_id).count()
        CountingRun.objects.filter(pk=run_id).update(results_done=count)

    def retry_plan(self, run) -> RetryPlan:
        missing = run.results_total - run.results.count()
        return RetryPlan(count=missing, fields={}, answer=missing)


def _write(run: CountingRun, numbers: list[int]) -> None:
    rows = [CountedRow(run=run, number=n, round=run.retry_round) for n in numbers]
    CountedRow.objects.bulk_create(rows, ignore_conflicts=True)


COUNTING = CountingRuns()
MODELS = (CountingRun, CountingChunk, CountedRow)


def counting_run_launch(*, workspace, rows: int, chunk_size: int = 10, fail_at: int = BROKEN):
    """A launched counting run (as a kind's launch service would make it)."""
    from experiments.runs.services import run_launched

    run = CountingRun.objects.create(workspace=workspace, name="count", rows=rows, fail_at=fail_at)
    bounds = list(range(0, rows, chunk_size))
    CountingChunk.objects.bulk_create(
        CountingChunk(run=run, index=i, first=b, last=min(b + chunk_size, rows))
        for i, b in enumerate(bounds)
    )
    run_launched(
        kind=COUNTING, run_id=run.pk, items_total=rows, results_total=rows, chunks_total=len(bounds)
    )
    run.refresh_from_db()
    return run


@pytest.fixture(scope="session")
def counting_tables(django_db_setup, django_db_blocker):
    """The counting kind's tables in the test database (created once a session)."""
    with django_db_blocker.unblock():
        existing = set(connection.introspection.table_names())
        with connection.schema_editor() as editor:
            for model in MODELS:
                if model._meta.db_table not in existing:
                    editor.create_model(model)


@pytest.fixture
def counting_kind(counting_tables):
    """The counting kind, registered for one test."""
    run_kind_register(COUNTING)
    yield COUNTING
    run_kind_unregister(COUNTING.name)
