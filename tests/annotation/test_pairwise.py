"""Pairwise queues and more sources (issue 33), through the API: a pairwise queue asks A, B or
tie configs and takes pairs (a pairwise run's judged pairs, or two experiments' outputs on the
same rows); each reviewer sees an item's sides in an order of their own, stored on their slot
and stable for the reservation; labels name the underlying side; N of M, blind mode and
agreement (nominal over A, B, tie) as for any queue. Items from an evalset version's rows.
Another workspace's ids in a body are named and nothing is added."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from annotation.models import Label, QueueItem, ReviewSlot
from annotation.selectors import pairs as pair_sources
from experiments.models import PairwiseResult
from experiments.stats.agreement import reviewer_agreement
from tests.annotation.support import C, Q, client_of
from tests.support.factories import make_evalset_version
from tests.support.pairwise import qa_version

pytestmark = pytest.mark.django_db


def fields_of(response) -> set[str]:
    assert response.status_code == 400, response.content[:300]
    return set(response.json()["error"]["details"])


def pairwise_queue(api, name: str = "Which is better", **settings) -> dict:
    config = api.post(C, {"name": f"{name}?", "kind": "pairwise"}, format="json")
    assert config.status_code == 201, config.content
    body = {"name": name, "kind": "pairwise", "score_configs": [config.json()["id"]], **settings}
    queue = api.post(Q, body, format="json")
    assert queue.status_code == 201, queue.content
    return {"queue": queue.json(), "config": config.json()}


def add(api, queue: dict, body: dict):
    return api.post(f"{Q}{queue['id']}/items/", body, format="json")


@pytest.fixture
def run_pairs(pw_finished) -> dict:
    """A finished pairwise run of apps X and Y (12 rows): its id and its pairs' ids."""
    run = pw_finished("X", "Y")
    ids = list(
        PairwiseResult.objects.filter(run=run).order_by("position").values_list("pk", flat=True)
    )
    return {"run": str(run.public_id), "pairs": ids, "object": run}


# ----------------------------------------------------------------------------- the queue


def test_a_pairwise_queue_asks_an_a_b_or_tie_config_and_keeps_its_kind(api):
    pair = api.post(C, {"name": "Better?", "kind": "pairwise"}, format="json").json()
    yes = api.post(C, {"name": "Correct?", "kind": "boolean"}, format="json").json()
    only_yes = {"name": "P", "kind": "pairwise", "score_configs": [yes["id"]]}
    assert fields_of(api.post(Q, only_yes, format="json")) == {"score_configs"}
    single = {"name": "S", "score_configs": [pair["id"]]}
    assert fields_of(api.post(Q, single, format="json")) == {"score_configs"}
    mapped = {"name": "M", "kind": "pairwise", "pass_labels": ["A"]}
    assert fields_of(api.post(C, mapped, format="json")) == {"pass_labels"}
    both = {"name": "P", "kind": "pairwise", "score_configs": [pair["id"], yes["id"]]}
    made = api.post(Q, both, format="json")
    assert made.status_code == 201 and made.json()["kind"] == "pairwise"
    changed = api.patch(f"{Q}{made.json()['id']}/", {"kind": "single"}, format="json")
    assert fields_of(changed) == {"kind"}
    assert api.get(f"{Q}{made.json()['id']}/").json()["kind"] == "pairwise"


def test_pairs_of_a_pairwise_run_become_items_with_both_outputs_and_the_judges_outcome(
    api, run_pairs
):
    made = pairwise_queue(api)
    added = add(api, made["queue"], {"pairwise_run": run_pairs["run"], "pairs": run_pairs["pairs"]})
    assert added.status_code == 201 and added.json() == {"added": 12, "items": 12}
    first = PairwiseResult.objects.get(pk=run_pairs["pairs"][0])
    item = api.get(f"{Q}{made['queue']['id']}/items/").json()["results"][0]
    snapshot = item["snapshot"]
    assert item["source_kind"] == "pairwise_result"
    assert (snapshot["output_a"], snapshot["output_b"]) == (first.output_a, first.output_b)
    assert snapshot["input"] == {"input": "question 0"}
    assert snapshot["reference"] == {"reference_output": "answer 0"}
    assert snapshot["sides"]["A"]["name"] == "app X" and snapshot["sides"]["B"]["name"] == "app Y"
    assert item["judge"][0]["outcome"] == first.outcome
    assert item["order"] is None  # the reader holds no slot on it


