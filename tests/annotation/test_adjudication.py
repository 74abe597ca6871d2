"""Adjudication and gold labels: disagreements (all labels in, not unanimous) wait for an
adjudicator (an owner, or a member the queue names), who sees every label; unanimous and
adjudicated labels are gold; gold labels of experiment results calibrate the evaluator version
(Se/Sp and kappa on a table counted by hand), and another run's fail rate and an online rule
are corrected with them (outsiders and roles: tests/test_outsiders.py,
tests/test_roles_routes.py)."""

from __future__ import annotations

import pytest

from annotation.models import Adjudication, AnnotationQueue, QueueItem
from annotation.selectors import gold_labels
from assay.models import Membership
from experiments.models import Aggregate, JudgeCalibration, Result
from experiments.stats import bootstrap_ci
from experiments.stats.agreement import krippendorff_alpha
from online.selectors import rule_calibration
from online.services import online_rule_create
from tests.annotation.support import C, Q, client_of
from tests.support.factories import make_code_version, make_evalset_version, qa_rows, run_inline

pytestmark = pytest.mark.django_db

P, F = "pass", "fail"
MAPPING = {"actual_output": "span:output", "reference_output": "attribute:expected"}


@pytest.fixture
def reviewers(workspace, member):
    """Two editors with their own API clients."""
    return {name: client_of(workspace=workspace, user=member(name)) for name in ("ann", "bob")}


def verdict_queue(api, *, workspace, user, rows: int, n: int, blind=False, runs: int = 1):
    """A boolean config (true: pass, false: fail), a queue of N reviewers per item and the
    results of an experiment of `rows` rows scored by a code evaluator; `runs` experiments of
    the same evaluator version are run, the first one's results are the queue's items."""
    config = api.post(
        C,
        {"name": "Correct?", "kind": "boolean", "pass_labels": [True], "fail_labels": [False]},
        format="json",
    ).json()
    queue = api.post(
        Q,
        {"name": "Gold", "score_configs": [config["id"]], "reviewers_per_item": n, "blind": blind},
        format="json",
    ).json()
    evalset = make_evalset_version(workspace=workspace, user=user, rows=qa_rows(rows))
    code = make_code_version(workspace=workspace, user=user)
    first = run_inline(workspace=workspace, user=user, version=evalset, evaluator_version=code)
    ids = list(
        Result.objects.filter(experiment=first).order_by("position").values_list("pk", flat=True)
    )
    body = {"experiment": str(first.public_id), "results": ids}
    assert api.post(f"{Q}{queue['id']}/items/", body, format="json").status_code == 201
    return {
        "queue": queue["id"],
        "config": config["id"],
        "results": ids,
        "version": code,
        "evalset": evalset,
    }


def label_all(client, made: dict, values: list) -> None:
    """The client reviews the queue's items in order, giving `values` one after the other."""
    queue, config = made["queue"], made["config"]
    for value in values:
        held = client.post(f"{Q}{queue}/next/")
        assert held.status_code == 200, held.content[:300]
        url = f"{Q}{queue}/items/{held.json()['id']}/labels/"
        answer = client.post(url, {"values": {config: value}}, format="json")
        assert answer.status_code == 201, answer.content[:300]


def item_ids(made: dict) -> list[str]:
    queue = AnnotationQueue.objects.get(public_id=made["queue"])
    return [str(i.public_id) for i in queue.items.order_by("id")]


def adjudicate(client, made: dict, item: str, value, note="checked the source"):
    url = f"{Q}{made['queue']}/items/{item}/adjudicate/"
    return client.post(url, {"values": {made["config"]: value}, "note": note}, format="json")


def gold_of(made: dict) -> dict[str, object]:
    queue = AnnotationQueue.objects.get(public_id=made["queue"])
    config = queue.score_configs.get()
    names = dict(queue.items.values_list("pk", "public_id"))
    return {str(names[k]): v for k, v in gold_labels(queue=queue, config=config).items()}


# ----------------------------------------------------------------------------- disagreements


