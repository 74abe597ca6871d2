"""Experiments through the API: create, launch, read progress and results, cancel, retry, clone;
every bad input is a 400 naming the field with nothing saved; outsiders get 404."""

import pytest

from assay.models import Membership, Workspace
from evaluators import services as evaluator_services
from experiments import scoring as engine
from experiments import services
from experiments.models import Experiment, ExperimentChunk, ExperimentStatus, Result
from tests.support.factories import (
    TEXT_COLUMNS,
    make_code_version,
    make_evalset_version,
    qa_rows,
)

pytestmark = pytest.mark.django_db

URL = "/api/v1/experiments/"
MAPPING = {"actual_output": "column:actual_output", "reference_output": "column:reference_output"}


def error_of(response) -> dict:
    assert response.status_code == 400, response.content
    return response.json()["error"]


@pytest.fixture
def evalset_version(workspace, user):
    rows = qa_rows(40, error_every=10)
    return make_evalset_version(workspace=workspace, user=user, rows=rows)


@pytest.fixture
def evaluator_version(workspace, user):
    return make_code_version(workspace=workspace, user=user)


@pytest.fixture
def body(evalset_version, evaluator_version):
    return {
        "name": "Contains reference",
        "evalset_version": str(evalset_version.public_id),
        "bindings": [{"evaluator_version": str(evaluator_version.public_id), "mapping": MAPPING}],
        "chunk_size": 10,
    }


@pytest.fixture
def finished(workspace, user, evalset_version, evaluator_version):
    """A completed run: 40 rows; every 10th (odd) row errors, other even rows pass, odd fail."""
    experiment = services.experiment_create(
        workspace=workspace,
        user=user,
        name="done",
        evalset_version=evalset_version,
        bindings=[{"evaluator_version": evaluator_version}],
        chunk_size=10,
    )
    services.experiment_launch(experiment=experiment)
    return engine.experiment_run_inline(experiment_id=experiment.pk)


def test_create_launch_run_and_read_progress(api, body, evalset_version):
    created = api.post(URL, body, format="json")
    assert created.status_code == 201, created.content
    data = created.json()
    assert data["status"] == "draft" and data["evalset_version"] == str(evalset_version.public_id)
    assert data["bindings"][0]["mapping"] == MAPPING
    assert data["bindings"][0]["policy"] == {"kind": "threshold", "threshold": 0.5}
    eid = data["id"]

    launched = api.post(f"{URL}{eid}/launch/")
    assert launched.status_code == 202 and launched.json()["status"] == "queued"
    assert launched.json()["results_total"] == 40 and launched.json()["progress"]["eta_s"] is None

    engine.experiment_run_inline(experiment_id=Experiment.objects.get(public_id=eid).pk)
    done = api.get(f"{URL}{eid}/").json()
    assert done["status"] == "completed" and done["results_done"] == 40
    progress = done["progress"]
    assert progress["percent"] == 100.0 and progress["eta_s"] is None
    assert progress["results_per_s"] and progress["rows_per_s"] == progress["results_per_s"]
    assert done["counts"]["statuses"]["error"] == 4 and done["counts"]["statuses"]["success"] == 36
    assert done["counts"]["verdicts"] == {"pass": 20, "fail": 16, "unknown": 4}
    assert done["bindings"][0]["summary"]["line"] == "20 pass, 16 fail, 4 unknown"


def test_create_and_launch_in_one_call(api, body):
    response = api.post(URL, {**body, "launch": True}, format="json")
    assert response.status_code == 202, response.content
    experiment = Experiment.objects.get(public_id=response.json()["id"])
    assert experiment.status == ExperimentStatus.QUEUED and experiment.chunks.count() == 4


