"""Target rows written by `writes.target_results_write` (COPY and one upsert on PostgreSQL,
bulk_create elsewhere): exactly one row per (experiment, item, repeat), updated in place."""

import pytest
from django.db import transaction

from assay.vocabulary import ResultStatus
from experiments.models import TargetResult
from experiments.scoring import chunks, writes
from tests.experiments.test_chunk_path import launched

pytestmark = pytest.mark.django_db


def target_rows(experiment, output: str) -> list[TargetResult]:
    fields = {
        "status": ResultStatus.SUCCESS,
        "output": output,
        "rendered_request": {"body": {"q": output}},
        "latency_ms": 12.5,
    }
    return [
        chunks.target_row(experiment=experiment, item=item, repeat=0, fields=fields)
        for item in experiment.evalset_version.items.order_by("pk")
    ]


def stored(experiment) -> list[tuple]:
    return list(
        TargetResult.objects.filter(experiment=experiment)
        .order_by("item_id")
        .values_list("output", "rendered_request", "conversation", "latency_ms")
    )


def test_writing_target_rows_twice_leaves_one_row_each_with_the_last_fields(workspace, user):
    experiment = launched(workspace, user, rows=5)
    with transaction.atomic():
        writes.target_results_write(
            rows=target_rows(experiment, "first"), update_fields=chunks.TARGET_UPDATE_FIELDS
        )
        created = dict(TargetResult.objects.values_list("pk", "created_at"))
        writes.target_results_write(  # twice in one transaction: the stage is emptied
            rows=target_rows(experiment, "again"), update_fields=chunks.TARGET_UPDATE_FIELDS
        )
    assert stored(experiment) == [("again", {"body": {"q": "again"}}, None, 12.5)] * 5
    assert dict(TargetResult.objects.values_list("pk", "created_at")) == created


def test_a_target_write_rolled_back_leaves_nothing_and_the_next_one_works(workspace, user):
    experiment = launched(workspace, user, rows=3)
    rows = target_rows(experiment, "out")
    with pytest.raises(RuntimeError), transaction.atomic():
        writes.target_results_write(rows=rows, update_fields=chunks.TARGET_UPDATE_FIELDS)
        raise RuntimeError("the lease was lost")
    assert not TargetResult.objects.exists()
    writes.target_results_write(rows=rows, update_fields=chunks.TARGET_UPDATE_FIELDS)
    assert TargetResult.objects.filter(experiment=experiment).count() == 3
