"""Experiments with LLM parts over real HTTP: a prompt target producing actual_output, an LLM
judge on it, and the response cache making a re-run cost no request."""

import pytest

from assay import services as platform
from evaluators import services as evaluator_services
from experiments import scoring as engine
from experiments import services
from experiments.models import TargetResult
from experiments.scoring.turns import result_turn
from tests.support.factories import make_code_version, make_evalset_version

pytestmark = pytest.mark.django_db

HAS_SCORE = """def exec_evaluation(turn):
    output = turn["evaluate_target_output_fields"]["actual_output"]["text"]
    return EvalOutput(score=1.0 if '"score"' in output else 0.0, reason=output[:40])
"""


@pytest.fixture
def setup(workspace, user, llm_server):
    provider = platform.provider_create(
        workspace=workspace,
        name="Local",
        base_url=llm_server.base_url,
        default_model="judge-model",
        api_key="sk-test-assay-0123456789",
        structured_mode="json_object",
    )
    columns = [{"name": "input", "content_type": "Text", "required": True, "description": ""}]
    version = make_evalset_version(
        workspace=workspace,
        user=user,
        columns=columns,
        rows=[{"input": f"question {i}"} for i in range(12)],
    )
    judge = evaluator_services.evaluator_create(
        workspace=workspace, user=user, name="Judge", kind="llm"
    )
    config = {
        **judge.draft_config,
        "model": {
            **judge.draft_config["model"],
            "provider_id": str(provider.public_id),
            "model": "judge-model",
        },
    }
    evaluator_services.evaluator_update_draft(evaluator=judge, user=user, config=config)
    judge_version = evaluator_services.evaluator_submit_version(
        evaluator=judge, user=user, version="1.0.0"
    )
    code = make_code_version(workspace=workspace, user=user, name="Has score", source=HAS_SCORE)
    code_config = code.config["input_variables"]
    assert [v["name"] for v in code_config] == ["actual_output", "reference_output"]
    return provider, version, judge_version


def run(workspace, user, version, bindings, provider, name):
    target = {
        "kind": "prompt",
        "provider_id": str(provider.public_id),
        "messages": [{"role": "user", "content": "Answer briefly: {{input}}"}],
    }
    experiment = services.experiment_create(
        workspace=workspace,
        user=user,
        name=name,
        evalset_version=version,
        bindings=bindings,
        target=target,
    )
    services.experiment_launch(experiment=experiment)
    return engine.experiment_run_inline(experiment_id=experiment.pk)


def test_prompt_target_then_llm_judge_then_cache(setup, workspace, user, llm_server, client):
    web = client
    provider, version, judge_version = setup
    bindings = [
        {
            "evaluator_version": judge_version,
            "mapping": {"input": "column:input", "output": "target:actual_output"},
        }
    ]
    first = run(workspace, user, version, bindings, provider, "first")
    assert first.status == "completed"
    targets = TargetResult.objects.filter(experiment=first)
    assert targets.count() == 12 and {t.status for t in targets} == {"success"}
    sent = llm_server.chat_requests()
    prompts = [r.body["messages"][-1]["content"] for r in sent]
    assert "Answer briefly: question 3" in prompts
    results = first.results.all()
    assert results.count() == 12 and {r.verdict for r in results} == {"pass"}
    assert {r.score for r in results} == {0.8}
    judged = result_turn(result=results.first())["evaluate_target_output_fields"]["output"]["text"]
    assert judged == targets.get(item_id=results.first().item_id).output
    requests_after_first = len(llm_server.chat_requests())
    assert requests_after_first == 24  # 12 target calls + 12 judge calls

    second = run(workspace, user, version, bindings, provider, "second")
    assert second.status == "completed" and second.results.count() == 12
    # the target is asked again (its answers are not cached) but every judge call is a hit
    assert len(llm_server.chat_requests()) == requests_after_first + 12
    # results served from the cache say so, in the data and on the page
    assert not any(first.results.values_list("cached", flat=True))
    assert all(second.results.values_list("cached", flat=True))
    web.force_login(user)
    pages = [
        web.get(f"/w/acme/experiments/{e.public_id}/").content.decode() for e in (first, second)
    ]
    assert 'class="chip cached"' not in pages[0] and pages[1].count('class="chip cached"') == 12


def test_target_mapping_without_target_is_refused(setup, workspace, user):
    _, version, judge_version = setup
    from django.core.exceptions import ValidationError

    with pytest.raises(ValidationError) as raised:
        services.experiment_create(
            workspace=workspace,
            user=user,
            name="no target",
            evalset_version=version,
            bindings=[
                {
                    "evaluator_version": judge_version,
                    "mapping": {"input": "column:input", "output": "target:actual_output"},
                }
            ],
        )
    assert "has no target" in str(raised.value)


def test_a_prompt_target_test_request_shows_the_raw_response(setup, api, llm_server):
    provider, version, _judge = setup
    target = {
        "kind": "prompt",
        "provider_id": str(provider.public_id),
        "messages": [{"role": "user", "content": "Answer briefly: {{input}}"}],
    }
    response = api.post(
        "/api/v1/experiments/target-test/",
        {"evalset_version": str(version.public_id), "target": target},
        format="json",
    )
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["status"] == "success" and body["actual_output"]
    assert body["response"] == body["actual_output"]  # was None: the page said "Response —"
    assert not TargetResult.objects.exists()