def test_list_filters_by_status_and_evalset(api, finished, workspace, user, evaluator_version):
    other = make_evalset_version(workspace=workspace, user=user, rows=qa_rows(3), name="Other")
    services.experiment_create(
        workspace=workspace,
        user=user,
        name="draft",
        evalset_version=other,
        bindings=[{"evaluator_version": evaluator_version}],
    )
    names = lambda q: [e["name"] for e in api.get(URL + q).json()["results"]]  # noqa: E731
    assert names("") == ["draft", "done"]
    assert names("?status=completed") == ["done"]
    assert names(f"?evalset={finished.evalset_version.evalset.public_id}") == ["done"]
    assert names(f"?evalset={other.public_id}") == ["draft"]
    assert names("?evalset=Other") == names("?evalset=Other@1.0.0") == ["draft"]
    assert names("?evalset=Other@9.9.9") == []
    listed = api.get(URL).json()["results"][1]
    assert listed["progress"]["percent"] == 100.0 and listed["results_total"] == 40
    assert "status" in error_of(api.get(URL + "?status=exploded"))["details"]
    assert "evalset" in error_of(api.get(URL + "?evalset=nope"))["details"]


def test_results_filters_and_detail(api, finished):
    base = f"{URL}{finished.public_id}/results/"
    page = api.get(base + "?page_size=5").json()
    assert page["count"] == 40 and len(page["results"]) == 5
    assert [r["position"] for r in page["results"]] == [0, 1, 2, 3, 4]
    count = lambda q: api.get(base + q).json()["count"]  # noqa: E731
    binding = finished.bindings.get()
    evaluator = binding.evaluator_version.evaluator
    assert count(f"?evaluator={binding.pk}") == 40
    assert count(f"?evaluator={evaluator.public_id}") == 40
    assert count(f"?evaluator={binding.evaluator_version.public_id}") == 40
    assert count(f"?evaluator={binding.pk + 1000}") == 0
    assert count("?verdict=pass") == 20 and count("?verdict=unknown") == 4
    assert count("?status=error") == 4 and count("?status=error&verdict=pass") == 0
    assert count("?tag=even") == 20 and count("?tag=ev") == 0
    assert count("?q=ZeroDivision") == 4 and count("?q=missing") == 16
    assert count("?score_min=0.5") == 20 and count("?score_max=0.5") == 16
    assert count("?score_min=0&score_max=1") == 36

    result = Result.objects.filter(experiment=finished, status="error").first()
    detail = api.get(f"{base}{result.pk}/").json()
    assert detail["status"] == "error" and "ZeroDivisionError" in detail["error"]
    assert detail["input"]["evaluate_dataset_fields"]["reference_output"]["text"] == "ERROR"
    assert detail["final_verdict"] == "unknown" and detail["evaluator"] == str(evaluator.public_id)


def test_verdict_filter_uses_the_human_correction(api, finished, user):
    result = Result.objects.filter(experiment=finished, verdict="fail").first()
    services.result_correct(result=result, user=user, verdict="pass", note="synonym")
    base = f"{URL}{finished.public_id}/results/"
    assert api.get(base + "?verdict=pass").json()["count"] == 21
    assert api.get(base + "?verdict=fail").json()["count"] == 15


@pytest.mark.parametrize(
    "query, field",
    [
        ("verdict=maybe", "verdict"),
        ("status=fine", "status"),
        ("score_min=high", "score_min"),
        ("score_max=nan", "score_max"),
        ("evaluator=abc", "evaluator"),
    ],
)
def test_bad_result_filters_name_the_filter(api, finished, query, field):
    error = error_of(api.get(f"{URL}{finished.public_id}/results/?{query}"))
    assert field in error["details"]


def test_result_of_another_experiment_is_404(api, finished, workspace, user, evaluator_version):
    other = services.experiment_create(
        workspace=workspace,
        user=user,
        name="other",
        evalset_version=finished.evalset_version,
        bindings=[{"evaluator_version": evaluator_version}],
    )
    result = Result.objects.filter(experiment=finished).first()
    assert api.get(f"{URL}{other.public_id}/results/{result.pk}/").status_code == 404
    assert api.get(f"{URL}{finished.public_id}/results/999999/").status_code == 404


# ----------------------------------------------------------------------------- bad input


@pytest.fixture
def foreign(outsider):
    """An evalset version and an evaluator version of another workspace."""
    other = Workspace.objects.get(slug="other")
    return {
        "evalset_version": make_evalset_version(workspace=other, user=outsider, rows=qa_rows(2)),
        "evaluator_version": make_code_version(workspace=other, user=outsider),
    }