def test_each_reviewer_sees_the_sides_in_a_stored_order_that_holds_for_the_reservation(
    api, workspace, member, run_pairs
):
    made = pairwise_queue(api, reviewers_per_item=2)
    add(api, made["queue"], {"pairwise_run": run_pairs["run"], "pairs": run_pairs["pairs"]})
    url = f"{Q}{made['queue']['id']}/"
    orders = []
    for name in ("ann", "bob"):
        client = client_of(workspace=workspace, user=member(name))
        for _round in range(12):
            item = client.post(f"{url}next/").json()
            again = client.post(f"{url}next/").json()  # the held item, in the same order
            slot = ReviewSlot.objects.get(item__public_id=item["id"], reviewer__username=name)
            assert again["id"] == item["id"] and again["order"] == item["order"]
            assert item["order"] == (["B", "A"] if slot.swapped else ["A", "B"])
            ReviewSlot.objects.filter(pk=slot.pk).update(
                reserved_until=timezone.now() - timedelta(minutes=1)
            )  # expired: taken again by its reviewer, the order stays
            assert client.post(f"{url}next/").json()["order"] == item["order"]
            orders.append(tuple(item["order"]))
            values = {made["config"]["id"]: "B"}
            labelled = client.post(
                f"{url}items/{item['id']}/labels/", {"values": values}, format="json"
            )
            assert labelled.status_code == 201, labelled.content
    assert set(orders) == {("A", "B"), ("B", "A")}  # random per reviewer and item
    assert set(Label.objects.values_list("value", flat=True)) == {
        "B"
    }  # the side, whatever its place


def test_a_pairwise_label_is_a_side_or_tie(api, workspace, member, run_pairs):
    made = pairwise_queue(api)
    add(api, made["queue"], {"pairwise_run": run_pairs["run"], "pairs": run_pairs["pairs"][:1]})
    client = client_of(workspace=workspace, user=member("ann"))
    url = f"{Q}{made['queue']['id']}/"
    item = client.post(f"{url}next/").json()
    config = made["config"]["id"]
    for wrong in ("left", "a", 1, True):
        response = client.post(
            f"{url}items/{item['id']}/labels/", {"values": {config: wrong}}, format="json"
        )
        assert fields_of(response) == {f"values.{config}"}
    tie = client.post(
        f"{url}items/{item['id']}/labels/", {"values": {config: "tie"}}, format="json"
    )
    assert tie.status_code == 201 and Label.objects.get().value == "tie"


def test_n_of_m_holds_for_pairwise_queues(api, workspace, member, run_pairs):
    made = pairwise_queue(api, reviewers_per_item=2)
    add(api, made["queue"], {"pairwise_run": run_pairs["run"], "pairs": run_pairs["pairs"][:3]})
    url = f"{Q}{made['queue']['id']}/"
    clients = {n: client_of(workspace=workspace, user=member(n)) for n in ("ann", "bob", "cy")}
    held = {n: clients[n].post(f"{url}next/").json()["id"] for n in ("ann", "bob", "cy")}
    assert held["ann"] == held["bob"] != held["cy"]  # the first item is full with two
    skip = clients["cy"].post(f"{url}items/{held['cy']}/skip/", {"reason": "两个都不对"})
    assert skip.status_code == 204  # the slot is free again
    config = made["config"]["id"]
    for name in ("ann", "bob"):
        for _round in range(3):
            item = clients[name].post(f"{url}next/").json()
            body = {"values": {config: "A" if name == "ann" else "tie"}}
            assert (
                clients[name]
                .post(f"{url}items/{item['id']}/labels/", body, format="json")
                .status_code
                == 201
            )
    assert clients["ann"].post(f"{url}next/").status_code == 204
    assert clients["cy"].post(f"{url}next/").status_code == 204  # every item has its two
    progress = api.get(url).json()["progress"]
    assert progress["items_done"] == 3 and progress["labels_given"] == 6
    per_item = QueueItem.objects.filter(queue__public_id=made["queue"]["id"])
    assert max(item.labels.count() for item in per_item) == 2


