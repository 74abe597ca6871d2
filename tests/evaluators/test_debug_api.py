"""The debug runner and evaluator tests through the API, with the real sandbox and a real
OpenAI-compatible HTTP server for the LLM judge."""

import threading

import pytest
from django.db import connections

from assay import services as platform
from evaluators import services
from evaluators.models import EvaluatorTestCase, EvaluatorVersion

pytestmark = pytest.mark.django_db

URL = "/api/v1/evaluators/"

CODE = """import json
def exec_evaluation(turn):
    output = turn["evaluate_target_output_fields"]["actual_output"]["text"]
    print("checking", output)
    if output == "boom":
        return 1 / 0
    return EvalOutput(score=1.0 if output == "Paris" else 0.0, reason="compared " + output)
"""


def text(value):
    return {"content_type": "Text", "text": value}


def turn(output, reference="Paris"):
    return {
        "evaluate_dataset_fields": {"reference_output": text(reference)},
        "evaluate_target_output_fields": {"actual_output": text(output)},
        "ext": {},
    }


@pytest.fixture
def code_eval(workspace, user):
    evaluator = services.evaluator_create(
        workspace=workspace, user=user, name="Capital", kind="code", language="python"
    )
    config = {**evaluator.draft_config, "source": CODE}
    return services.evaluator_update_draft(evaluator=evaluator, user=user, config=config)


def test_debug_code_evaluator_on_turns(api, code_eval):
    response = api.post(
        f"{URL}{code_eval.public_id}/debug/",
        {"turns": [turn("Paris"), turn("Lyon"), turn("boom")]},
        format="json",
    )
    assert response.status_code == 200, response.content
    ok, wrong, boom = response.json()["results"]
    assert (ok["status"], ok["score"], ok["verdict"]) == ("success", 1.0, "pass")
    assert ok["reason"] == "compared Paris" and ok["stdout"] == "checking Paris\n"
    assert (wrong["score"], wrong["verdict"]) == (0.0, "fail")
    assert boom["status"] == "error" and boom["verdict"] == "unknown"
    assert "line 6" in boom["error"] and "ZeroDivisionError" in boom["error"]
    assert boom["score"] is None


def test_debug_runs_an_unsaved_config(api, code_eval):
    config = {
        **code_eval.draft_config,
        "source": "def exec_evaluation(turn):\n    return EvalOutput(score=0.25, reason='x')\n",
    }
    response = api.post(
        f"{URL}{code_eval.public_id}/debug/",
        {"turns": [turn("Paris")], "config": config},
        format="json",
    )
    assert response.json()["results"][0]["score"] == 0.25
    code_eval.refresh_from_db()
    assert "0.25" not in code_eval.draft_config["source"]  # nothing was saved


@pytest.mark.parametrize(
    "turns, field",
    [
        ([], "turns"),
        ([turn("Paris")] * 11, "turns"),
        ([{"evaluate_dataset_fields": {"reference_output": text("Paris")}}], "turns[0]"),
        (
            [
                {
                    **turn("x"),
                    "evaluate_target_output_fields": {
                        "actual_output": {
                            "content_type": "Image",
                            "image": {"url": "https://x.test/a.png"},
                        }
                    },
                }
            ],
            "turns[0].evaluate_target_output_fields.actual_output",
        ),
        (
            [
                {
                    **turn("x"),
                    "evaluate_target_output_fields": {"actual_output": text("y" * 300_000)},
                }
            ],
            "turns[0]",
        ),
        ([{**turn("x"), "surprise": 1}], "turns[0].surprise"),
        ("not a list", "turns"),
    ],
)
def test_bad_turns_are_400(api, code_eval, turns, field):
    response = api.post(f"{URL}{code_eval.public_id}/debug/", {"turns": turns}, format="json")
    assert response.status_code == 400, response.content
    assert field in response.json()["error"]["details"], response.json()


@pytest.mark.django_db(transaction=True)  # the call runs in a thread with its own connection
def test_runaway_is_stopped_at_its_limit_and_reported_as_timeout(api, code_eval):
    config = {
        **code_eval.draft_config,
        "timeout_s": 1.0,
        "source": "def exec_evaluation(turn):\n    while True:\n        pass\n",
    }
    answer = {}

    def call():
        answer["response"] = api.post(
            f"{URL}{code_eval.public_id}/debug/",
            {"turns": [turn("Paris")], "config": config},
            format="json",
        )
        connections.close_all()  # this thread's connection

    caller = threading.Thread(target=call)
    caller.start()
    caller.join(timeout=30)  # a bounded wait: an unstopped loop would never answer
    assert not caller.is_alive(), "the runaway was not stopped"
    connections.close_all()
    result = answer["response"].json()["results"][0]
    assert result["status"] == "timeout" and result["verdict"] == "unknown"
    assert "time limit of 1 s exceeded" in result["error"]


