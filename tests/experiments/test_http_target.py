"""The HTTP target against a real local application: answers, retries, failures, extraction,
and a secret header that reaches the app and nothing else."""

import json

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse

from assay import services as platform
from experiments import scoring as engine
from experiments import services
from experiments.models import Result, TargetResult
from experiments.scoring.turns import result_turn
from tests.experiments.conftest import wait_for
from tests.support.factories import make_code_version, make_evalset_version

SECRET = "app-token-0123456789-abcdef"
COLUMNS = [
    {"name": name, "content_type": "Text", "required": False, "description": ""}
    for name in ("question", "reply", "script", "reference_output")
]


def rows_version(workspace, user, rows):
    return make_evalset_version(workspace=workspace, user=user, rows=rows, columns=COLUMNS)


def target(app, **overrides):
    return {
        "kind": "http",
        "url": app.url,
        "headers": {"Authorization": "Bearer {{secrets.APP_TOKEN}}", "X-Suite": "assay"},
        "body": {"question": "{{question}}", "reply": "{{reply}}", "script": "{{script}}"},
        "output": "answer",
        "trajectory": "trace",
        "tokens_in": "usage.input_tokens",
        "tokens_out": "usage.output_tokens",
        "cost": "usage.cost",
        "timeout_s": 2,
        "max_retries": 2,
        **overrides,
    }


def run(workspace, user, version, contains, app, **overrides):
    platform.secret_named_save(
        workspace=workspace, name="APP_TOKEN", value=SECRET, origins=[app.origin]
    )
    mapping = {
        "actual_output": "target:actual_output",
        "reference_output": "column:reference_output",
    }
    experiment = services.experiment_create(
        workspace=workspace,
        user=user,
        name="http run",
        evalset_version=version,
        bindings=[{"evaluator_version": contains, "mapping": mapping}],
        target=target(app, **overrides),
        launch=True,
    )
    return engine.experiment_run_inline(experiment_id=experiment.pk)


def by_question(experiment, model):
    rows = model.objects.filter(experiment=experiment)
    return {r.item.data["question"]["text"]: r for r in rows.select_related("item")}


def row(question, *, reply="Paris", script="ok", reference="Paris"):
    return {"question": question, "reply": reply, "script": script, "reference_output": reference}


def test_each_row_calls_the_app_and_its_answer_is_judged(workspace, user, contains, app):
    version = rows_version(workspace, user, [row("q1"), row("q2", reply="Lyon")])
    experiment = run(workspace, user, version, contains, app)
    assert experiment.status == "completed"
    assert app.calls == 2
    targets = by_question(experiment, TargetResult)
    assert targets["q1"].output == "Paris" and targets["q1"].status == "success"
    assert json.loads(targets["q1"].trajectory)["steps"][0]["name"] == "search"
    assert (targets["q1"].tokens_in, targets["q1"].tokens_out, targets["q1"].cost) == (
        12,
        3,
        0.0005,
    )
    verdicts = {q: r.verdict for q, r in by_question(experiment, Result).items()}
    assert verdicts == {"q1": "pass", "q2": "fail"}
    # Rows are sent concurrently, so requests arrive in any order.
    sent = next(r for r in app.requests if r.body["question"] == "q1")
    assert sent.headers["Authorization"] == f"Bearer {SECRET}"
    assert sent.body == {"question": "q1", "reply": "Paris", "script": "ok"}


def test_a_429_is_retried_then_succeeds(workspace, user, contains, app):
    version = rows_version(workspace, user, [row("q1", script="429,ok")])
    experiment = run(workspace, user, version, contains, app)
    target_row = TargetResult.objects.get(experiment=experiment)
    assert target_row.status == "success" and target_row.output == "Paris"
    assert app.calls == 2


@pytest.mark.parametrize(
    ("script", "status", "message", "calls"),
    [
        ("500", "error", "the endpoint failed after 3 attempts: HTTP 500", 3),
        ("400", "error", "the endpoint refused the request: HTTP 400", 1),
        ("hang:4", "timeout", "timed out after 1 attempts (2 s per request, to the answer's", 1),
        ("bad_json", "error", "the answer is not JSON", 1),
        ("no_answer", "error", "output: 'answer' matched nothing in the answer", 1),
    ],
)
def test_a_failing_call_is_a_row_error_that_keeps_the_body(
    workspace, user, contains, app, script, status, message, calls
):
    version = rows_version(workspace, user, [row("bad", script=script), row("good")])
    overrides = {"max_retries": 0} if script.startswith("hang") else {}
    experiment = run(workspace, user, version, contains, app, **overrides)
    assert experiment.status == "completed"
    targets = by_question(experiment, TargetResult)
    assert targets["bad"].status == status
    assert message in targets["bad"].error
    if script in ("500", "400", "bad_json", "no_answer"):
        assert targets["bad"].raw_response  # the body is kept for the drawer
    results = by_question(experiment, Result)
    assert results["bad"].verdict == "unknown" and results["bad"].status == "skipped"
    assert results["bad"].error.startswith("no output from the target: ")
    assert results["good"].verdict == "pass"
    assert app.calls == calls + 1