def test_pairwise_agreement_is_nominal_alpha_over_a_b_and_tie(api, workspace, member, run_pairs):
    made = pairwise_queue(api, reviewers_per_item=2)
    add(api, made["queue"], {"pairwise_run": run_pairs["run"], "pairs": run_pairs["pairs"][:6]})
    url = f"{Q}{made['queue']['id']}/"
    picks = {"ann": ["A", "B", "tie", "A", "B", "A"], "bob": ["A", "B", "A", "A", "tie", "A"]}
    config = made["config"]["id"]
    units: dict[str, dict] = {}
    for name, values in picks.items():
        client = client_of(workspace=workspace, user=member(name))
        for value in values:
            item = client.post(f"{url}next/").json()
            client.post(
                f"{url}items/{item['id']}/labels/", {"values": {config: value}}, format="json"
            )
            units.setdefault(item["id"], {})[name] = value
    found = api.get(f"{url}agreement/").json()["score_configs"][0]
    expected = reviewer_agreement(list(units.values()), level="nominal", iterations=2000)
    assert found["level"] == "nominal"
    assert found["agreement"]["alpha"] == pytest.approx(expected.to_dict()["alpha"])


def test_a_blind_pairwise_queue_hides_the_judge_and_which_experiment_is_which(
    api, workspace, member, run_pairs
):
    made = pairwise_queue(api, blind=True)
    add(api, made["queue"], {"pairwise_run": run_pairs["run"], "pairs": run_pairs["pairs"][:1]})
    client = client_of(workspace=workspace, user=member("ann"))
    item = client.post(f"{Q}{made['queue']['id']}/next/").json()
    assert item["judge"] is None and "sides" not in item["snapshot"]
    assert item["snapshot"]["output_a"] and item["order"] in (["A", "B"], ["B", "A"])


# ----------------------------------------------------------------------------- sources


def test_two_experiments_outputs_on_the_same_rows_become_pairs(api, pw_apps, pw_version):
    x, y = pw_apps("X", "Y")
    made = pairwise_queue(api)
    rows = [str(i.item_id) for i in pw_version.items.order_by("position")[:3]]
    body = {"experiments": [str(x.public_id), str(y.public_id)], "rows": rows}
    added = add(api, made["queue"], body)
    assert added.status_code == 201 and added.json()["added"] == 3, added.content
    again = add(api, made["queue"], body)
    assert again.json() == {"added": 0, "items": 3}
    item = api.get(f"{Q}{made['queue']['id']}/items/").json()["results"][1]
    assert item["source_kind"] == "experiment_pair"
    assert item["snapshot"]["output_a"].startswith("X answer 1")
    assert item["snapshot"]["output_b"].startswith("Y answer 1")
    assert item["snapshot"]["row_number"] == 2 and item["judge"] == []
    same = {"experiments": [str(x.public_id), str(x.public_id)], "rows": rows}
    assert fields_of(add(api, made["queue"], same)) == {"experiments[1]"}
    unknown = {**body, "rows": [rows[0], "00000000-0000-0000-0000-000000000000"]}
    assert fields_of(add(api, made["queue"], unknown)) == {"rows[1]"}


def test_pairs_go_only_to_pairwise_queues_and_single_outputs_only_to_the_others(
    api, workspace, user, run_pairs
):
    config = api.post(C, {"name": "Correct?", "kind": "boolean"}, format="json").json()
    single = api.post(Q, {"name": "S", "score_configs": [config["id"]]}, format="json").json()
    pairs = {"pairwise_run": run_pairs["run"], "pairs": run_pairs["pairs"][:2]}
    assert fields_of(add(api, single, pairs)) == {"queue"}
    made = pairwise_queue(api)
    version = make_evalset_version(workspace=workspace, user=user, rows=[{"input": "q"}], name="R")
    rows = {"evalset_version": str(version.public_id), "all": True}
    assert fields_of(add(api, made["queue"], rows)) == {"queue"}
    assert QueueItem.objects.count() == 0