def test_unanimous_items_are_gold_and_disagreements_wait_for_the_adjudicator(
    api, workspace, user, reviewers
):
    made = verdict_queue(api, workspace=workspace, user=user, rows=4, n=2)
    label_all(reviewers["ann"], made, [True, True, False, True])
    label_all(reviewers["bob"], made, [True, False, None])  # the fourth: one label of two
    items = item_ids(made)
    listed = api.get(f"{Q}{made['queue']}/disagreements/").json()
    # the second disagrees, the third has an unknown; the fourth waits for its second label
    assert [i["id"] for i in listed["results"]] == items[1:3] and listed["count"] == 2
    assert listed["results"][0]["disagree_on"] == [made["config"]]
    assert gold_of(made) == {items[0]: True}  # unanimous: gold without adjudication
    refused = adjudicate(api, made, items[3], True)
    assert refused.status_code == 409, refused.content  # labels missing
    settled = adjudicate(api, made, items[1], False)
    assert settled.status_code == 201, settled.content
    assert settled.json()[0]["value"] is False and settled.json()[0]["adjudicator"] == "alice"
    assert adjudicate(api, made, items[2], None).status_code == 400  # gold is never unknown
    after = api.get(f"{Q}{made['queue']}/disagreements/").json()["results"]
    assert [i["id"] for i in after] == [items[2]]
    assert gold_of(made) == {items[0]: True, items[1]: False}
    assert Adjudication.objects.get().note == "checked the source"


def test_only_owners_and_named_adjudicators_adjudicate(api, workspace, user, reviewers, member):
    made = verdict_queue(api, workspace=workspace, user=user, rows=1, n=2, blind=True)
    label_all(reviewers["ann"], made, [True])
    label_all(reviewers["bob"], made, [False])
    item = item_ids(made)[0]
    viewer = client_of(workspace=workspace, user=member("vic", Membership.Role.VIEWER))
    assert adjudicate(reviewers["ann"], made, item, True).status_code == 403
    assert adjudicate(viewer, made, item, True).status_code == 403
    # a reviewer sees the disagreement blind: their own label, no judge
    seen = reviewers["bob"].get(f"{Q}{made['queue']}/disagreements/").json()["results"][0]
    assert [lab["reviewer"] for lab in seen["labels"]] == ["bob"] and seen["judge"] is None
    queue_url = f"{Q}{made['queue']}/"
    named = {"adjudicators": ["ann"]}
    assert reviewers["ann"].patch(queue_url, named, format="json").status_code == 403
    refused = api.patch(queue_url, {"adjudicators": ["vic", "nobody"]}, format="json")
    assert refused.status_code == 400
    assert set(refused.json()["error"]["details"]) == {"adjudicators[0]", "adjudicators[1]"}
    assert api.patch(queue_url, named, format="json").json()["adjudicators"] == ["ann"]
    # the adjudicator sees every label and the judge, blind mode or not
    seen = reviewers["ann"].get(f"{Q}{made['queue']}/disagreements/").json()["results"][0]
    assert sorted(lab["reviewer"] for lab in seen["labels"]) == ["ann", "bob"]
    assert seen["judge"][0]["verdict"] in (P, F)
    assert adjudicate(reviewers["ann"], made, item, True).status_code == 201
    assert adjudicate(reviewers["bob"], made, item, False).status_code == 403
    assert Adjudication.objects.get().value is True


# ----------------------------------------------------------------------------- calibration


def test_gold_labels_calibrate_the_judge_as_counted_by_hand(api, workspace, user, reviewers):
    made = verdict_queue(api, workspace=workspace, user=user, rows=8, n=2)
    judge = [P, F, P, F, F, P, P, F]  # set, so the table below is known
    for pk, verdict in zip(made["results"], judge, strict=True):
        Result.objects.filter(pk=pk).update(verdict=verdict)
    ann = [True, False, False, False, True, True, True, True]
    bob = [True, False, False, True, True, True, False, None]
    label_all(reviewers["ann"], made, ann)
    label_all(reviewers["bob"], made, bob)
    # gold before adjudication (true: pass): 0 T, 1 F, 2 F, 4 T, 5 T; 3, 6, 7 disagree.
    # (judge, human): (P,P) tn, (F,F) tp, (P,F) fn, (F,P) fp, (P,P) tn → tp 1 fn 1 fp 1 tn 2
    url = f"{Q}{made['queue']}/calibration/"
    found = api.get(url).json()["calibrations"]
    assert len(found) == 1
    first = found[0]
    assert first["confusion"] == {
        "tp": 1,
        "fn": 1,
        "fp": 1,
        "tn": 2,
        "judge_unknown": 0,
        "human_unknown": 0,
    }
    assert (first["n"], first["sensitivity"], first["specificity"]) == (5, 1 / 2, 2 / 3)
    labels = first["labels"]
    assert (labels["gold_items"], labels["adjudicated"], labels["unanimous"]) == (5, 0, 5)
    units = [
        {r: v for r, v in (("ann", a), ("bob", b)) if v is not None}
        for a, b in zip(ann, bob, strict=True)
    ]
    assert labels["inter_human_alpha"] == pytest.approx(krippendorff_alpha(units, level="nominal"))
    # the adjudicator settles 3 as pass (judge F: fp) and 6 as fail (judge P: fn)
    items = item_ids(made)
    assert adjudicate(api, made, items[3], True).status_code == 201
    assert adjudicate(api, made, items[6], False).status_code == 201
    after = api.get(url).json()["calibrations"][0]
    tp, fn, fp, tn = 1, 2, 2, 2
    assert [after["confusion"][k] for k in ("tp", "fn", "fp", "tn")] == [tp, fn, fp, tn]
    assert (after["sensitivity"], after["specificity"]) == (tp / (tp + fn), tn / (tn + fp))
    observed = (tp + tn) / 7
    chance = ((tp + fp) * (tp + fn) + (fn + tn) * (fp + tn)) / 49
    assert after["kappa"] == pytest.approx((observed - chance) / (1 - chance))
    assert (after["labels"]["adjudicated"], after["labels"]["unanimous"]) == (2, 5)
    assert after["evaluator"] == made["version"].evaluator.name and not after["usable"]


