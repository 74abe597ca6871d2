"""The CI gate recorded: POST …/gate/ decides as the GET does, records the decision (one per
candidate, baseline and options) and tells `gate.failed` webhooks the first time a check fails,
once however often it is posted; a pass tells nobody; the GET writes nothing; viewers may
check but not record; outsiders get 404 for Acme's runs and for foreign ids in their own."""

from __future__ import annotations

import json

import pytest

from assay.models import Membership, Workspace
from assay.vocabulary import EventType
from experiments import services
from experiments.models import GateDecision, Result
from notifications.models import Event
from notifications.services import endpoint_create
from tests.support.gate_runs import pairs, verdict_runs

pytestmark = pytest.mark.django_db

URL = "/api/v1/experiments/gate/"


@pytest.fixture
def runs(workspace, user):
    return verdict_runs(workspace=workspace, user=user)


@pytest.fixture
def listening(workspace, user):
    """An endpoint subscribed to gate.failed (nothing answers at its address)."""
    endpoint, _secret = endpoint_create(
        workspace=workspace,
        user=user,
        url="http://127.0.0.1:9/hook",
        events=[EventType.GATE_FAILED],
    )
    return endpoint


def check(baseline, candidate, **options) -> dict:
    return {"baseline": str(baseline.public_id), "candidate": str(candidate.public_id), **options}


def test_a_failing_check_is_recorded_and_announced_once(api, runs, listening, user):
    baseline, candidate = runs(*pairs(down=25, up=2), name="Nightly")
    first = api.post(URL, check(baseline, candidate), format="json")
    assert first.status_code == 200, first.content
    body = first.json()
    assert body["passed"] is False and "Assay gate failed" in body["markdown"]
    assert body["recorded"]["failure_announced_at"] is not None
    [decision] = GateDecision.objects.all()
    assert (decision.candidate, decision.baseline, decision.decided_by) == (
        candidate,
        baseline,
        user,
    )
    assert (decision.alpha, decision.max_drop, decision.min_decided) == (0.05, 0.0, 30)
    assert decision.passed is False
    assert decision.reasons[0].startswith("Reader: pass rate dropped 11.5 pts")

    again = api.post(URL, check(baseline, candidate), format="json")
    assert again.status_code == 200 and again.json()["passed"] is False
    assert GateDecision.objects.count() == 1 and listening.deliveries.count() == 1
    decision_again = GateDecision.objects.get()
    assert decision_again.decided_at > decision.decided_at
    assert decision_again.failure_announced_at == decision.failure_announced_at

    [event] = Event.objects.all()
    assert event.type == "gate.failed"
    assert event.data["candidate"] == {"id": str(candidate.public_id), "name": "Nightly cand"}
    assert event.data["baseline"]["name"] == "Nightly base"
    assert event.data["options"] == {
        "alpha": 0.05,
        "max_drop": 0.0,
        "max_unknown_rate": 0.5,
        "min_decided": 30,
    }
    assert event.data["reasons"] == decision.reasons
    assert event.data["path"] == (
        f"/w/acme/compare/?baseline={baseline.public_id}&candidates={candidate.public_id}"
    )
    delivered = json.loads(listening.deliveries.get().request_body)
    assert delivered["type"] == "gate.failed" and delivered["data"] == event.data


def test_other_options_are_another_check(api, runs, listening):
    baseline, candidate = runs(*pairs(down=25, up=2))
    assert api.post(URL, check(baseline, candidate), format="json").json()["passed"] is False
    lenient = api.post(URL, check(baseline, candidate, max_drop=0.05), format="json").json()
    assert lenient["passed"] is False and lenient["max_drop"] == 0.05
    assert GateDecision.objects.count() == 2 and listening.deliveries.count() == 2


def test_a_pass_is_recorded_and_announces_nothing(api, runs, listening):
    baseline, candidate = runs(*pairs(down=5, up=4))
    response = api.post(URL, check(baseline, candidate), format="json")
    assert response.status_code == 200 and response.json()["passed"] is True
    assert response.json()["recorded"]["failure_announced_at"] is None
    [decision] = GateDecision.objects.all()
    assert decision.passed is True and decision.reasons == []
    assert not Event.objects.exists() and listening.deliveries.count() == 0


