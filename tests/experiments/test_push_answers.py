"""What a push answers is what it did: `accepted` counts the rows this push stored (counted by
the insert, so of two concurrent pushes of one row only the one that stored it counts it), and
after `close/` a push is refused by name instead of being taken as duplicates."""

import threading

import pytest
from django.db import connection, transaction

from experiments.models import Experiment, TargetResult
from experiments.scoring.chunks import target_row
from tests.experiments.conftest import wait_for
from tests.support.factories import make_code_version, make_evalset_version, qa_rows
from tests.support.postgres import lock_waiters

pytestmark = pytest.mark.django_db(transaction=True)

MAPPING = {"actual_output": "target:actual_output", "reference_output": "column:reference_output"}


@pytest.fixture
def launched(api, workspace, user):
    version = make_evalset_version(workspace=workspace, user=user, rows=qa_rows(4))
    contains = make_code_version(workspace=workspace, user=user)
    body = {
        "name": "pushed",
        "evalset_version": str(version.public_id),
        "target": {"kind": "external"},
        "bindings": [{"evaluator_version": str(contains.public_id), "mapping": MAPPING}],
        "launch": True,
    }
    response = api.post("/api/v1/experiments/", body, format="json")
    assert response.status_code == 202, response.content
    experiment = Experiment.objects.get(public_id=response.json()["id"])
    return experiment, list(version.items.order_by("position"))


def push(api, experiment, outputs):
    return api.post(
        f"/api/v1/experiments/{experiment.public_id}/outputs/", {"outputs": outputs}, format="json"
    )


def test_a_push_after_close_is_refused_by_name(api, launched):
    experiment, items = launched
    first = push(api, experiment, [{"item_id": str(items[0].item_id), "actual_output": "Paris"}])
    assert first.status_code == 202 and first.json() == {"accepted": 1, "duplicates": 0}
    assert api.post(f"/api/v1/experiments/{experiment.public_id}/close/").status_code == 202
    late = push(api, experiment, [{"item_id": str(items[1].item_id), "actual_output": "Paris"}])
    assert late.status_code == 400, late.content
    assert "closed" in late.json()["error"]["details"]["status"][0]
    stored = TargetResult.objects.get(experiment=experiment, item=items[1])
    assert stored.status == "skipped"  # the close's "no output" row, not the late push
    again = api.post(f"/api/v1/experiments/{experiment.public_id}/close/")
    assert again.status_code == 202  # closing twice changes nothing
    assert TargetResult.objects.filter(experiment=experiment).count() == 4


def test_a_push_retried_before_close_still_answers_duplicates(api, launched):
    experiment, items = launched
    outputs = [{"item_id": str(item.item_id), "actual_output": "Paris"} for item in items[:2]]
    assert push(api, experiment, outputs).json() == {"accepted": 2, "duplicates": 0}
    assert push(api, experiment, outputs).json() == {"accepted": 0, "duplicates": 2}


def test_of_two_concurrent_pushes_of_one_row_only_the_one_that_stored_it_counts_it(
    api, launched, postgres_url
):
    experiment, items = launched
    stored, release = threading.Event(), threading.Event()

    def other_push() -> None:
        # another push of the same row, whose transaction commits while ours waits on it
        with transaction.atomic():
            row = target_row(
                experiment=experiment,
                item=items[0],
                repeat=0,
                fields={"status": "success", "output": "Lyon"},
            )
            TargetResult.objects.bulk_create([row])
            stored.set()
            release.wait(60)
        connection.close()

    answers = []

    def our_push() -> None:
        answers.append(
            push(api, experiment, [{"item_id": str(items[0].item_id), "actual_output": "Paris"}])
        )
        connection.close()

    other = threading.Thread(target=other_push)
    other.start()
    assert stored.wait(30)
    ours = threading.Thread(target=our_push)
    ours.start()
    wait_for(lambda: lock_waiters() >= 1, 30, "our push waiting on the other's row")
    release.set()
    other.join(30)
    ours.join(30)
    [answer] = answers
    assert answer.status_code == 202, answer.content
    assert answer.json() == {"accepted": 0, "duplicates": 1}
    row = TargetResult.objects.get(experiment=experiment, item=items[0])
    assert row.output == "Lyon"  # the first one stored wins
