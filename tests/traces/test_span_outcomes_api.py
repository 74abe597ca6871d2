"""Online outcomes on spans in the API: `GET /api/v1/spans/` items and the trace detail's spans
list each rule's outcome for them (rule, evaluator version, status, verdict, score, skip
reason), the trace detail lists its trace rules' outcomes beside the tree; traces reads them
through its registry (`traces.reading.scores`), which online fills. Another workspace's
outcomes never appear, even on spans with the same trace and span ids."""

import pytest
from django.utils import timezone

from assay.models import Workspace
from online.kind import online_run_inline
from online.services import online_rule_create, online_sweep
from tests.online.support import code_rule, llm_span, store
from tests.support.factories import make_code_version

pytestmark = pytest.mark.django_db

TRACE, OTHER_TRACE = "ab" * 16, "cd" * 16
ROOT, CHILD, OTHER_SPAN = "11" * 8, "22" * 8, "33" * 8


def scored(rule):
    run = online_sweep(rule_id=rule.pk, now=timezone.now() + timezone.timedelta(minutes=1))
    online_run_inline(run_id=run.pk)


def traffic(workspace, output: str = "Paris is the capital."):
    """A trace of an LLM root and a tool child, and a trace of one failing LLM span."""
    store(
        [
            llm_span(workspace, output=output, expected="Paris", trace_id=TRACE, span_id=ROOT),
            llm_span(
                workspace,
                output="searched",
                expected="Paris",
                trace_id=TRACE,
                span_id=CHILD,
                parent_span_id=ROOT,
                kind="tool",
            ),
            llm_span(
                workspace,
                output="I don't know",
                expected="Paris",
                trace_id=OTHER_TRACE,
                span_id=OTHER_SPAN,
            ),
        ]
    )


def trace_rule(workspace, user):
    version = make_code_version(workspace=workspace, user=user, name="Whole answer")
    return online_rule_create(
        workspace=workspace,
        user=user,
        fields={
            "name": "whole runs",
            "scope": "trace",
            "filter": {"field": "kind", "op": "eq", "value": "llm"},
        },
        evaluators=[
            {
                "evaluator_version": version,
                "mapping": {
                    "actual_output": "span:output",
                    "reference_output": "attribute:expected",
                },
            }
        ],
    )


def outcome(rule, verdict: str, score: float) -> dict:
    version = rule.evaluators.get().evaluator_version
    return {
        "rule_id": str(rule.public_id),
        "rule_name": rule.name,
        "evaluator_version": str(version.public_id),
        "evaluator_name": version.evaluator.name,
        "version": version.version,
        "status": "success",
        "verdict": verdict,
        "score": score,
        "skip_reason": "",
    }


def test_spans_and_traces_carry_their_online_outcomes(api, workspace, user):
    answers, whole = code_rule(workspace, user), trace_rule(workspace, user)
    traffic(workspace)
    scored(answers)
    scored(whole)
    spans = {s["span_id"]: s for s in api.get("/api/v1/spans/").json()["results"]}
    assert spans[ROOT]["online_outcomes"] == [outcome(answers, "pass", 1.0)]
    assert spans[CHILD]["online_outcomes"] == []  # a tool span: the span rule's filter left it
    assert spans[OTHER_SPAN]["online_outcomes"] == [outcome(answers, "fail", 0.0)]
    trace = api.get(f"/api/v1/traces/{TRACE}/").json()
    [root] = trace["spans"]
    assert root["span"]["online_outcomes"] == [outcome(answers, "pass", 1.0)]
    assert root["children"][0]["span"]["online_outcomes"] == []
    assert trace["online_outcomes"] == [outcome(whole, "pass", 1.0)]


def test_another_workspaces_outcomes_never_appear(api, outsider_api, workspace, user, outsider):
    other = Workspace.objects.get(slug="other")
    theirs = code_rule(other, outsider, name="theirs")
    traffic(other, output="Lyon")  # the same trace and span ids, scored fail there
    scored(theirs)
    traffic(workspace)  # Acme's, scored by no rule of Acme's
    for client, expected in ((api, []), (outsider_api, [outcome(theirs, "fail", 0.0)])):
        spans = {s["span_id"]: s for s in client.get("/api/v1/spans/").json()["results"]}
        assert spans[ROOT]["online_outcomes"] == expected
        trace = client.get(f"/api/v1/traces/{TRACE}/").json()
        assert trace["spans"][0]["span"]["online_outcomes"] == expected
        assert trace["online_outcomes"] == []