def test_a_check_that_passed_is_announced_when_corrections_make_it_fail(api, runs, listening, user):
    baseline, candidate = runs(*pairs(down=5, up=4))
    assert api.post(URL, check(baseline, candidate), format="json").json()["passed"] is True
    passing = Result.objects.filter(experiment=candidate, verdict="pass").order_by("pk")[:25]
    for result in passing:
        services.result_correct(result=result, user=user, verdict="fail", note="wrong")
    response = api.post(URL, check(baseline, candidate), format="json")
    assert response.json()["passed"] is False
    [decision] = GateDecision.objects.all()
    assert decision.passed is False and decision.failure_announced_at is not None
    assert [e.type for e in Event.objects.all()] == ["gate.failed"]


def test_the_get_still_writes_nothing(api, runs, listening):
    baseline, candidate = runs(*pairs(down=25, up=2))
    response = api.get(URL, check(baseline, candidate))
    assert response.status_code == 200 and response.json()["passed"] is False
    assert "recorded" not in response.json()
    assert not GateDecision.objects.exists() and not Event.objects.exists()


def test_the_options_may_come_in_the_query_string_and_are_checked(api, runs, web):
    baseline, candidate = runs(*pairs(down=5, up=4))
    query = "&".join(f"{k}={v}" for k, v in check(baseline, candidate).items())
    assert api.post(f"{URL}?{query}", {}, format="json").json()["passed"] is True
    # a signed-in caller names the workspace in the query, as for the GET
    signed_in = web.post(f"{URL}?workspace=acme&{query}", {"max_drop": 0.01})
    assert signed_in.status_code == 200, signed_in.content
    assert GateDecision.objects.count() == 2
    bad = api.post(URL, check(baseline, candidate, alpha=0.7), format="json")
    assert bad.status_code == 400 and "alpha" in bad.json()["error"]["details"]
    unknown = api.post(URL, check(baseline, candidate, verdict="pass"), format="json")
    assert unknown.status_code == 400 and "verdict" in unknown.json()["error"]["details"]
    assert api.post(URL, [1], format="json").status_code == 400
    assert GateDecision.objects.count() == 2


def test_a_viewer_may_check_but_not_record(runs, listening, workspace, member, api_client_for):
    baseline, candidate = runs(*pairs(down=25, up=2))
    viewer = api_client_for(workspace, member("vic", Membership.Role.VIEWER))
    assert viewer.get(URL, check(baseline, candidate)).status_code == 200
    refused = viewer.post(URL, check(baseline, candidate), format="json")
    assert refused.status_code == 403
    assert refused.json()["error"]["code"] == "permission_denied"
    editor = api_client_for(workspace, member("eve"))
    assert editor.post(URL, check(baseline, candidate), format="json").status_code == 200
    assert GateDecision.objects.get().decided_by.username == "eve"


def test_outsiders_get_404_and_record_nothing(api, runs, listening, outsider, outsider_api):
    baseline, candidate = runs(*pairs(down=25, up=2))
    # Acme's runs, with the outsider's own token (which acts in their workspace)
    response = outsider_api.post(URL, check(baseline, candidate), format="json")
    assert response.status_code == 404 and response.json()["error"]["code"] == "not_found"
    # their own runs are not Acme's: Acme's token with a foreign candidate or baseline
    theirs = verdict_runs(workspace=Workspace.objects.get(slug="other"), user=outsider)
    their_base, their_cand = theirs(*pairs(down=25, up=2), name="theirs")
    for mixed in (check(baseline, their_cand), check(their_base, candidate)):
        assert api.post(URL, mixed, format="json").status_code == 404
    # and the outsider's token on their own pair records in their workspace only
    assert outsider_api.post(URL, check(their_base, their_cand), format="json").status_code == 200
    [decision] = GateDecision.objects.all()
    assert decision.workspace.slug == "other"
    assert listening.deliveries.count() == 0  # Acme's endpoint hears nothing of theirs
