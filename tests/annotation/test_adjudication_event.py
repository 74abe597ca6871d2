"""`annotation.adjudication_needed`: the label that completes an item whose reviewers disagree
(two values, or an unknown among them) announces it to the workspace's webhooks, once; a
unanimous item, an item still missing labels, free text that differs and an adjudication
announce nothing."""

from __future__ import annotations

import pytest

from annotation.models import AnnotationQueue
from assay.vocabulary import EventType
from notifications.models import Event
from notifications.services import endpoint_create
from tests.annotation.support import C, Q, client_of
from tests.annotation.test_adjudication import adjudicate, item_ids
from tests.support.factories import make_code_version, make_evalset_version, qa_rows, run_inline

pytestmark = pytest.mark.django_db


@pytest.fixture
def reviewers(workspace, member):
    return {name: client_of(workspace=workspace, user=member(name)) for name in "abc"}


@pytest.fixture
def listening(workspace, user):
    endpoint, _secret = endpoint_create(
        workspace=workspace,
        user=user,
        url="http://127.0.0.1:9/hook",
        events=[EventType.ANNOTATION_ADJUDICATION_NEEDED],
    )
    return endpoint


def queue_of(api, *, workspace, user, rows: int, n: int) -> dict:
    """A queue of `rows` experiment results, N reviewers per item, asking "Correct?" (yes or
    no) and "Comment" (free text)."""
    correct = {"name": "Correct?", "kind": "boolean", "pass_labels": [True]}
    configs = [api.post(C, body, format="json").json()["id"] for body in (correct, COMMENT)]
    body = {"name": "Gold <b>", "score_configs": configs, "reviewers_per_item": n}
    queue = api.post(Q, body, format="json").json()
    evalset = make_evalset_version(workspace=workspace, user=user, rows=qa_rows(rows))
    code = make_code_version(workspace=workspace, user=user)
    run = run_inline(workspace=workspace, user=user, version=evalset, evaluator_version=code)
    results = list(run.results.order_by("position").values_list("pk", flat=True))
    added = {"experiment": str(run.public_id), "results": results}
    assert api.post(f"{Q}{queue['id']}/items/", added, format="json").status_code == 201
    return {"queue": queue["id"], "config": configs[0], "comment": configs[1]}


COMMENT = {"name": "Comment", "kind": "text"}


def label_all(client, made: dict, labels: list[tuple]) -> None:
    """The client reviews the queue's items in order: (correct?, comment) for each."""
    for correct, comment in labels:
        held = client.post(f"{Q}{made['queue']}/next/")
        assert held.status_code == 200, held.content[:300]
        values = {made["config"]: correct, made["comment"]: comment}
        url = f"{Q}{made['queue']}/items/{held.json()['id']}/labels/"
        answer = client.post(url, {"values": values}, format="json")
        assert answer.status_code == 201, answer.content[:300]


def announced() -> list[dict]:
    return [
        e.data for e in Event.objects.filter(type="annotation.adjudication_needed").order_by("pk")
    ]


def test_the_last_label_of_a_disagreement_announces_it_once(
    api, workspace, user, reviewers, listening
):
    made = queue_of(api, workspace=workspace, user=user, rows=4, n=2)
    label_all(reviewers["a"], made, [(True, "x"), (True, "x"), (True, "x"), (True, "x")])
    assert announced() == []  # one label of two on every item
    # 0 agrees (its comments differ: free text is never disputed), 1 disagrees, 2 has an
    # unknown, 3 waits for its second label
    label_all(reviewers["b"], made, [(True, "y"), (False, "x"), (None, "x")])
    items = item_ids(made)
    queue = AnnotationQueue.objects.get(public_id=made["queue"])
    page = f"/w/acme/annotation/{queue.public_id}/adjudicate/"
    assert announced() == [
        {
            "queue": {"id": made["queue"], "name": "Gold <b>"},
            "item": item,
            "score_configs": ["Correct?"],
            "path": f"{page}?item={item}",
        }
        for item in items[1:3]
    ]
    assert listening.deliveries.count() == 2
    # the disagreements are the ones the adjudication page lists
    listed = api.get(f"{Q}{made['queue']}/disagreements/").json()["results"]
    assert [i["id"] for i in listed] == items[1:3]
    # settling one announces nothing; a third reviewer gets the one free slot, item 3's
    # second label, and disagrees
    assert adjudicate(api, made, items[1], False).status_code == 201
    assert len(announced()) == 2
    label_all(reviewers["c"], made, [(False, "z")])
    assert [data["item"] for data in announced()] == [*items[1:3], items[3]]
    assert listening.deliveries.count() == 3


def test_with_three_reviewers_only_the_third_label_announces(
    api, workspace, user, reviewers, listening
):
    made = queue_of(api, workspace=workspace, user=user, rows=1, n=3)
    label_all(reviewers["a"], made, [(True, "")])
    label_all(reviewers["b"], made, [(False, "")])
    assert announced() == []  # disagreeing already, but a label is missing
    label_all(reviewers["c"], made, [(True, "")])
    assert [data["item"] for data in announced()] == item_ids(made)


def test_nothing_is_recorded_when_no_endpoint_listens(api, workspace, user, reviewers):
    made = queue_of(api, workspace=workspace, user=user, rows=1, n=2)
    label_all(reviewers["a"], made, [(True, "")])
    label_all(reviewers["b"], made, [(False, "")])
    assert not Event.objects.exists()
    assert len(api.get(f"{Q}{made['queue']}/disagreements/").json()["results"]) == 1