def test_llm_judge_debug_over_real_http(api, workspace, user, llm_server):
    provider = platform.provider_create(
        workspace=workspace,
        name="Local",
        base_url=llm_server.base_url,
        default_model="judge-model",
        api_key="sk-test-assay-0123456789",
        structured_mode="json_object",
    )
    evaluator = services.evaluator_create(workspace=workspace, user=user, name="Judge", kind="llm")
    config = {
        **evaluator.draft_config,
        "model": {**evaluator.draft_config["model"], "provider_id": str(provider.public_id)},
    }
    config["messages"] = [
        {"role": "system", "content": "Judge it."},
        {"role": "user", "content": "Q: {{input}}\nA: {{output}}"},
    ]
    turns = [
        {
            "evaluate_dataset_fields": {"input": text("Capital of France? [[script:fenced]]")},
            "evaluate_target_output_fields": {"output": text("Paris")},
        },
        {
            "evaluate_dataset_fields": {"input": text("Capital of Spain? [[script:out_of_range]]")},
            "evaluate_target_output_fields": {"output": text("Madrid")},
        },
    ]
    response = api.post(
        f"{URL}{evaluator.public_id}/debug/", {"turns": turns, "config": config}, format="json"
    )
    assert response.status_code == 200, response.content
    fenced, out_of_range = response.json()["results"]
    assert (fenced["status"], fenced["score"], fenced["verdict"]) == ("success", 0.8, "pass")
    assert fenced["rendered_request"]["messages"][-1]["content"].startswith("Q: Capital of France")
    assert "```json" in fenced["raw_answer"] and fenced["tokens_in"] > 0
    assert out_of_range["status"] == "error" and out_of_range["score"] is None
    assert "1.7" in out_of_range["raw_answer"] and out_of_range["verdict"] == "unknown"
    sent = llm_server.chat_requests()
    assert sent and sent[0].headers.get("authorization") == "Bearer sk-test-assay-0123456789"
    assert "sk-test-assay" not in response.content.decode()


def test_test_cases_crud_run_and_submit_records_result(api, code_eval):
    base = f"{URL}{code_eval.public_id}/test-cases/"
    good = api.post(
        base,
        {"name": "Paris passes", "turn": turn("Paris"), "expected_verdict": "pass"},
        format="json",
    )
    assert good.status_code == 201, good.content
    api.post(
        base,
        {"name": "boom is unknown", "turn": turn("boom"), "expected_verdict": "unknown"},
        format="json",
    )
    wrong = api.post(
        base,
        {"name": "Lyon expected to pass (wrong)", "turn": turn("Lyon"), "expected_verdict": "pass"},
        format="json",
    )
    bad = api.post(
        base, {"name": "", "turn": {"nope": 1}, "expected_verdict": "maybe"}, format="json"
    )
    assert bad.status_code == 400
    assert EvaluatorTestCase.objects.count() == 3
    run = api.post(base + "run/").json()
    assert (run["total"], run["agreed"], run["passed"]) == (3, 2, False)
    assert [c["agree"] for c in run["cases"]] == [True, True, False]
    api.delete(f"{base}{wrong.json()['id']}/")
    version = api.post(f"{URL}{code_eval.public_id}/versions/", {"version": "1.0.0"}, format="json")
    assert version.status_code == 201
    assert version.json()["test_result"]["agreed"] == 2
    assert EvaluatorVersion.objects.get().test_result["passed"] is True
    patched = api.patch(f"{base}{good.json()['id']}/", {"expected_verdict": "fail"}, format="json")
    assert patched.json()["expected_verdict"] == "fail"


def test_outsider_gets_404_on_debug_and_tests(outsider_api, api, code_eval):
    case = api.post(
        f"{URL}{code_eval.public_id}/test-cases/",
        {"name": "c", "turn": turn("Paris"), "expected_verdict": "pass"},
        format="json",
    )
    cid = case.json()["id"]
    base = f"{URL}{code_eval.public_id}/"
    for method, url in [
        ("post", base + "debug/"),
        ("get", base + "test-cases/"),
        ("post", base + "test-cases/"),
        ("post", base + "test-cases/run/"),
        ("get", f"{base}test-cases/{cid}/"),
        ("patch", f"{base}test-cases/{cid}/"),
        ("delete", f"{base}test-cases/{cid}/"),
    ]:
        response = getattr(outsider_api, method)(url, {"turns": [turn("x")]}, format="json")
        assert response.status_code == 404, (method, url)
    assert EvaluatorTestCase.objects.count() == 1


def test_pick_rows_from_an_evalset(web, workspace, user, code_eval):
    from tests.support.factories import make_evalset_version, qa_rows

    version = make_evalset_version(workspace=workspace, user=user, rows=qa_rows(20))
    base = f"/w/acme/evaluators/{code_eval.public_id}/debug/"
    sets = web.get(base + "evalsets/").json()["evalsets"]
    assert sets[0]["versions"] == ["draft", "1.0.0"]
    url = f"{base}rows/?evalset={version.evalset.public_id}&version=1.0.0&limit=3"
    turns = web.post(url).json()["turns"]
    assert len(turns) == 3
    assert turns[1]["evaluate_target_output_fields"]["actual_output"]["text"] == (
        "The capital is Lyon"
    )
    assert turns[0]["evaluate_dataset_fields"]["reference_output"]["text"] == "Paris"
    assert "input" not in turns[0]["evaluate_dataset_fields"]  # not a variable of this evaluator
    assert len(web.post(url.replace("limit=3", "limit=50")).json()["turns"]) == 10


def test_pick_rows_of_another_workspace_is_404(client, outsider, workspace, user, code_eval):
    from tests.support.factories import make_evalset_version, qa_rows

    version = make_evalset_version(workspace=workspace, user=user, rows=qa_rows(2))
    client.force_login(outsider)
    url = (
        f"/w/other/evaluators/{code_eval.public_id}/debug/rows/"
        f"?evalset={version.evalset.public_id}&version=1.0.0"
    )
    assert client.post(url).status_code == 404


def test_pick_rows_with_a_bad_limit_uses_the_default(web, workspace, user, code_eval):
    from tests.support.factories import make_evalset_version, qa_rows

    version = make_evalset_version(workspace=workspace, user=user, rows=qa_rows(12))
    url = (
        f"/w/acme/evaluators/{code_eval.public_id}/debug/rows/"
        f"?evalset={version.evalset.public_id}&version=1.0.0&limit=many"
    )
    assert len(web.post(url).json()["turns"]) == 10
