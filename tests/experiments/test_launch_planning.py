"""Launching plans its chunks from the version's stored row count and two index probes: the
launch request's reads do not grow with the version, and the chunks still cover every row
exactly once (a hand-written version with gaps in its positions included).

Counts are of queries and rows, never of time.
"""

from itertools import count

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from evalsets.models import EvalSetItem
from experiments import services
from experiments.models import ExperimentChunk
from experiments.services.runs import chunk_bounds
from tests.support.factories import make_code_version, make_evalset_version, qa_rows

pytestmark = pytest.mark.django_db
NAMES = count()


def draft(workspace, user, *, rows: int, chunk_size: int = 10):
    name = f"launch set {next(NAMES)}"
    version = make_evalset_version(workspace=workspace, user=user, rows=qa_rows(rows), name=name)
    check = make_code_version(workspace=workspace, user=user, name=f"{name} check")
    return services.experiment_create(
        workspace=workspace,
        user=user,
        name=f"run {rows}",
        evalset_version=version,
        bindings=[{"evaluator_version": check}],
        chunk_size=chunk_size,
    )


def launch_counted(experiment) -> tuple[int, int]:
    """(queries, the largest number of rows one query over the items returned)."""
    with CaptureQueriesContext(connection) as queries:
        services.experiment_launch(experiment=experiment)
    items = [q["sql"] for q in queries.captured_queries if "evalsets_evalsetitem" in q["sql"]]
    # every read of the items is an index probe of one row (LIMIT 1), none reads the rows
    assert items and all("LIMIT 1" in sql for sql in items), items
    return len(queries.captured_queries), len(items)


def covered(experiment) -> list[int]:
    """Each item's position once per chunk range (of one kind) that holds it."""
    positions = experiment.evalset_version.items.values_list("position", flat=True)
    ranges = ExperimentChunk.objects.filter(experiment=experiment).values_list(
        "position_from", "position_to"
    )
    return sorted(p for p in positions for low, high in ranges if low <= p < high)


def test_the_launch_requests_reads_do_not_grow_with_the_version(workspace, user):
    small, large = draft(workspace, user, rows=20), draft(workspace, user, rows=400)
    # 400 rows in chunks of 10 is 40 chunk rows against 2, all in one bulk insert
    assert launch_counted(small) == launch_counted(large)
    large.refresh_from_db()
    assert (large.items_total, large.results_total, large.chunks_total) == (400, 400, 40)


def test_chunks_cover_every_row_exactly_once(workspace, user):
    experiment = draft(workspace, user, rows=95, chunk_size=10)
    services.experiment_launch(experiment=experiment)
    positions = sorted(experiment.evalset_version.items.values_list("position", flat=True))
    assert covered(experiment) == positions == list(range(95))
    assert ExperimentChunk.objects.filter(experiment=experiment).count() == 10


def test_a_version_with_gaps_is_still_covered_once_in_full_chunks(workspace, user):
    experiment = draft(workspace, user, rows=30, chunk_size=10)
    version = experiment.evalset_version
    # rows written by hand: every position tripled, so the range is no longer 0…n-1
    for item in EvalSetItem.objects.filter(version=version):
        EvalSetItem.objects.filter(pk=item.pk).update(position=item.position * 3)
    assert chunk_bounds(version=version, size=10) == ([0, 30, 60], 30)
    services.experiment_launch(experiment=experiment)
    assert covered(experiment) == sorted(version.items.values_list("position", flat=True))
    assert ExperimentChunk.objects.filter(experiment=experiment).count() == 3