@pytest.fixture
def image_version(workspace, user):
    columns = TEXT_COLUMNS + [
        {"name": "photo", "content_type": "Image", "required": False, "description": ""}
    ]
    return make_evalset_version(
        workspace=workspace, user=user, rows=qa_rows(2), name="Pics", columns=columns
    )


def binding_with(body, **changes):
    return {**body, "bindings": [{**body["bindings"][0], **changes}]}


BAD_BODIES = {
    "unmapped required variable": (
        lambda b, x: binding_with(b, mapping={"actual_output": "column:actual_output"}),
        "bindings[0].mapping",
        "Required variable 'reference_output' is not mapped",
    ),
    "mapping to a missing column": (
        lambda b, x: binding_with(b, mapping={**MAPPING, "actual_output": "column:answer"}),
        "bindings[0].mapping",
        "column the evalset does not have",
    ),
    "wrong content type": (
        lambda b, x: {
            **binding_with(b, mapping={**MAPPING, "actual_output": "column:photo"}),
            "evalset_version": str(x["image"].public_id),
        },
        "bindings[0].mapping",
        "is Text but column 'photo' is Image",
    ),
    "target output without a target": (
        lambda b, x: binding_with(b, mapping={**MAPPING, "actual_output": "target:actual_output"}),
        "bindings[0].mapping",
        "has no target",
    ),
    "evaluator version of another workspace": (
        lambda b, x: binding_with(b, evaluator_version=str(x["evaluator_version"].public_id)),
        "bindings[0].evaluator_version",
        "No such evaluator version",
    ),
    "evaluator version that does not exist": (
        lambda b, x: binding_with(b, evaluator_version="00000000-0000-0000-0000-000000000000"),
        "bindings[0].evaluator_version",
        "No such evaluator version",
    ),
    "evalset version of another workspace": (
        lambda b, x: {**b, "evalset_version": str(x["evalset_version"].public_id)},
        "evalset_version",
        "No such evalset version",
    ),
    "evalset version that is not an id": (
        lambda b, x: {**b, "evalset_version": "latest"},
        "evalset_version",
        "name@version",
    ),
    "bad policy": (
        lambda b, x: binding_with(b, policy={"kind": "threshold", "threshold": 3}),
        "bindings[0].policy",
        "threshold",
    ),
    "unknown binding field": (lambda b, x: binding_with(b, weight=2), "bindings[0]", "weight"),
    "unknown body field": (lambda b, x: {**b, "priority": "high"}, "priority", "Unknown"),
    "no evaluators": (lambda b, x: {**b, "bindings": []}, "bindings", "at least one"),
    "no name": (lambda b, x: {**b, "name": "  "}, "name", "needs a name"),
    "concurrency out of range": (lambda b, x: {**b, "concurrency": 0}, "concurrency", "between"),
    "chunk size out of range": (lambda b, x: {**b, "chunk_size": 5}, "chunk_size", "between"),
    "prompt target without a provider": (
        lambda b, x: {
            **b,
            "target": {"kind": "prompt", "messages": [{"role": "user", "content": "{{input}}"}]},
        },
        "target.provider_id",
        "provider",
    ),
    "target that is not an object": (lambda b, x: {**b, "target": "gpt"}, "target", "object"),
    "same evaluator version twice": (
        lambda b, x: {**b, "bindings": b["bindings"] * 2},
        "bindings[1]",
        "already",
    ),
}


# every case as a draft, and a few with launch: true (a failed create must not launch anything)
BAD_CASES = [(case, False) for case in BAD_BODIES] + [
    (case, True)
    for case in (
        "unmapped required variable",
        "evalset version of another workspace",
        "no evaluators",
    )
]


@pytest.mark.parametrize("case, launch", BAD_CASES)
def test_bad_create_is_400_naming_the_field_and_saves_nothing(
    api, body, foreign, image_version, case, launch
):
    make, field, words = BAD_BODIES[case]
    payload = {**make(body, {**foreign, "image": image_version}), "launch": launch}
    error = error_of(api.post(URL, payload, format="json"))
    assert field in error["details"], error
    assert words in str(error["details"][field]), error
    assert Experiment.objects.count() == 0 and ExperimentChunk.objects.count() == 0