def test_gold_calibration_corrects_another_runs_fail_rate_and_an_online_rule(api, workspace, user):
    made = verdict_queue(api, workspace=workspace, user=user, rows=32, n=1)
    # the judge (even rows pass, odd fail) against the owner's labels: 32 items, 4 disagree
    human = [i % 2 == 0 for i in range(32)]
    for wrong in (1, 3):  # the judge failed them, the human says pass: fp
        human[wrong] = True
    for wrong in (0, 2):  # the judge passed them, the human says fail: fn
        human[wrong] = False
    label_all(api, made, human)
    tp, fn, fp, tn = 14, 2, 2, 14
    sensitivity, specificity = tp / (tp + fn), tn / (tn + fp)
    rule = online_rule_create(
        workspace=workspace,
        user=user,
        fields={"name": "live"},
        evaluators=[{"evaluator_version": made["version"], "mapping": MAPPING}],
    )
    online = rule_calibration(rule_evaluator=rule.evaluators.get())
    assert (online.tp, online.fn, online.fp, online.tn) == (tp, fn, fp, tn)
    second = run_inline(
        workspace=workspace,
        user=user,
        version=made["evalset"],
        evaluator_version=made["version"],
        name="second",
    )
    summary = Aggregate.objects.get(binding__experiment=second).summary
    calibration = summary["calibration"]
    assert calibration["applied"] and calibration["labels_from"] == "gold"
    assert (calibration["sensitivity"], calibration["specificity"]) == (sensitivity, specificity)
    assert calibration["labels"]["queue"] == made["queue"] and calibration["experiment"] is None
    settings = summary["interval_settings"]
    common = {k: settings[k] for k in ("iterations", "confidence", "min_sample", "seed")}
    corrected = bootstrap_ci(
        summary["fails"],
        summary["passed"],
        sensitivity=sensitivity,
        specificity=specificity,
        exact_garak=settings["exact_garak"],
        **common,
    )
    raw = bootstrap_ci(
        summary["fails"],
        summary["passed"],
        sensitivity=1.0,
        specificity=1.0,
        exact_garak=settings["exact_garak"],
        **common,
    )
    assert summary["fail_rate_ci"] == list(corrected) != list(raw)
    assert "source" not in calibration  # the card's words: labelled rows, not garak's metrics
    assert QueueItem.objects.count() == 32


def test_a_queues_calibrations_go_with_its_mapping_and_the_queue(api, workspace, user, reviewers):
    made = verdict_queue(api, workspace=workspace, user=user, rows=2, n=1)
    label_all(reviewers["ann"], made, [True, False])
    url = f"{Q}{made['queue']}/calibration/"
    assert api.get(url).json()["calibrations"][0]["n"] == 2
    assert JudgeCalibration.objects.filter(source="gold").count() == 1
    unmapped = {"pass_labels": [], "fail_labels": []}
    assert api.patch(f"{C}{made['config']}/", unmapped, format="json").status_code == 200
    assert api.get(url).json()["calibrations"] == []  # its labels no longer mean verdicts
    mapped = {"pass_labels": [True], "fail_labels": [False]}
    assert api.patch(f"{C}{made['config']}/", mapped, format="json").status_code == 200
    assert api.get(url).json()["calibrations"][0]["n"] == 2
    assert api.delete(f"{Q}{made['queue']}/").status_code == 204
    assert not JudgeCalibration.objects.filter(source="gold").exists()
