"""What gold labels teach: an item where the judge and the gold label disagree becomes a test
case of the evaluator (by the API and the calibration page's button; the same item twice
gives one case), a config's gold items become an evaluation set version (the gold label as
`human_verdict` and `label`; the same gold items give the same version), and the evaluator's
calibrations are read through /evaluators/{id}/calibrations/ and shown on its version page
and the queue's calibration page, the reviewers' alpha beside the judge's kappa."""

from __future__ import annotations

import pytest
from django.test import Client
from django.utils import translation

from annotation.models import AnnotationQueue
from evalsets.models import EvalSetVersion
from evaluators.models import EvaluatorTestCase
from experiments.models import Result
from experiments.scoring.turns import result_turn
from tests.annotation.support import Q
from tests.annotation.test_adjudication import label_all, verdict_queue

pytestmark = pytest.mark.django_db
BOOL = {"pass": True, "fail": False}


@pytest.fixture
def gold(api, workspace, user):
    """Four results, one reviewer (so every label is gold): the first and third labelled
    against the judge's verdict, the others with it."""
    made = verdict_queue(api, workspace=workspace, user=user, rows=4, n=1)
    verdicts = [Result.objects.get(pk=pk).verdict for pk in made["results"]]
    assert set(verdicts) <= {"pass", "fail"}, verdicts
    values = [BOOL[v] != (i % 2 == 0) for i, v in enumerate(verdicts)]  # flipped at 0 and 2
    label_all(api, made, values)
    queue = AnnotationQueue.objects.get(public_id=made["queue"])
    made["items"] = [str(i.public_id) for i in queue.items.order_by("id")]
    made["verdicts"] = verdicts
    return made


def gold_url(made, tail: str) -> str:
    return f"{Q}{made['queue']}/gold/{tail}"


def test_a_judge_miss_becomes_a_test_case_once(api, gold):
    misses = api.get(gold_url(gold, "misses/")).json()
    assert [m["item"] for m in misses["results"]] == [gold["items"][0], gold["items"][2]]
    first = misses["results"][0]
    assert first["judge_verdict"] == gold["verdicts"][0] != first["human_verdict"]
    made = api.post(gold_url(gold, f"{gold['items'][0]}/test-case/"), {}, format="json")
    assert made.status_code == 201, made.content
    case = EvaluatorTestCase.objects.get()
    result = Result.objects.get(pk=gold["results"][0])
    assert case.expected_verdict == first["human_verdict"] and case.turn == result_turn(
        result=result
    )
    assert case.evaluator == gold["version"].evaluator and "Gold" in case.note
    again = api.post(gold_url(gold, f"{gold['items'][0]}/test-case/"), {}, format="json")
    assert again.status_code == 200 and again.json()["test_case"] == str(case.public_id)
    agreed = api.post(gold_url(gold, f"{gold['items'][1]}/test-case/"), {}, format="json")
    assert agreed.status_code == 400 and EvaluatorTestCase.objects.count() == 1


def test_gold_items_become_an_evalset_version_once(api, gold):
    made = api.post(gold_url(gold, "evalset/"), {}, format="json")
    assert made.status_code == 201, made.content
    body = made.json()
    version = EvalSetVersion.objects.get(evalset__public_id=body["evalset"])
    assert (
        body["rows"] == 4 and version.version == "1.0.0" and body["evalset_name"].endswith("gold")
    )
    rows = list(version.items.order_by("position"))
    flipped = [v == "pass" for v in gold["verdicts"]]
    flipped = [ok != (i % 2 == 0) for i, ok in enumerate(flipped)]
    assert [r.human_verdict for r in rows] == ["pass" if ok else "fail" for ok in flipped]
    assert [r.label for r in rows] == ["true" if ok else "false" for ok in flipped]
    names = {c["name"] for c in version.columns}
    assert names and set(rows[0].data) <= names and rows[0].source["kind"] == "annotation_item"
    again = api.post(gold_url(gold, "evalset/"), {}, format="json")
    assert again.status_code == 200 and again.json()["version"] == "1.0.0"


def test_the_evaluators_calibrations_read_with_intervals_and_the_ceiling(api, gold):
    evaluator = gold["version"].evaluator
    url = f"/api/v1/evaluators/{evaluator.public_id}/calibrations/"
    found = api.get(url).json()
    assert found["count"] == 1
    calibration = found["results"][0]
    assert calibration["source"] == "gold" and calibration["n"] == 4
    assert calibration["version"] == gold["version"].version
    low, high = calibration["sensitivity_ci"]
    assert 0 <= low <= calibration["sensitivity"] <= high <= 1
    assert "inter_human_alpha" in calibration and calibration["labels"]["gold_items"] == 4
    assert api.get(url, {"version": gold["version"].version}).json()["count"] == 1
    assert api.get(url, {"version": "9.9.9"}).status_code == 404


def test_the_pages_show_the_calibration_and_their_buttons_teach(api, web, gold):
    page = f"/w/acme/annotation/{gold['queue']}/"
    assert 'id="calibration-link"' in web.get(page).content.decode()
    shown = web.get(f"{page}calibration/")
    text = shown.content.decode()
    assert shown.status_code == 200 and 'id="calibrations-table"' in text
    assert text.count('class="test-case-button"') == 2 and 'id="gold-export"' in text
    button = f"{page}items/{gold['items'][2]}/test-case/"
    assert web.post(button, {"score_config": gold["config"]}).status_code == 302
    assert EvaluatorTestCase.objects.get().expected_verdict in ("pass", "fail")
    exported = web.post(f"{page}gold-evalset/", {"score_config": gold["config"]})
    assert exported.status_code == 302 and "/evalsets/" in exported["Location"]
    evaluator, version = gold["version"].evaluator, gold["version"].version
    version_page = web.get(f"/w/acme/evaluators/{evaluator.public_id}/versions/{version}/")
    assert 'id="calibrations-table"' in version_page.content.decode()
    with translation.override("zh-hans"):
        chinese = web.get(f"{page}calibration/", HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    assert "校准" in chinese and "Make it a test case" not in chinese


def test_a_viewer_reads_but_cannot_teach_and_outsiders_see_nothing(api, gold, member, outsider):
    from assay.models import Membership

    viewer = Client()
    viewer.force_login(member("vic", Membership.Role.VIEWER))
    page = f"/w/acme/annotation/{gold['queue']}/calibration/"
    text = viewer.get(page).content.decode()
    assert 'id="calibrations-table"' in text and "test-case-button" not in text
    button = f"/w/acme/annotation/{gold['queue']}/items/{gold['items'][0]}/test-case/"
    assert viewer.post(button, {"score_config": gold["config"]}).status_code == 403
    mallory = Client()
    mallory.force_login(outsider)
    assert mallory.get(page).status_code == 404
    assert mallory.get(page.replace("/w/acme/", "/w/other/")).status_code == 404
    assert not EvaluatorTestCase.objects.exists()