def test_prompt_target_placeholder_must_be_a_text_column(api, body, workspace):
    from assay import services as platform

    provider = platform.provider_create(
        workspace=workspace, name="p", base_url="http://x.test/v1", default_model="m"
    )
    target = {
        "kind": "prompt",
        "provider_id": str(provider.public_id),
        "messages": [{"role": "user", "content": "Answer {{question}}"}],
    }
    error = error_of(api.post(URL, {**body, "target": target}, format="json"))
    assert "{{question}} is not a Text column" in str(error["details"]["target.messages"])
    target["messages"][0]["content"] = "Answer {{input}}"
    mapping = {**MAPPING, "actual_output": "target:actual_output"}
    ok = api.post(URL, {**binding_with(body, mapping=mapping), "target": target}, format="json")
    assert ok.status_code == 201, ok.content
    assert ok.json()["target"]["kind"] == "prompt" and ok.json()["target_kind"] == "prompt"


def test_launching_twice_is_400(api, body):
    eid = api.post(URL, body, format="json").json()["id"]
    assert api.post(f"{URL}{eid}/launch/").status_code == 202
    error = error_of(api.post(f"{URL}{eid}/launch/"))
    assert "status" in error["details"] and "Only a draft" in error["message"]
    assert ExperimentChunk.objects.count() == 4  # no second set of chunks


def test_cancel(api, body, finished):
    eid = api.post(URL, {**body, "launch": True}, format="json").json()["id"]
    cancelled = api.post(f"{URL}{eid}/cancel/")
    assert cancelled.status_code == 202 and cancelled.json()["status"] == "cancelled"
    error = error_of(api.post(f"{URL}{finished.public_id}/cancel/"))
    assert "completed experiment cannot be cancelled" in error["message"]
    draft = api.post(URL, body, format="json").json()["id"]
    assert "draft experiment cannot" in error_of(api.post(f"{URL}{draft}/cancel/"))["message"]
    assert Experiment.objects.get(public_id=draft).status == ExperimentStatus.DRAFT


def test_retry_failed(api, finished, workspace, user, evalset_version):
    response = api.post(f"{URL}{finished.public_id}/retry-failed/")
    assert response.status_code == 202, response.content
    assert response.json()["retried"] == 4
    assert (response.json()["target_rows"], response.json()["evaluator_rows"]) == (0, 4)
    assert response.json()["experiment"]["status"] == "queued"
    done = engine.experiment_run_inline(experiment_id=finished.pk)
    assert done.status == ExperimentStatus.COMPLETED and done.retry_round == 1
    assert Result.objects.filter(experiment=done, attempt=1).count() == 4


def test_retry_with_nothing_failed_is_400(api, workspace, user):
    version = make_evalset_version(workspace=workspace, user=user, rows=qa_rows(6), name="ok")
    ev = make_code_version(workspace=workspace, user=user, name="C2")
    experiment = services.experiment_create(
        workspace=workspace,
        user=user,
        name="clean",
        evalset_version=version,
        bindings=[{"evaluator_version": ev}],
    )
    assert "finished" in error_of(api.post(f"{URL}{experiment.public_id}/retry-failed/"))["message"]
    services.experiment_launch(experiment=experiment)
    engine.experiment_run_inline(experiment_id=experiment.pk)
    error = error_of(api.post(f"{URL}{experiment.public_id}/retry-failed/"))
    assert "no failed rows" in error["message"]
    experiment.refresh_from_db()
    assert experiment.status == ExperimentStatus.COMPLETED and experiment.retry_round == 0


@pytest.fixture
def stricter(workspace, user, evaluator_version):
    """Version 1.1.0 of the same evaluator: case-sensitive."""
    evaluator = evaluator_version.evaluator
    source = evaluator_version.config["source"].replace(
        "reference.lower() in output.lower()", "reference in output"
    )
    evaluator_services.evaluator_update_draft(
        evaluator=evaluator, user=user, config={**evaluator_version.config, "source": source}
    )
    return evaluator_services.evaluator_submit_version(
        evaluator=evaluator, user=user, version="1.1.0"
    )


