"""Assay's own calls to a model provider are marked as Assay's: every judge and prompt request
carries the W3C baggage entry `assay.experiment=<run>` that HTTP targets send, so an LLM gateway
or app tracing them with OpenTelemetry's baggage processor tags the spans, and online rules
never score them back as traffic. Read back by OpenTelemetry's own W3C baggage propagator from
the requests the suite's scripted provider received: debug runs, experiments (prompt target and
judge) and online runs."""

import pytest
from django.utils import timezone
from opentelemetry import baggage
from opentelemetry.baggage.propagation import W3CBaggagePropagator

from assay.vocabulary import EXPERIMENT_MARKER
from evaluators.services.debug import evaluator_debug
from experiments import scoring as engine
from experiments import services
from online.kind import online_run_inline
from online.services import online_rule_create, online_sweep
from tests.online.support import llm_span, store
from tests.support.factories import (
    make_evalset_version,
    make_llm_evaluator,
    make_llm_version,
    make_provider,
)

pytestmark = pytest.mark.django_db
MAPPING = {"input": "span:input", "output": "span:output"}


def marks(server) -> list[str | None]:
    """Each chat request's `assay.experiment` baggage value, as OpenTelemetry reads it."""
    found = []
    for request in server.chat_requests():
        context = W3CBaggagePropagator().extract({"baggage": request.headers.get("baggage", "")})
        found.append(baggage.get_all(context).get(EXPERIMENT_MARKER))
    return found


def test_a_debug_run_marks_its_judge_calls(workspace, user, llm_server):
    provider = make_provider(workspace=workspace, server=llm_server)
    judge = make_llm_evaluator(workspace=workspace, user=user, provider=provider)
    turns = [{"input": "2+2?", "output": "4"}, {"input": "Capital of France?", "output": "Paris"}]
    outcomes = evaluator_debug(evaluator=judge, turns=turns)
    assert [o.status for o in outcomes] == ["success", "success"]
    assert marks(llm_server) == ["debug", "debug"]


def test_an_experiments_prompt_target_and_judge_calls_carry_its_id(workspace, user, llm_server):
    provider = make_provider(workspace=workspace, server=llm_server)
    judge = make_llm_version(workspace=workspace, user=user, provider=provider)
    columns = [{"name": "input", "content_type": "Text", "required": True, "description": ""}]
    rows = make_evalset_version(
        workspace=workspace, user=user, columns=columns, rows=[{"input": "q1"}, {"input": "q2"}]
    )
    experiment = services.experiment_create(
        workspace=workspace,
        user=user,
        name="marked",
        evalset_version=rows,
        bindings=[
            {
                "evaluator_version": judge,
                "mapping": {"input": "column:input", "output": "target:actual_output"},
            }
        ],
        target={
            "kind": "prompt",
            "provider_id": str(provider.public_id),
            "messages": [{"role": "user", "content": "Answer: {{input}}"}],
        },
        launch=True,
    )
    experiment = engine.experiment_run_inline(experiment_id=experiment.pk)
    assert experiment.status == "completed"
    run = experiment.public_id
    assert (
        sorted(marks(llm_server))
        == [f"experiment:{run}:judge"] * 2 + [f"experiment:{run}:target"] * 2
    )


def test_an_online_runs_judge_calls_carry_its_rule(workspace, user, llm_server):
    provider = make_provider(workspace=workspace, server=llm_server)
    judge = make_llm_version(workspace=workspace, user=user, provider=provider)
    rule = online_rule_create(
        workspace=workspace,
        user=user,
        fields={"name": "judged"},
        evaluators=[{"evaluator_version": judge, "mapping": MAPPING}],
    )
    store([llm_span(workspace, output=f"answer {i}", expected="", input_text="q") for i in (1, 2)])
    run = online_sweep(rule_id=rule.pk, now=timezone.now() + timezone.timedelta(minutes=1))
    online_run_inline(run_id=run.pk)
    assert marks(llm_server) == [f"online:{rule.public_id}:{judge.public_id}"] * 2


def test_a_config_baggage_is_kept_and_the_mark_follows_it():
    from assay.marking import baggage_marked

    value = baggage_marked(baggage="tenant=acme", run="online:a b,c")
    context = W3CBaggagePropagator().extract({"baggage": value})
    assert baggage.get_all(context) == {"tenant": "acme", EXPERIMENT_MARKER: "online:a b,c"}
