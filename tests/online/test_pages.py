"""The online rules' pages: a rule made in two steps (versions, then the mapping), started
from a span, problems shown and nothing saved; a rule's page with its windows and outcomes;
pause, resume and delete; the trace page's panel; outsiders."""

import json

import pytest
from django.utils import timezone
from django.utils.html import escape

from assay.models import Workspace
from online.kind import online_run_inline
from online.models import OnlineRule
from online.services import online_sweep
from tests.support.factories import make_code_version

from .support import code_rule, llm_span, store

pytestmark = pytest.mark.django_db

FILTER = '{"all": [{"field": "kind", "op": "eq", "value": "llm"}]}'


def _form(version, **fields):
    base = {
        "name": "answers",
        "filter": FILTER,
        "environment": "production",
        "sampling_percent": "25",
        "evaluator_versions": [str(version.public_id)],
    }
    return {**base, **fields}


def test_a_rule_is_made_in_two_steps(web, workspace, user):
    version = make_code_version(workspace=workspace, user=user, name="Contains")
    store([llm_span(workspace, output="a", expected="a")])  # its attribute is offered
    url = "/w/acme/online/new/"
    mapped = web.post(url, _form(version, step="map"))
    assert mapped.status_code == 200 and not OnlineRule.objects.exists()
    page = mapped.content.decode()
    field = f"map:{version.public_id}:reference_output"
    assert f'name="{field}"' in page and 'value="attribute:expected"' in page
    body = _form(
        version,
        step="create",
        **{f"map:{version.public_id}:actual_output": "span:output", field: "attribute:expected"},
    )
    created = web.post(url, body)
    assert created.status_code == 302
    rule = OnlineRule.objects.get()
    assert rule.sampling_rate == 0.25 and rule.filter["all"][0]["value"] == "llm"
    assert rule.evaluators.get().mapping == {
        "actual_output": "span:output",
        "reference_output": "attribute:expected",
    }
    assert created["Location"] == f"/w/acme/online/{rule.public_id}/"


def test_problems_are_shown_and_nothing_is_saved(web, workspace, user):
    version = make_code_version(workspace=workspace, user=user, name="Contains")
    bad_json = web.post("/w/acme/online/new/", _form(version, step="create", filter="{nope"))
    assert bad_json.status_code == 400 and "This is not JSON" in bad_json.content.decode()
    unmapped = web.post(
        "/w/acme/online/new/",
        _form(version, step="create", filter='{"field": "colour", "op": "eq", "value": 1}'),
    )
    page = unmapped.content.decode()
    assert unmapped.status_code == 400
    assert "unknown field &#x27;colour&#x27;" in page
    assert "Required variable &#x27;reference_output&#x27; is not mapped." in page
    assert not OnlineRule.objects.exists()


def test_a_rule_starts_from_a_span(web, workspace, user):
    make_code_version(workspace=workspace, user=user, name="Contains")
    [span] = store([llm_span(workspace, output="a", expected="a", name="answer")])
    page = web.get(f"/w/acme/online/new/?trace={span.trace_id}&span={span.span_id}")
    text = page.content.decode()
    kind = {"field": "kind", "op": "eq", "value": "llm"}
    assert escape(json.dumps(kind)) in text
    assert "&quot;value&quot;: &quot;answer&quot;" in text
    foreign = web.get("/w/acme/online/new/?trace=" + "0" * 32 + "&span=" + "0" * 16)
    assert foreign.status_code == 200 and "answer" not in foreign.content.decode()


@pytest.fixture
def scored(workspace, user):
    rule = code_rule(workspace, user)
    spans = store(
        [
            llm_span(workspace, output="yes", expected="yes"),
            llm_span(workspace, output="no", expected="yes"),
        ]
    )
    run = online_sweep(rule_id=rule.pk, now=timezone.now() + timezone.timedelta(minutes=1))
    online_run_inline(run_id=run.pk)
    return rule, spans


def test_the_rule_page_shows_windows_and_outcomes(web, scored):
    rule, spans = scored
    page = web.get(f"/w/acme/online/{rule.public_id}/").content.decode()
    assert "50.0%" in page  # one pass of two decided
    assert spans[0].trace_id[:10] in page
    hours = web.get(f"/w/acme/online/{rule.public_id}/?window=hour")
    assert hours.status_code == 200