def test_clone_with_a_new_version(api, finished, stricter):
    evaluator = stricter.evaluator
    response = api.post(
        f"{URL}{finished.public_id}/clone/",
        {"name": "stricter", "versions": {str(evaluator.public_id): "1.1.0"}},
        format="json",
    )
    assert response.status_code == 201, response.content
    clone = response.json()
    assert clone["name"] == "stricter" and clone["status"] == "draft"
    assert clone["bindings"][0]["version"] == "1.1.0"
    assert clone["cloned_from"] == str(finished.public_id)
    assert clone["evalset_version"] == str(finished.evalset_version.public_id)
    plain = api.post(f"{URL}{finished.public_id}/clone/", {}, format="json").json()
    assert plain["name"] == "done (clone)" and plain["bindings"][0]["version"] == "1.0.0"


@pytest.mark.parametrize(
    "make, field",
    [
        (lambda e, f: {"versions": {str(e.public_id): "9.9.9"}}, "versions.{e}"),
        (
            lambda e, f: {"versions": {str(f["evaluator_version"].evaluator.public_id): "1.0.0"}},
            "versions.{f}",
        ),
        (lambda e, f: {"evalset_version": str(f["evalset_version"].public_id)}, "evalset_version"),
        (lambda e, f: {"evalset": "x"}, "evalset"),
    ],
)
def test_bad_clone_is_400_and_saves_nothing(api, finished, foreign, make, field):
    evaluator = finished.bindings.get().evaluator_version.evaluator
    payload = make(evaluator, foreign)
    error = error_of(api.post(f"{URL}{finished.public_id}/clone/", payload, format="json"))
    expected = field.format(
        e=evaluator.public_id, f=foreign["evaluator_version"].evaluator.public_id
    )
    assert expected in error["details"], error
    assert Experiment.objects.count() == 1


def test_clone_onto_an_evalset_version_missing_a_column_names_the_mapping(
    api, finished, workspace, user
):
    columns = [c for c in TEXT_COLUMNS if c["name"] != "reference_output"]
    rows = [{"input": "q", "actual_output": "a"}]
    bare = make_evalset_version(
        workspace=workspace, user=user, rows=rows, name="Bare", columns=columns
    )
    payload = {"evalset_version": str(bare.public_id)}
    error = error_of(api.post(f"{URL}{finished.public_id}/clone/", payload, format="json"))
    assert "bindings[0].mapping" in error["details"]
    assert Experiment.objects.count() == 1


# ----------------------------------------------------------------------------- access


def test_outsider_gets_404_everywhere(outsider_api, finished):
    result = Result.objects.filter(experiment=finished).first()
    base = f"{URL}{finished.public_id}/"
    assert outsider_api.get(URL).json()["results"] == []
    for path in ("", "results/", f"results/{result.pk}/"):
        assert outsider_api.get(base + path).status_code == 404, path
    for path in ("launch/", "cancel/", "retry-failed/", "clone/"):
        assert outsider_api.post(base + path, {}, format="json").status_code == 404, path
    finished.refresh_from_db()
    assert finished.status == ExperimentStatus.COMPLETED and Experiment.objects.count() == 1


def test_outsider_cannot_create_on_our_evalset(outsider_api, body):
    other = Workspace.objects.get(slug="other")
    assert other.experiments.count() == 0
    error = error_of(outsider_api.post(URL, body, format="json"))
    assert "evalset_version" in error["details"]
    assert Experiment.objects.count() == 0


def test_viewer_reads_but_cannot_write(member, api_client_for, workspace, finished, body):
    viewer = api_client_for(workspace, member("vic", Membership.Role.VIEWER))
    assert viewer.get(f"{URL}{finished.public_id}/").status_code == 200
    assert viewer.get(f"{URL}{finished.public_id}/results/").status_code == 200
    assert viewer.post(URL, body, format="json").status_code == 403
    assert viewer.post(f"{URL}{finished.public_id}/retry-failed/").status_code == 403
    assert Experiment.objects.count() == 1


def test_unauthenticated_is_rejected(client, finished):
    assert client.get(f"{URL}{finished.public_id}/").status_code in (401, 403)
