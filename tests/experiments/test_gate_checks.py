"""The CI gate's recorded checks are read back: `GET /api/v1/experiments/{id}/gate-decisions/`
lists a candidate's checks newest first with their baselines, options, decisions and reasons,
and the experiment's page shows them (reasons escaped); outsiders get 404 for Acme's run, and
Acme's checks never show in theirs."""

from __future__ import annotations

import pytest
from django.utils.html import escape

from assay.models import UserPreference, Workspace
from experiments.models import GateDecision
from tests.support.gate_runs import pairs, verdict_runs

pytestmark = pytest.mark.django_db

URL = "/api/v1/experiments/gate/"


@pytest.fixture
def checked(api, workspace, user):
    """A candidate checked twice: failing against one baseline, passing against another."""
    runs = verdict_runs(workspace=workspace, user=user)
    baseline, candidate = runs(*pairs(down=25, up=2), name="Nightly")
    for options in ({}, {"max_drop": 0.5}):
        body = {"baseline": str(baseline.public_id), "candidate": str(candidate.public_id)}
        assert api.post(URL, {**body, **options}, format="json").status_code == 200
    return baseline, candidate


def _listed(api, candidate):
    return api.get(f"/api/v1/experiments/{candidate.public_id}/gate-decisions/")


def test_a_candidates_checks_are_listed_newest_first(api, checked, user):
    baseline, candidate = checked
    answer = _listed(api, candidate)
    assert answer.status_code == 200, answer.content
    newest, oldest = answer.json()
    assert newest["baseline"] == {"id": str(baseline.public_id), "name": "Nightly base"}
    assert (newest["max_drop"], newest["passed"], newest["reasons"]) == (0.5, True, [])
    assert (oldest["max_drop"], oldest["passed"]) == (0.0, False)
    assert oldest["reasons"][0].startswith("Reader: pass rate dropped 11.5 pts")
    assert oldest["failure_announced_at"] is not None and newest["failure_announced_at"] is None
    assert {newest["decided_by"], oldest["decided_by"]} == {user.username}
    assert (newest["alpha"], newest["max_unknown_rate"], newest["min_decided"]) == (0.05, 0.5, 30)
    # the baseline was no check's candidate
    assert _listed(api, baseline).json() == []


def test_the_experiment_page_shows_the_checks_with_reasons_escaped(web, checked, workspace):
    baseline, candidate = checked
    failing = GateDecision.objects.get(passed=False)
    failing.failing[0]["evaluator"] = "<script>alert(1)</script>"  # an evaluator's name
    failing.save(update_fields=["failing"])
    page = web.get(f"/w/{workspace.slug}/experiments/{candidate.public_id}/").content.decode()
    start = page.index('id="gate-checks"')
    card = page[start : page.index("</section>", start)]
    assert card.count('class="gate-check"') == 2
    assert card.count("badge fail") == 1 and card.count("badge pass") == 1
    assert f"/experiments/{baseline.public_id}/" in card
    assert "&lt;script&gt;alert(1)&lt;/script&gt;: pass rate dropped 11.5 pts" in card
    assert "<script>" not in card
    base_page = web.get(f"/w/{workspace.slug}/experiments/{baseline.public_id}/").content.decode()
    assert 'id="gate-checks"' not in base_page


def test_the_reasons_are_worded_in_the_readers_language(api, web, checked, workspace, user):
    _baseline, candidate = checked
    chinese = api.get(
        f"/api/v1/experiments/{candidate.public_id}/gate-decisions/", HTTP_ACCEPT_LANGUAGE="zh-hans"
    ).json()
    stored = GateDecision.objects.get(passed=False).reasons
    assert stored[0].startswith("Reader: pass rate dropped 11.5 pts")  # the poster's words
    [reason] = chinese[1]["reasons"]
    assert reason.startswith("Reader: ") and "11.5" in reason and "pass rate" not in reason
    UserPreference.objects.update_or_create(user=user, defaults={"language": "zh-hans"})
    page = web.get(f"/w/{workspace.slug}/experiments/{candidate.public_id}/").content.decode()
    assert escape(reason) in page  # "p < 0.001", escaped as all text is
    # a check recorded before the rows were kept shows its stored sentences
    GateDecision.objects.filter(passed=False).update(failing=None, reasons=["as it was posted"])
    page = web.get(f"/w/{workspace.slug}/experiments/{candidate.public_id}/").content.decode()
    assert "as it was posted" in page


def test_outsiders_get_404_and_see_none_of_acmes_checks(checked, outsider, outsider_api, web):
    _baseline, candidate = checked
    answer = _listed(outsider_api, candidate)
    assert answer.status_code == 404 and answer.json()["error"]["code"] == "not_found"
    # their own run in their own workspace lists only their checks (none)
    theirs = verdict_runs(workspace=Workspace.objects.get(slug="other"), user=outsider)
    _their_base, their_cand = theirs(*pairs(down=25, up=2), name="theirs")
    assert _listed(outsider_api, their_cand).json() == []
    web.force_login(outsider)
    page = web.get(f"/w/other/experiments/{candidate.public_id}/")
    assert page.status_code == 404