def test_the_secret_never_appears_in_results_pages_or_the_api(
    workspace, user, contains, app, web, api
):
    version = rows_version(workspace, user, [row("q1"), row("echo", script="echo_auth")])
    experiment = run(workspace, user, version, contains, app)
    assert f"Bearer {SECRET}" in {r.headers["Authorization"] for r in app.requests}
    stored = [
        json.dumps([t.rendered_request, t.raw_response, t.error, t.output])
        for t in TargetResult.objects.filter(experiment=experiment)
    ] + [
        json.dumps([result_turn(result=r), r.error, r.reason])
        for r in Result.objects.filter(experiment=experiment)
    ]
    assert stored and not any(SECRET in text for text in stored)
    shown = TargetResult.objects.filter(experiment=experiment).first().rendered_request
    assert shown["headers"]["Authorization"] == "Bearer [secret APP_TOKEN]"
    ws, eid = workspace.slug, experiment.public_id
    pages = [
        web.get(reverse("experiments:detail", kwargs={"ws": ws, "id": eid})),
        api.get(f"/api/v1/experiments/{eid}/"),
        api.get(f"/api/v1/experiments/{eid}/results/"),
        api.get(f"/api/v1/experiments/{eid}/export/?format=jsonl"),
        api.get("/api/v1/secrets/"),
    ]
    for response in pages:
        assert response.status_code == 200
        body = b"".join(response.streaming_content) if response.streaming else response.content
        assert SECRET.encode() not in body


def test_placeholders_are_typed_in_the_body(workspace, user, contains, app):
    columns = COLUMNS + [
        {"name": "n", "content_type": "Text", "required": False, "description": ""},
        {"name": "payload", "content_type": "Text", "required": False, "description": ""},
    ]
    version = make_evalset_version(
        workspace=workspace,
        user=user,
        columns=columns,
        rows=[{**row("q1"), "n": "42", "payload": '{"a": [1, 2]}'}, {**row("q2"), "n": "x"}],
    )
    body = {
        "question": "{{question}}",
        "n": "{{n | number}}",
        "payload": "{{payload | json}}",
        "note": "id {{item_id}}: {{question}}",
    }
    experiment = run(workspace, user, version, contains, app, body=body)
    received = {r.body["question"]: r.body for r in app.requests}
    assert received["q1"]["n"] == 42 and received["q1"]["payload"] == {"a": [1, 2]}
    assert received["q1"]["note"].startswith("id ") and received["q1"]["note"].endswith(": q1")
    bad = by_question(experiment, TargetResult)["q2"]
    assert bad.status == "error" and "'n' is 'x', not a number" in bad.error
    assert app.calls == 1  # the row that could not be built was never sent


@pytest.mark.parametrize(
    ("overrides", "field", "message"),
    [
        ({"url": "ftp://x"}, "target.url", "http"),
        ({"url": "http://{{question}}.example.com/a"}, "target.url", "not the host"),
        ({"method": "DELETE"}, "target.method", "POST"),
        ({"output": "answer[?"}, "target.output", "JMESPath"),
        ({"body": {"q": "{{nope}}"}}, "target.body", "not a column"),
        ({"body": {"q": "{{secrets.APP_TOKEN}}"}}, "target.body", "headers only"),
        ({"headers": {"Authorization": "{{secrets.MISSING}}"}}, "target.headers", "MISSING"),
        ({"headers": {"bad header": "x"}}, "target.headers", "not a header name"),
        ({"timeout_s": 0}, "target.timeout_s", "1–600"),
        ({"method": "GET"}, "target.body", "no body"),
        ({"colour": "red"}, "target", "colour"),
    ],
)
def test_bad_configs_are_refused_naming_the_field(
    workspace, user, contains, app, overrides, field, message
):
    version = rows_version(workspace, user, [row("q1")])
    platform.secret_named_save(
        workspace=workspace, name="APP_TOKEN", value=SECRET, origins=[app.origin]
    )
    with pytest.raises(ValidationError) as caught:
        services.experiment_create(
            workspace=workspace,
            user=user,
            name="bad",
            evalset_version=version,
            bindings=[{"evaluator_version": contains}],
            target=target(app, **overrides),
        )
    assert any(message in m for m in caught.value.message_dict[field])


def test_a_target_url_outside_the_outbound_policy_is_refused(
    workspace, user, contains, app, settings
):
    settings.ASSAY_OUTBOUND_ALLOW = "public"
    version = rows_version(workspace, user, [row("q1")])
    with pytest.raises(ValidationError) as caught:
        services.experiment_create(
            workspace=workspace,
            user=user,
            name="internal",
            evalset_version=version,
            bindings=[{"evaluator_version": contains}],
            target=target(app, headers={}),
        )
    assert "target.url" in caught.value.message_dict
    assert app.calls == 0


