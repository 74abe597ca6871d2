"""An LLM judge on live spans, through the suite's scripted OpenAI-compatible server: a clean
answer is scored with its cost and the rendered prompt kept; a request the provider refuses
(HTTP 400) is skipped as "provider blocked" with the provider's message; an answer that cannot
be read is an evaluator error (retryable)."""

import pytest
from django.utils import timezone

from online.kind import online_run_inline
from online.models import OnlineOutcome, SkipReason
from online.services import online_rule_create, online_sweep
from tests.support.factories import make_llm_version, make_provider

from .support import llm_span, store

pytestmark = pytest.mark.django_db


def test_a_judge_scores_and_every_failure_is_named(workspace, user, llm_server):
    provider = make_provider(workspace=workspace, server=llm_server)
    judge = make_llm_version(workspace=workspace, user=user, provider=provider)
    variables = [v["name"] for v in judge.config["input_variables"]]
    mapping = {name: "span:output" for name in variables}
    rule = online_rule_create(
        workspace=workspace,
        user=user,
        fields={"name": "judged"},
        evaluators=[{"evaluator_version": judge, "mapping": mapping}],
    )
    spans = store(
        [
            llm_span(workspace, output="A fine answer [[script:score:0.9]]", expected=""),
            llm_span(workspace, output="Forbidden words [[script:400]]", expected=""),
            llm_span(workspace, output="Gibberish [[script:bad_json]]", expected=""),
        ]
    )
    run = online_sweep(rule_id=rule.pk, now=timezone.now() + timezone.timedelta(minutes=1))
    online_run_inline(run_id=run.pk)
    by_span = {o.span_id: o for o in OnlineOutcome.objects.filter(rule=rule)}
    scored, blocked, unreadable = (by_span[s.span_id] for s in spans)
    assert (scored.verdict, scored.skip_reason, scored.score) == ("pass", "", 0.9)
    assert scored.rendered_request["messages"] and scored.raw_answer
    assert blocked.skip_reason == SkipReason.PROVIDER_BLOCKED and blocked.status == "error"
    assert (
        "provider rejected the request" in blocked.error and "scripted failure 400" in blocked.error
    )
    assert unreadable.skip_reason == SkipReason.EVALUATOR_ERROR
    assert unreadable.error.startswith("invalid answer")