def test_rows_of_an_evalset_version_become_items_by_selection_or_all(api, workspace, user):
    rows = [
        {"input": "天空为什么是蓝色的？", "reference_output": "瑞利散射。"},
        {"input": "<script>alert(1)</script>", "reference_output": "x" * 200_000},
        {"input": "2+2?", "reference_output": "4"},
    ]
    version = make_evalset_version(workspace=workspace, user=user, rows=rows, name="中文集")
    config = api.post(C, {"name": "Correct?", "kind": "boolean"}, format="json").json()
    queue = api.post(Q, {"name": "Rows", "score_configs": [config["id"]]}, format="json").json()
    ids = [str(i.item_id) for i in version.items.order_by("position")]
    picked = add(api, queue, {"evalset_version": str(version.public_id), "rows": [ids[2], ids[0]]})
    assert picked.status_code == 201 and picked.json() == {"added": 2, "items": 2}
    every = add(api, queue, {"evalset_version": f"中文集@{version.version}", "all": True})
    assert every.json() == {"added": 1, "items": 3}
    items = api.get(f"{Q}{queue['id']}/items/").json()["results"]
    assert [i["snapshot"]["row_number"] for i in items] == [3, 1, 2]
    assert items[1]["snapshot"]["input"] == {"input": "天空为什么是蓝色的？"}
    assert items[1]["snapshot"]["reference"] == {"reference_output": "瑞利散射。"}
    assert len(items[2]["snapshot"]["reference"]["reference_output"].encode()) < 100_000  # capped
    assert items[0]["source_kind"] == "evalset_row"
    wrong = {"evalset_version": str(version.public_id), "rows": [ids[0], "nope"]}
    assert fields_of(add(api, queue, wrong)) == {"rows[1]"}
    both = {"evalset_version": str(version.public_id), "rows": ids, "all": True}
    assert fields_of(add(api, queue, both)) == {"rows"}


def test_all_the_rows_of_a_version_over_the_cap_are_refused(api, workspace, user, monkeypatch):
    monkeypatch.setattr(pair_sources, "MAX_ROWS", 2)  # the cap, not the behaviour
    version = make_evalset_version(
        workspace=workspace, user=user, rows=[{"input": "q"}] * 3, name="R"
    )
    config = api.post(C, {"name": "Correct?", "kind": "boolean"}, format="json").json()
    queue = api.post(Q, {"name": "Rows", "score_configs": [config["id"]]}, format="json").json()
    assert fields_of(add(api, queue, {"evalset_version": str(version.public_id), "all": True})) == {
        "all"
    }
    assert QueueItem.objects.count() == 0


# ----------------------------------------------------------------------------- outsiders


def test_another_workspaces_pairwise_runs_experiments_and_rows_are_refused(
    api, workspace, user, outsider_api, run_pairs, pw_version
):
    made = pairwise_queue(outsider_api, name="Mine")
    acme_run = {"pairwise_run": run_pairs["run"], "pairs": run_pairs["pairs"][:1]}
    assert fields_of(add(outsider_api, made["queue"], acme_run)) == {"pairwise_run"}
    x, y = (e.experiment for e in run_pairs["object"].entries.order_by("position"))
    rows = [str(pw_version.items.order_by("position").first().item_id)]
    acme_apps = {"experiments": [str(x.public_id), str(y.public_id)], "rows": rows}
    assert fields_of(add(outsider_api, made["queue"], acme_apps)) == {
        "experiments[0]",
        "experiments[1]",
    }
    config = outsider_api.post(C, {"name": "Ok?", "kind": "boolean"}, format="json").json()
    single = outsider_api.post(
        Q, {"name": "S", "score_configs": [config["id"]]}, format="json"
    ).json()
    acme_rows = {"evalset_version": str(pw_version.public_id), "all": True}
    assert fields_of(add(outsider_api, single, acme_rows)) == {"evalset_version"}
    by_name = {"evalset_version": f"{pw_version.evalset.name}@{pw_version.version}", "all": True}
    assert fields_of(add(outsider_api, single, by_name)) == {"evalset_version"}
    assert QueueItem.objects.count() == 0


def test_pairs_of_another_run_in_the_own_workspace_are_named(
    api, workspace, user, run_pairs, pw_finished
):
    other = pw_finished("X", "Y", name="second")
    theirs = list(PairwiseResult.objects.filter(run=other).values_list("pk", flat=True)[:1])
    made = pairwise_queue(api)
    body = {"pairwise_run": run_pairs["run"], "pairs": [run_pairs["pairs"][0], theirs[0]]}
    assert fields_of(add(api, made["queue"], body)) == {"pairs[1]"}
    other_set = qa_version(workspace=workspace, user=user, n=2, name="Elsewhere")
    row = str(other_set.items.first().item_id)
    x, y = (e.experiment for e in run_pairs["object"].entries.order_by("position"))
    body = {"experiments": [str(x.public_id), str(y.public_id)], "rows": [row]}
    assert fields_of(add(api, made["queue"], body)) == {"rows[0]"}
    assert QueueItem.objects.count() == 0
