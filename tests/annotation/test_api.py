"""The annotation API: score configs and queues (CRUD, validation naming fields, nothing
half-saved), items from experiment results and traces, reservations (N per item, expiry, no
reviewer twice), labels checked against their config, skips, progress, blind mode, agreement,
roles (outsiders: tests/test_outsiders.py)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from annotation.models import AnnotationQueue, Label, QueueItem, ReviewSlot, ScoreConfig
from assay.models import Membership
from experiments.stats.agreement import reviewer_agreement
from tests.annotation.support import C, Q, client_of, finished_results, queue_with_items
from traces.ingest.storing import rows_insert
from traces.models import Span

pytestmark = pytest.mark.django_db


def fields_of(response) -> set[str]:
    assert response.status_code == 400, response.content[:300]
    return set(response.json()["error"]["details"])


# ----------------------------------------------------------------------------- score configs


def test_score_configs_of_every_kind_are_created_read_changed_and_deleted(api):
    kinds = [
        {"name": "Correct?", "kind": "boolean", "pass_labels": [True], "fail_labels": [False]},
        {"name": "Tone", "kind": "categorical", "labels": ["rude", "ok", "kind"], "ordered": True},
        {"name": "Quality", "kind": "numeric", "minimum": 1, "maximum": 5, "step": 1},
        {"name": "Notes", "kind": "text", "rubric": "Say what is wrong."},
    ]
    made = [api.post(C, body, format="json") for body in kinds]
    assert [r.status_code for r in made] == [201] * 4, [r.content for r in made]
    assert [c["name"] for c in api.get(C).json()["results"]] == [
        "Correct?",
        "Notes",
        "Quality",
        "Tone",
    ]
    tone = made[1].json()
    assert tone["labels"] == ["rude", "ok", "kind"] and tone["ordered"] is True
    changed = api.patch(f"{C}{tone['id']}/", {"rubric": "Be fair."}, format="json")
    assert changed.status_code == 200 and changed.json()["rubric"] == "Be fair."
    assert api.delete(f"{C}{tone['id']}/").status_code == 204
    assert ScoreConfig.objects.count() == 3


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"name": " ", "kind": "boolean"}, "name"),
        ({"name": "x", "kind": "stars"}, "kind"),
        ({"name": "x", "kind": "categorical", "labels": ["only"]}, "labels"),
        ({"name": "x", "kind": "categorical", "labels": ["a", "a"]}, "labels"),
        ({"name": "x", "kind": "numeric", "maximum": 5}, "minimum"),
        ({"name": "x", "kind": "numeric", "minimum": 5, "maximum": 1}, "maximum"),
        ({"name": "x", "kind": "numeric", "minimum": 0, "maximum": 1, "step": 0}, "step"),
        (
            {"name": "x", "kind": "categorical", "labels": ["a", "b"], "pass_labels": ["c"]},
            "pass_labels",
        ),
        (
            {"name": "x", "kind": "boolean", "pass_labels": [True], "fail_labels": [True]},
            "fail_labels",
        ),
        (
            {"name": "x", "kind": "numeric", "minimum": 0, "maximum": 1, "pass_labels": [1]},
            "pass_labels",
        ),
        ({"name": "x", "kind": "text", "colour": "red"}, "colour"),
    ],
)
def test_a_bad_score_config_is_refused_by_its_field_and_nothing_is_saved(api, body, field):
    assert field in fields_of(api.post(C, body, format="json"))
    assert ScoreConfig.objects.count() == 0


def test_a_score_configs_kind_and_a_taken_name_are_refused(api):
    config = api.post(C, {"name": "Correct?", "kind": "boolean"}, format="json").json()
    assert "kind" in fields_of(api.patch(f"{C}{config['id']}/", {"kind": "text"}, format="json"))
    assert "name" in fields_of(api.post(C, {"name": "Correct?", "kind": "text"}, format="json"))


# ----------------------------------------------------------------------------- queues and items


def test_a_queue_is_created_with_its_settings_and_refused_by_field(api):
    config = api.post(C, {"name": "Correct?", "kind": "boolean"}, format="json").json()
    made = api.post(Q, {"name": "Review", "score_configs": [config["id"]]}, format="json")
    assert made.status_code == 201, made.content
    queue = made.json()
    assert (queue["reviewers_per_item"], queue["reservation_minutes"], queue["blind"]) == (
        1,
        15,
        False,
    )
    bad = {
        "name": "",
        "score_configs": [config["id"], "nope"],
        "reviewers_per_item": 11,
        "reservation_minutes": 0,
    }
    assert fields_of(api.post(Q, bad, format="json")) >= {
        "name",
        "score_configs[1]",
        "reviewers_per_item",
        "reservation_minutes",
    }
    assert "score_configs" in fields_of(
        api.post(Q, {"name": "y", "score_configs": []}, format="json")
    )
    assert AnnotationQueue.objects.count() == 1
    patched = api.patch(
        f"{Q}{queue['id']}/", {"blind": True, "reviewers_per_item": 3}, format="json"
    )
    assert patched.json()["blind"] is True and patched.json()["reviewers_per_item"] == 3
    assert api.delete(f"{C}{config['id']}/").status_code == 400  # the queue asks for it


def test_items_come_from_an_experiments_results_with_a_snapshot_and_the_judge(api, workspace, user):
    made = queue_with_items(api, workspace=workspace, user=user, rows=3)
    items = api.get(f"{Q}{made['queue']['id']}/items/").json()["results"]
    assert [i["source_ref"] for i in items] == [str(pk) for pk in made["results"]]
    first = items[0]
    assert first["source_kind"] == "experiment_result"
    assert set(first["snapshot"]) >= {"input", "output", "reference"}
    assert first["snapshot"]["output"]  # what the target answered
    assert first["judge"][0]["verdict"] in ("pass", "fail", "unknown")
    again = api.post(
        f"{Q}{made['queue']['id']}/items/",
        {"experiment": made["experiment"], "results": made["results"]},
        format="json",
    )
    assert again.json() == {"added": 0, "items": 3}  # already there


def test_items_of_another_experiment_or_unknown_results_are_refused_and_none_added(
    api, workspace, user
):
    made = queue_with_items(api, workspace=workspace, user=user, rows=2)
    _other, other_ids = finished_results(workspace=workspace, user=user, rows=2)
    url = f"{Q}{made['queue']['id']}/items/"
    body = {"experiment": made["experiment"], "results": [made["results"][0], other_ids[0]]}
    assert fields_of(api.post(url, body, format="json")) == {"results[1]"}
    missing = {"experiment": "00000000-0000-0000-0000-000000000000", "results": [1]}
    assert fields_of(api.post(url, missing, format="json")) == {"experiment"}
    assert "results" in fields_of(api.post(url, {}, format="json"))
    assert QueueItem.objects.count() == 2


def test_items_come_from_traces_by_id(api, workspace):
    now = timezone.now()
    span = Span(
        workspace=workspace,
        trace_id="ab" * 16,
        span_id="cd" * 8,
        name="agent",
        input_text="What is 2+2?",
        output_text="4",
        start_time=now,
        end_time=now,
        duration_ms=0,
        received_at=now,
    )
    rows_insert([span])  # and its trace's summary
    config = api.post(C, {"name": "Correct?", "kind": "boolean"}, format="json").json()
    queue = api.post(Q, {"name": "Live", "score_configs": [config["id"]]}, format="json").json()
    url = f"{Q}{queue['id']}/items/"
    assert fields_of(api.post(url, {"traces": ["ab" * 16, "ef" * 16]}, format="json")) == {
        "traces[1]"
    }
    assert api.post(url, {"traces": ["AB" * 16]}, format="json").json()["added"] == 1
    item = api.get(url).json()["results"][0]
    assert item["source_kind"] == "trace" and item["source_ref"] == "ab" * 16
    assert (item["snapshot"]["input"], item["snapshot"]["output"]) == ("What is 2+2?", "4")


# ----------------------------------------------------------------------------- reviewing


@pytest.fixture
def reviewers(workspace, member):
    """Three editors with their own API clients."""
    return {
        name: client_of(workspace=workspace, user=member(name)) for name in ("ann", "bob", "cy")
    }


def reserve(client, queue_id) -> dict | None:
    response = client.post(f"{Q}{queue_id}/next/")
    assert response.status_code in (200, 204), response.content[:300]
    return response.json() if response.status_code == 200 else None


def label(client, queue_id, item_id, config_id, value):
    url = f"{Q}{queue_id}/items/{item_id}/labels/"
    return client.post(url, {"values": {config_id: value}}, format="json")


def test_each_item_takes_n_reviewers_never_more_and_nobody_twice(api, workspace, user, reviewers):
    made = queue_with_items(api, workspace=workspace, user=user, rows=2, reviewers_per_item=2)
    queue, config = made["queue"]["id"], made["config"]["id"]
    seen = {}
    for name, client in reviewers.items():
        for _round in range(3):
            item = reserve(client, queue)
            if item is None:
                break
            assert label(client, queue, item["id"], config, True).status_code == 201
            seen.setdefault(name, []).append(item["id"])
    for items in seen.values():
        assert len(items) == len(set(items))  # nobody reviewed an item twice
    per_item = {i.public_id: i.labels.count() for i in QueueItem.objects.all()}
    assert sorted(per_item.values()) == [2, 2]  # two each, never three
    assert sum(map(len, seen.values())) == 4 and reserve(reviewers["cy"], queue) is None
    progress = api.get(f"{Q}{queue}/").json()["progress"]
    assert (progress["items"], progress["items_done"], progress["labels_given"]) == (2, 2, 4)
    assert {r["reviewer"]: r["labelled"] for r in progress["reviewers"]} == {"ann": 2, "bob": 2}


def test_a_reviewer_gets_the_item_they_hold_until_they_finish_it(api, workspace, user, reviewers):
    made = queue_with_items(api, workspace=workspace, user=user, rows=3)
    queue = made["queue"]["id"]
    first = reserve(reviewers["ann"], queue)
    assert reserve(reviewers["ann"], queue)["id"] == first["id"]
    assert reserve(reviewers["bob"], queue)["id"] != first["id"]  # one reviewer per item here


def test_an_expired_reservation_returns_its_slot(api, workspace, user, reviewers):
    made = queue_with_items(api, workspace=workspace, user=user, rows=1)
    queue, config = made["queue"]["id"], made["config"]["id"]
    held = reserve(reviewers["ann"], queue)
    assert reserve(reviewers["bob"], queue) is None  # the one slot is ann's
    ReviewSlot.objects.update(reserved_until=timezone.now() - timedelta(seconds=1))
    progress = api.get(f"{Q}{queue}/").json()["progress"]
    assert progress["reviewers"] == [
        {"reviewer": "ann", "reserved": 0, "labelled": 0, "skipped": 0}
    ]
    assert reserve(reviewers["bob"], queue)["id"] == held["id"]  # the slot came back
    late = label(reviewers["ann"], queue, held["id"], config, True)
    assert late.status_code == 409, late.content  # and it is bob's now
    assert label(reviewers["bob"], queue, held["id"], config, False).status_code == 201
    assert Label.objects.get().reviewer.username == "bob"


def test_a_label_on_an_item_not_held_is_refused(api, workspace, user, reviewers):
    made = queue_with_items(api, workspace=workspace, user=user, rows=2)
    queue, config = made["queue"]["id"], made["config"]["id"]
    item = api.get(f"{Q}{queue}/items/").json()["results"][0]
    assert label(reviewers["ann"], queue, item["id"], config, True).status_code == 409
    assert Label.objects.count() == 0


def test_labels_are_checked_against_their_config_and_nothing_half_saved(
    api, workspace, user, member
):
    client = client_of(workspace=workspace, user=member("ann"))
    configs = [
        api.post(C, {"name": "Correct?", "kind": "boolean"}, format="json").json(),
        api.post(
            C,
            {"name": "Stars", "kind": "numeric", "minimum": 1, "maximum": 5, "step": 1},
            format="json",
        ).json(),
        api.post(
            C, {"name": "Tone", "kind": "categorical", "labels": ["a", "b"]}, format="json"
        ).json(),
    ]
    body = {"name": "Q", "score_configs": [c["id"] for c in configs]}
    queue = api.post(Q, body, format="json").json()["id"]
    experiment, ids = finished_results(workspace=workspace, user=user, rows=1)
    api.post(f"{Q}{queue}/items/", {"experiment": experiment, "results": ids}, format="json")
    item = reserve(client, queue)["id"]
    url = f"{Q}{queue}/items/{item}/labels/"
    bad = {configs[0]["id"]: "yes", configs[1]["id"]: 2.5}
    assert fields_of(client.post(url, {"values": bad}, format="json")) == {
        f"values.{configs[0]['id']}",
        f"values.{configs[1]['id']}",
        f"values.{configs[2]['id']}",
    }
    assert Label.objects.count() == 0
    good = {configs[0]["id"]: True, configs[1]["id"]: 4, configs[2]["id"]: None}
    assert client.post(url, {"values": good}, format="json").status_code == 201
    assert Label.objects.count() == 3


def test_a_skip_needs_a_reason_frees_the_slot_and_never_comes_back(api, workspace, user, reviewers):
    made = queue_with_items(api, workspace=workspace, user=user, rows=1)
    queue = made["queue"]["id"]
    item = reserve(reviewers["ann"], queue)["id"]
    url = f"{Q}{queue}/items/{item}/skip/"
    assert fields_of(reviewers["ann"].post(url, {"reason": " "}, format="json")) == {"reason"}
    assert (
        reviewers["ann"].post(url, {"reason": "not my language"}, format="json").status_code == 204
    )
    assert reserve(reviewers["ann"], queue) is None
    assert reserve(reviewers["bob"], queue)["id"] == item
    assert ReviewSlot.objects.get(reviewer__username="ann").skip_reason == "not my language"


# ----------------------------------------------------------------------------- blind mode


def test_a_blind_queue_never_shows_the_judge_nor_others_labels(api, workspace, user, reviewers):
    made = queue_with_items(
        api, workspace=workspace, user=user, rows=1, reviewers_per_item=2, blind=True
    )
    queue, config = made["queue"]["id"], made["config"]["id"]
    held = reserve(reviewers["ann"], queue)
    assert held["judge"] is None and held["labels"] == []
    assert label(reviewers["ann"], queue, held["id"], config, True).status_code == 201
    theirs = reserve(reviewers["bob"], queue)
    assert theirs["id"] == held["id"] and theirs["judge"] is None and theirs["labels"] == []
    for client, own in ((reviewers["bob"], []), (reviewers["ann"], ["ann"]), (api, [])):
        for shown in (api_item(client, queue, held["id"]), api_items(client, queue)[0]):
            assert shown["judge"] is None
            assert [entry["reviewer"] for entry in shown["labels"]] == own
    # the same queue, not blind: the judge and every label
    api.patch(f"{Q}{queue}/", {"blind": False}, format="json")
    shown = api_item(reviewers["bob"], queue, held["id"])
    assert shown["judge"][0]["verdict"] and [e["reviewer"] for e in shown["labels"]] == ["ann"]


def api_item(client, queue, item) -> dict:
    response = client.get(f"{Q}{queue}/items/{item}/")
    assert response.status_code == 200, response.content[:300]
    return response.json()


def api_items(client, queue) -> list[dict]:
    return client.get(f"{Q}{queue}/items/").json()["results"]


# ----------------------------------------------------------------------------- agreement


def test_agreement_is_reviewer_agreement_on_the_known_labels(api, workspace, user, member):
    tone = api.post(
        C,
        {"name": "Tone", "kind": "categorical", "labels": ["bad", "ok", "good"], "ordered": True},
        format="json",
    ).json()
    made = queue_with_items(api, workspace=workspace, user=user, rows=4, reviewers_per_item=3)
    queue = made["queue"]["id"]
    api.patch(f"{Q}{queue}/", {"score_configs": [made["config"]["id"], tone["id"]]}, format="json")
    given = {  # reviewer → per item (boolean, tone); None: unknown
        "ann": [(True, "good"), (False, "bad"), (True, "ok"), (True, None)],
        "bob": [(True, "good"), (False, "ok"), (False, "ok"), (True, "good")],
        "cy": [(True, "ok"), (None, "bad"), (True, "ok"), (False, "good")],
    }
    items = {}
    for name, answers in given.items():
        client = client_of(workspace=workspace, user=member(name))
        for boolean, word in answers:
            held = reserve(client, queue)
            items.setdefault(held["id"], {})[name] = (boolean, word)
            values = {made["config"]["id"]: boolean, tone["id"]: word}
            url = f"{Q}{queue}/items/{held['id']}/labels/"
            assert client.post(url, {"values": values}, format="json").status_code == 201
    found = {c["name"]: c for c in api.get(f"{Q}{queue}/agreement/").json()["score_configs"]}
    units = list(items.values())
    expected_bool = reviewer_agreement(
        [{r: v[0] for r, v in u.items() if v[0] is not None} for u in units],
        level="nominal",
        iterations=2000,
    ).to_dict()
    expected_tone = reviewer_agreement(
        [{r: v[1] for r, v in u.items() if v[1] is not None} for u in units],
        level="ordinal",
        order=["bad", "ok", "good"],
        iterations=2000,
    ).to_dict()
    assert found["Correct?"]["agreement"] == expected_bool
    assert found["Tone"]["level"] == "ordinal" and found["Tone"]["agreement"] == expected_tone
    assert expected_tone["labels"] == 11  # the unknown is not counted
    assert {p["first"] for p in expected_bool["pairs"]} <= {"ann", "bob"}


# ----------------------------------------------------------------------------- roles, outsiders


def test_a_viewer_reads_a_queue_but_cannot_reserve_label_or_skip(api, workspace, user, member):
    made = queue_with_items(api, workspace=workspace, user=user, rows=1)
    queue, config = made["queue"]["id"], made["config"]["id"]
    viewer = client_of(workspace=workspace, user=member("vic", Membership.Role.VIEWER))
    item = api_items(viewer, queue)[0]["id"]
    assert viewer.post(f"{Q}{queue}/next/").status_code == 403
    assert label(viewer, queue, item, config, True).status_code == 403
    assert (
        viewer.post(f"{Q}{queue}/items/{item}/skip/", {"reason": "x"}, format="json").status_code
        == 403
    )
    assert viewer.post(C, {"name": "x", "kind": "text"}, format="json").status_code == 403
    assert ReviewSlot.objects.count() == 0


def test_a_configs_labels_and_range_stay_once_reviewers_used_it(api, workspace, user, reviewers):
    made = queue_with_items(api, workspace=workspace, user=user, rows=1)
    stars = api.post(
        C, {"name": "Stars", "kind": "numeric", "minimum": 1, "maximum": 5}, format="json"
    ).json()
    assert api.patch(f"{C}{stars['id']}/", {"maximum": 10}, format="json").status_code == 200
    queue, config = made["queue"]["id"], made["config"]["id"]
    held = reserve(reviewers["ann"], queue)
    assert label(reviewers["ann"], queue, held["id"], config, True).status_code == 201
    url = f"{C}{config}/"
    assert fields_of(api.patch(url, {"pass_labels": [True], "ordered": True}, format="json")) == {
        "ordered"
    }
    changed = api.patch(url, {"rubric": "Check the facts.", "pass_labels": [True]}, format="json")
    assert changed.status_code == 200 and changed.json()["pass_labels"] == [True]