def test_pause_resume_and_delete(web, scored):
    rule, _spans = scored
    web.post(f"/w/acme/online/{rule.public_id}/toggle/")
    assert not OnlineRule.objects.get().active
    web.post(f"/w/acme/online/{rule.public_id}/toggle/")
    assert OnlineRule.objects.get().active
    assert web.post(f"/w/acme/online/{rule.public_id}/delete/").status_code == 302
    assert not OnlineRule.objects.exists()


def test_the_trace_page_shows_each_rules_outcome(web, scored, workspace):
    rule, spans = scored
    page = web.get(f"/w/acme/traces/{spans[1].trace_id}/").content.decode()
    assert 'id="online-scores"' in page and rule.name in page
    assert 'data-verdict="fail"' in page
    assert f'value="{spans[1].span_id}"' in page  # "score spans like this"


def test_outsiders_get_404(client, outsider, scored):
    rule, spans = scored
    other = Workspace.objects.get(slug="other")
    make_code_version(workspace=other, user=outsider, name="Theirs")
    client.force_login(outsider)
    for url in (
        "/w/acme/online/",
        f"/w/acme/online/{rule.public_id}/",
        f"/w/other/online/{rule.public_id}/",
    ):
        assert client.get(url).status_code == 404, url
    assert client.post(f"/w/other/online/{rule.public_id}/delete/").status_code == 404
    theirs = client.get(f"/w/other/online/new/?trace={spans[0].trace_id}&span={spans[0].span_id}")
    assert theirs.status_code == 200 and "chat" not in theirs.content.decode().split("<form")[1]
    assert OnlineRule.objects.filter(pk=rule.pk).exists()


def test_a_backfill_is_estimated_then_started_from_the_page(web, workspace, user):
    past = timezone.now() - timezone.timedelta(hours=1)
    store([llm_span(workspace, output="a", expected="a", at=past) for _ in range(4)])
    rule = code_rule(workspace, user)
    url = f"/w/acme/online/{rule.public_id}/backfill/"
    window = {
        "since": (past - timezone.timedelta(hours=1)).strftime("%Y-%m-%dT%H:%M"),
        "until": (past + timezone.timedelta(minutes=30)).strftime("%Y-%m-%dT%H:%M"),
    }
    estimated = web.post(url, {**window, "step": "estimate"})
    assert estimated.status_code == 200
    assert "4 spans in the window, 4 sampled, 4 evaluator calls" in estimated.content.decode()
    assert not rule.runs.exists()
    late = web.post(url, {"since": window["since"], "until": "2999-01-01T00:00", "step": "start"})
    assert late.status_code == 400 and "coverage begins" in late.content.decode()
    started = web.post(url, {**window, "step": "start"})
    assert started.status_code == 302 and rule.runs.get().source == "backfill"


def test_a_trace_rule_offers_the_trajectory(web, workspace, user):
    version = make_code_version(workspace=workspace, user=user, name="Contains")
    body = _form(version, step="map", scope="trace")
    page = web.post("/w/acme/online/new/", body).content.decode()
    assert 'value="trace:trajectory"' in page
    field = f"map:{version.public_id}:"
    mapping = {
        field + "actual_output": "trace:trajectory",
        field + "reference_output": "span:input",
    }
    created = web.post("/w/acme/online/new/", {**body, "step": "create", **mapping})
    assert created.status_code == 302
    assert OnlineRule.objects.get().scope == "trace"


def test_the_traces_list_filters_by_online_score(web, api, scored, workspace, user):
    rule, spans = scored
    failing, passing = spans[1].trace_id, spans[0].trace_id
    unscored = store([llm_span(workspace, output="x", expected="x", kind="tool")])[0].trace_id

    def listed(**query):
        answer = api.get("/api/v1/traces/", query)
        assert answer.status_code == 200, answer.content
        return {t["trace_id"] for t in answer.json()["results"]}

    assert listed() >= {failing, passing, unscored}
    assert listed(score="scored") == {failing, passing}
    assert listed(score="fail") == {failing}
    assert listed(score="pass", rule=str(rule.public_id)) == {passing}
    other = code_rule(workspace, user, name="other")
    assert listed(score="fail", rule=str(other.public_id)) == set()
    assert api.get("/api/v1/traces/", {"score": "great"}).status_code == 400
    page = web.get("/w/acme/traces/", {"score": "fail"}).content.decode()
    assert failing in page and passing not in page


def test_another_workspaces_scores_do_not_filter_in(outsider_api, scored):
    _rule, spans = scored
    answer = outsider_api.get("/api/v1/traces/", {"score": "scored"})
    assert answer.status_code == 200 and answer.json()["results"] == []