STRICT = """def exec_evaluation(turn):
    output = turn["evaluate_target_output_fields"]["actual_output"]["text"]
    reference = turn["evaluate_dataset_fields"]["reference_output"]["text"]
    return EvalOutput(score=float(output == reference), reason="exact")
"""


def test_a_rescore_scores_the_same_outputs_again_without_calling_the_app(
    workspace, user, contains, app, api
):
    rows = [row("q1"), row("q2", reply="Paris, France"), row("q3", reply="Lyon")]
    version = rows_version(workspace, user, rows)
    source = run(workspace, user, version, contains, app)
    calls = app.calls
    make_code_version(workspace=workspace, user=user, name="Exact", source=STRICT)
    response = api.post(
        f"/api/v1/experiments/{source.public_id}/rescore/",
        {"bindings": [{"evaluator_version": "Exact@1.0.0"}], "name": "strict"},
        format="json",
    )
    assert response.status_code == 202, response.content
    assert response.json()["outputs_from"] == str(source.public_id)
    from experiments.models import Experiment

    rescored = engine.experiment_run_inline(
        experiment_id=Experiment.objects.get(public_id=response.json()["id"]).pk
    )
    assert rescored.status == "completed" and app.calls == calls  # the app was not called
    outputs = {q: t.output for q, t in by_question(rescored, TargetResult).items()}
    assert outputs == {"q1": "Paris", "q2": "Paris, France", "q3": "Lyon"}
    verdicts = {q: r.verdict for q, r in by_question(rescored, Result).items()}
    assert verdicts == {"q1": "pass", "q2": "fail", "q3": "fail"}
    compared = api.get(
        f"/api/v1/compare?baseline={source.public_id}&candidates={rescored.public_id}"
    )
    assert compared.status_code == 200, compared.content


def test_a_rescore_needs_a_finished_run_with_outputs(workspace, user, contains, api):
    version = make_evalset_version(workspace=workspace, user=user, rows=[])
    plain = services.experiment_create(
        workspace=workspace,
        user=user,
        name="no target",
        evalset_version=version,
        bindings=[{"evaluator_version": contains}],
    )
    response = api.post(
        f"/api/v1/experiments/{plain.public_id}/rescore/",
        {"bindings": [{"evaluator_version": str(contains.public_id)}]},
        format="json",
    )
    assert response.status_code == 400
    assert "target.experiment" in response.json()["error"]["details"]


def test_a_test_request_shows_what_was_sent_received_and_taken(workspace, user, app, api):
    version = rows_version(workspace, user, [row("q1"), row("q2", reply="Lyon")])
    platform.secret_named_save(
        workspace=workspace, name="APP_TOKEN", value=SECRET, origins=[app.origin]
    )
    second = str(version.items.order_by("position")[1].item_id)
    response = api.post(
        "/api/v1/experiments/target-test/",
        {"evalset_version": str(version.public_id), "target": target(app), "item_id": second},
        format="json",
    )
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["status"] == "success" and body["actual_output"] == "Lyon"
    assert body["request"]["headers"]["Authorization"] == "Bearer [secret APP_TOKEN]"
    assert json.loads(body["response"])["usage"]["input_tokens"] == 12
    assert body["tokens_in"] == 12 and body["cost"] == 0.0005
    assert SECRET not in response.content.decode()
    assert app.requests[-1].headers["Authorization"] == f"Bearer {SECRET}"
    assert not TargetResult.objects.exists()  # nothing is stored


def test_a_test_request_with_a_bad_config_names_the_field(workspace, user, app, api):
    version = rows_version(workspace, user, [row("q1")])
    response = api.post(
        "/api/v1/experiments/target-test/",
        {"evalset_version": str(version.public_id), "target": target(app, output="a[?")},
        format="json",
    )
    assert response.status_code == 400 and "target.output" in response.json()["error"]["details"]
    assert app.calls == 0


@pytest.mark.django_db(transaction=True)
def test_cancel_stops_the_calls_in_flight(workspace, user, contains, app, celery_worker_inproc):
    from experiments.models import Experiment

    rows = [row(f"q{i}", script="hang:60") for i in range(40)]
    version = rows_version(workspace, user, rows)
    platform.secret_named_save(
        workspace=workspace, name="APP_TOKEN", value=SECRET, origins=[app.origin]
    )
    experiment = services.experiment_create(
        workspace=workspace,
        user=user,
        name="hanging app",
        evalset_version=version,
        bindings=[{"evaluator_version": contains}],
        target=target(app, timeout_s=60, max_retries=0),
        concurrency=8,
        launch=True,
    )
    wait_for(lambda: app.calls >= 8, 20, "the first calls to reach the app")
    services.experiment_cancel(experiment=Experiment.objects.get(pk=experiment.pk))
    # the answers would take a minute; the run ends long before, without sending the rest
    wait_for(
        lambda: Experiment.objects.get(pk=experiment.pk).status == "cancelled",
        30,
        "the run to be cancelled",
    )
    assert app.calls == 8
    assert not TargetResult.objects.filter(experiment=experiment).exists()
