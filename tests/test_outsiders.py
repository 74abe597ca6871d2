"""An outsider reaches nothing of Acme's: not through Acme's URLs, not through their own
workspace's URLs with Acme's ids, not with their own token, and not with Acme's ids inside the
bodies they send. One case per URL, so one failure never hides another."""

import pytest
from django.core.files.base import ContentFile
from django.urls import reverse

from assay.models import Workspace
from evalsets import services as evalset_services
from evaluators import services as evaluator_services
from experiments.models import Result
from tests.support.acme import Acme, acme_build
from tests.support.factories import (
    make_code_version,
    make_evalset_version,
    make_llm_evaluator,
    qa_rows,
    run_inline,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def acme(workspace, user, settings, tmp_path, llm_server) -> Acme:
    settings.MEDIA_ROOT = tmp_path
    return acme_build(workspace=workspace, user=user, server=llm_server)


PAGES = [
    ("evaluators:detail", "evaluator", {}),
    ("evaluators:versions", "evaluator", {}),
    ("evaluators:version", "evaluator", {"version": "version"}),
    ("evaluators:version_restore", "evaluator", {"version": "version"}),
    ("evaluators:submit", "evaluator", {}),
    ("evaluators:copy", "evaluator", {}),
    ("evaluators:delete", "evaluator", {}),
    ("evaluators:restore", "evaluator", {}),
    ("evaluators:debug", "evaluator", {}),
    ("evaluators:debug_upload", "evaluator", {}),
    ("evaluators:debug_rows", "evaluator", {}),
    ("evaluators:debug_evalsets", "evaluator", {}),
    ("evaluators:testcase_save", "evaluator", {}),
    ("evaluators:tests_run", "evaluator", {}),
    ("evaluators:testcase_delete", "evaluator", {"case_id": "case"}),
    ("evalsets:detail", "evalset", {}),
    ("evalsets:columns", "evalset", {}),
    ("evalsets:row_new", "evalset", {}),
    ("evalsets:row_edit", "evalset", {"item_id": "item"}),
    ("evalsets:row_delete", "evalset", {"item_id": "item"}),
    ("evalsets:versions", "evalset", {}),
    ("evalsets:commit", "evalset", {}),
    ("evalsets:export", "evalset", {}),
    ("evalsets:delete", "evalset", {}),
    ("evalsets:import", "evalset", {}),
    ("evalsets:import_job", "evalset", {"job_id": "job"}),
    ("evalsets:import_progress", "evalset", {"job_id": "job"}),
    ("evalsets:import_errors", "evalset", {"job_id": "job"}),
    ("evalsets:import_retry", "evalset", {"job_id": "job"}),
    ("experiments:import_garak_job", None, {"id": "garak_job"}),
    ("experiments:import_garak_progress", None, {"id": "garak_job"}),
    ("experiments:detail", "experiment", {}),
    ("experiments:progress", "experiment", {}),
    ("experiments:launch", "experiment", {}),
    ("experiments:cancel", "experiment", {}),
    ("experiments:retry", "experiment", {}),
    ("experiments:clone", "experiment", {}),
    ("experiments:dashboard", "experiment", {}),
    ("experiments:result", "experiment", {"result_id": "result"}),
    ("experiments:result_correct", "experiment", {"result_id": "result"}),
    ("experiments:export", "experiment", {"fmt": "csv"}),
    ("experiments:rescore", "experiment", {}),
    ("experiments:baseline", "experiment", {}),
    ("experiments:detail_target_test", "experiment", {}),
    ("compare:item", "experiment", {"candidate": "experiment", "item": "item"}),
    ("settings_provider", None, {"provider_id": "provider"}),
    ("settings_provider_delete", None, {"provider_id": "provider"}),
    ("settings_provider_test", None, {"provider_id": "provider"}),
    ("settings_token_revoke", None, {"token_id": "token"}),
    ("settings_ingest_key_revoke", None, {"ingest_key_id": "ingest_key"}),
    ("settings_member_change", None, {"member_id": "member"}),
    ("settings_invitation_revoke", None, {"invitation_id": "invitation"}),
    ("settings_secret_delete", None, {"secret_id": "secret"}),
]


def page_url(name: str, owner: str | None, extra: dict, acme: Acme, ws: str) -> str:
    kwargs = {"ws": ws}
    if owner:
        kwargs["id"] = getattr(acme, owner)
    for key, attr in extra.items():
        kwargs[key] = getattr(acme, attr) if hasattr(acme, attr) else attr
    return reverse(name, kwargs=kwargs)


@pytest.mark.parametrize("ws", ["acme", "other"], ids=["their-url", "own-workspace-url"])
@pytest.mark.parametrize("method", ["get", "post"])
@pytest.mark.parametrize(("name", "owner", "extra"), PAGES, ids=[p[0] for p in PAGES])
def test_pages_are_404(client, outsider, acme, ws, method, name, owner, extra):
    client.force_login(outsider)
    url = page_url(name, owner, extra, acme, ws)
    response = getattr(client, method)(url, {"action": "remove", "verdict": "pass", "note": "x"})
    assert response.status_code in (404, 405), (url, response.status_code)
    if response.status_code == 405:  # this view takes only the other method, which must 404
        other = client.get if method == "post" else client.post
        assert other(url, {"action": "remove"}).status_code == 404, url


def test_acme_is_untouched_after_every_outsider_request(client, outsider, acme):
    client.force_login(outsider)
    for name, owner, extra in PAGES:
        for ws in ("acme", "other"):
            client.post(page_url(name, owner, extra, acme, ws), {"action": "remove"})
    from evaluators.models import Evaluator
    from experiments.models import Experiment

    assert Evaluator.objects.get(public_id=acme.evaluator).deleted_at is None
    assert Experiment.objects.get(public_id=acme.experiment).status == "completed"
    assert Workspace.objects.get(slug="acme").memberships.count() == 1


E, S, X = "/api/v1/evaluators/", "/api/v1/evalsets/", "/api/v1/experiments/"
API = [
    ("get", E + "{evaluator}/"),
    ("patch", E + "{evaluator}/"),
    ("delete", E + "{evaluator}/"),
    ("post", E + "{evaluator}/copy/"),
    ("post", E + "{evaluator}/restore/"),
    ("post", E + "{evaluator}/debug"),
    ("get", E + "{evaluator}/versions/"),
    ("post", E + "{evaluator}/versions/"),
    ("get", E + "{evaluator}/versions/{version}/"),
    ("get", E + "{evaluator}/test-cases/"),
    ("post", E + "{evaluator}/test-cases/"),
    ("get", E + "{evaluator}/test-cases/{case}/"),
    ("delete", E + "{evaluator}/test-cases/{case}/"),
    ("get", S + "{evalset}/"),
    ("patch", S + "{evalset}/"),
    ("delete", S + "{evalset}/"),
    ("get", S + "{evalset}/items/"),
    ("post", S + "{evalset}/items/"),
    ("get", S + "{evalset}/items/{item}/"),
    ("patch", S + "{evalset}/items/{item}/"),
    ("get", S + "{evalset}/versions/"),
    ("post", S + "{evalset}/versions/"),
    ("get", S + "{evalset}/imports/"),
    ("get", S + "{evalset}/imports/{job}/"),
    ("get", S + "{evalset}/export/?format=csv"),
    ("get", X + "import-garak/{garak_job}/"),
    ("get", X + "{experiment}/"),
    ("get", X + "{experiment}/results/"),
    ("get", X + "{experiment}/results/{result}/"),
    ("post", X + "{experiment}/results/{result}/correct"),
    ("post", X + "{experiment}/launch/"),
    ("post", X + "{experiment}/cancel/"),
    ("post", X + "{experiment}/retry-failed/"),
    ("post", X + "{experiment}/clone/"),
    ("get", X + "{experiment}/export/?format=csv"),
    ("post", X + "{experiment}/outputs/"),
    ("post", X + "{experiment}/close/"),
    ("post", X + "{experiment}/rescore/"),
    ("post", X + "{experiment}/baseline/"),
    ("get", X + "gate/?baseline={experiment}&candidate={experiment}"),
    ("get", "/api/v1/compare?baseline={experiment}&candidates={experiment}"),
    ("get", "/api/v1/compare/{experiment}/vs/{experiment}/items/{item}"),
    ("get", "/api/v1/providers/{provider}/"),
    ("patch", "/api/v1/providers/{provider}/"),
    ("delete", "/api/v1/providers/{provider}/"),
    ("post", "/api/v1/providers/{provider}/test-connection/"),
    ("get", "/api/v1/secrets/{secret}/"),
    ("put", "/api/v1/secrets/{secret}/"),
    ("delete", "/api/v1/secrets/{secret}/"),
    ("get", "/api/v1/tokens/{token}/"),
    ("post", "/api/v1/tokens/{token}/revoke/"),
    ("patch", "/api/v1/members/{member}/"),
    ("delete", "/api/v1/members/{member}/"),
    ("delete", "/api/v1/invitations/{invitation}/"),
    ("get", "/api/v1/workspaces/acme/"),
]


@pytest.mark.parametrize(("method", "template"), API, ids=[f"{m} {t}" for m, t in API])
def test_api_with_the_outsiders_own_token_is_404(outsider_api, acme, method, template):
    url = template.format(**vars(acme))
    body = {"name": "pwned", "version": "9.9.9", "verdict": "pass", "note": "x", "role": "owner"}
    response = getattr(outsider_api, method)(url, None if method == "get" else body, format="json")
    assert response.status_code == 404, (url, response.status_code, response.content[:200])
    assert response.json()["error"]["code"] == "not_found"


@pytest.fixture
def own(outsider):
    workspace = Workspace.objects.get(slug="other")
    return workspace


def error_fields(response) -> set[str]:
    assert response.status_code == 400, response.content[:300]
    return set(response.json()["error"]["details"])


def test_foreign_ids_in_an_experiment_body_are_refused(outsider_api, acme, own, outsider):
    mine = make_evalset_version(workspace=own, user=outsider, rows=qa_rows(2), name="Mine")
    theirs = {"evalset_version": acme.set_version, "name": "x", "bindings": []}
    assert "evalset_version" in error_fields(outsider_api.post(X, theirs, format="json"))
    from evaluators.models import EvaluatorVersion

    acme_version = EvaluatorVersion.objects.get(evaluator__public_id=acme.evaluator)
    body = {
        "evalset_version": str(mine.public_id),
        "name": "x",
        "bindings": [{"evaluator_version": str(acme_version.public_id)}],
        "target": {
            "kind": "prompt",
            "provider_id": acme.provider,
            "messages": [{"role": "user", "content": "{{input}}"}],
        },
    }
    fields = error_fields(outsider_api.post(X, body, format="json"))
    assert {"bindings[0].evaluator_version", "target.provider_id"} <= fields


def test_foreign_ids_in_the_new_experiment_bodies_are_refused(outsider_api, acme, own, outsider):
    mine = make_evalset_version(workspace=own, user=outsider, rows=qa_rows(2), name="Mine")
    tried = {"evalset_version": acme.set_version, "target": {"kind": "external"}}
    assert "evalset_version" in error_fields(
        outsider_api.post(X + "target-test/", tried, format="json")
    )
    acme_name = Workspace.objects.get(slug="acme").evalsets.get().name
    by_name = {"evalset_version": f"{acme_name}@1.0.0", "name": "x", "bindings": []}
    assert "evalset_version" in error_fields(outsider_api.post(X, by_name, format="json"))
    rescore = {
        "evalset_version": str(mine.public_id),
        "name": "x",
        "bindings": [],
        "target": {"kind": "rescore", "experiment": acme.experiment},
    }
    assert "target.experiment" in error_fields(outsider_api.post(X, rescore, format="json"))
    http = {
        "evalset_version": str(mine.public_id),
        "target": {
            "kind": "http",
            "url": "http://127.0.0.1:9/x",
            "headers": {"Authorization": "{{secrets.APP_TOKEN}}"},
        },
    }
    assert "target.headers" in error_fields(
        outsider_api.post(X + "target-test/", http, format="json")
    )


def test_an_outsiders_judge_never_uses_another_workspaces_provider(
    outsider_api, acme, own, outsider, llm_server
):
    from assay.models import ModelProvider

    acme_provider = ModelProvider.objects.get(public_id=acme.provider)
    judge = make_llm_evaluator(workspace=own, user=outsider, provider=acme_provider)
    turn = {
        "evaluate_dataset_fields": {"input": {"content_type": "Text", "text": "q"}},
        "evaluate_target_output_fields": {"output": {"content_type": "Text", "text": "a"}},
    }
    response = outsider_api.post(f"{E}{judge.public_id}/debug", {"turns": [turn]}, format="json")
    assert response.status_code == 200, response.content[:300]
    outcome = response.json()["results"][0]
    assert outcome["status"] == "error" and "no model provider" in outcome["error"]
    submitted = outsider_api.post(
        f"{E}{judge.public_id}/versions/", {"version": "1.0.0"}, format="json"
    )
    assert submitted.status_code == 400
    assert llm_server.chat_requests() == []  # nothing went to Acme's endpoint, with or without key


def test_debug_rows_from_another_workspaces_set_are_404(client, outsider, acme, own):
    mine = evaluator_services.evaluator_create(workspace=own, user=outsider, name="m", kind="code")
    client.force_login(outsider)
    url = reverse("evaluators:debug_rows", kwargs={"ws": "other", "id": mine.public_id})
    assert client.get(url, {"evalset": acme.evalset}).status_code == 404


def test_clone_cannot_swap_in_another_workspaces_versions(outsider_api, acme, own, outsider):
    version = make_evalset_version(workspace=own, user=outsider, rows=qa_rows(2), name="Mine")
    ev = make_code_version(workspace=own, user=outsider, name="Mine")
    mine = run_inline(workspace=own, user=outsider, version=version, evaluator_version=ev)
    body = {"versions": {acme.evaluator: acme.version}, "evalset_version": acme.set_version}
    response = outsider_api.post(f"{X}{mine.public_id}/clone/", body, format="json")
    assert response.status_code == 400
    assert Result.objects.filter(experiment__workspace=own).count() == 2


def test_a_simulated_user_never_runs_on_another_workspaces_provider(
    outsider_api, acme, own, outsider, llm_server
):
    columns = [{"name": n, "content_type": "Text", "required": True} for n in ("persona", "goal")]
    mine = make_evalset_version(
        workspace=own,
        user=outsider,
        rows=[{"persona": "p", "goal": "g"}],
        columns=columns,
        name="Mine",
    )
    app = {
        "kind": "prompt",
        "provider_id": acme.provider,
        "messages": [{"role": "system", "content": "Help."}],
    }
    target = {
        "kind": "simulated_user",
        "provider_id": acme.provider,
        "persona": "persona",
        "goal": "goal",
        "app": app,
    }
    body = {"evalset_version": str(mine.public_id), "name": "x", "bindings": [], "target": target}
    fields = error_fields(outsider_api.post(X, body, format="json"))
    assert {"target.provider_id", "target.app.provider_id"} <= fields
    tried = {"evalset_version": str(mine.public_id), "target": target}
    fields = error_fields(outsider_api.post(X + "target-test/", tried, format="json"))
    assert {"target.provider_id", "target.app.provider_id"} <= fields
    assert llm_server.chat_requests() == []


def test_a_rows_file_never_finds_or_changes_another_workspaces_set(
    outsider_api, workspace, user, settings, tmp_path
):
    from django.core.files.uploadedfile import SimpleUploadedFile

    from evalsets.importing import evalset_version_from_rows
    from evalsets.models import EvalSetVersion

    settings.MEDIA_ROOT = tmp_path
    rows = b"input\nq\n"
    acme, _created = evalset_version_from_rows(
        workspace=workspace, user=user, upload=SimpleUploadedFile("qa.csv", rows)
    )
    sent = {"file": SimpleUploadedFile("qa.csv", rows), "name": "qa"}
    response = outsider_api.post(S + "from-rows/", sent, format="multipart")
    assert response.status_code == 201, response.content[:300]  # a set of their own
    made = response.json()
    assert made["evalset"] != str(acme.evalset.public_id) and made["id"] != str(acme.public_id)
    assert EvalSetVersion.objects.get(public_id=made["id"]).evalset.workspace.slug == "other"
    assert acme.evalset.versions.count() == 1


def test_acmes_rows_and_files_in_the_outsiders_bodies_are_refused(outsider_api, acme, outsider):
    """Ids that name rows or stored files, not objects: Acme's are no rows or files of the
    outsider's sets and runs (a test request, pushed outputs, an item's media cell)."""
    from evalsets.demo import png_bytes
    from evalsets.items.media import media_store
    from evalsets.models import EvalSetVersion

    own = Workspace.objects.get(slug="other")
    mine = make_evalset_version(workspace=own, user=outsider, rows=qa_rows(2), name="Mine")
    acme_version = EvalSetVersion.objects.get(public_id=acme.set_version)
    row = str(acme_version.items.order_by("position").first().item_id)
    tried = {
        "evalset_version": str(mine.public_id),
        "target": {"kind": "http", "url": "http://127.0.0.1:9/x"},
        "item_id": row,
    }
    assert error_fields(outsider_api.post(X + "target-test/", tried, format="json")) == {"item_id"}

    check = make_code_version(workspace=own, user=outsider, name="Mine")
    bindings = [{"evaluator_version": str(check.public_id)}]
    body = {"evalset_version": str(mine.public_id), "name": "pushed", "bindings": bindings}
    created = outsider_api.post(X, {**body, "target": {"kind": "external"}}, format="json")
    assert created.status_code == 201, created.content[:300]
    pushed = {"outputs": [{"item_id": row, "actual_output": "Paris"}]}
    run = created.json()["id"]
    assert outsider_api.post(f"{X}{run}/launch/", format="json").status_code == 202
    url = f"{X}{run}/outputs/"
    assert error_fields(outsider_api.post(url, pushed, format="json")) == {"outputs[0]"}

    image = ContentFile(png_bytes(1, 1, lambda x, y: (0, 0, 0)), name="a.png")
    uri = media_store(workspace=Workspace.objects.get(slug="acme"), upload=image)["image"]["uri"]
    columns = [
        {"name": "input", "content_type": "Text", "required": True},
        {"name": "photo", "content_type": "Image", "required": False},
    ]
    pictures = evalset_services.evalset_create(
        workspace=own, user=outsider, name="Pictures", columns=columns
    )
    item = {"data": {"input": "q", "photo": uri}}
    response = outsider_api.post(f"{S}{pictures.public_id}/items/", item, format="json")
    assert any("photo" in field for field in error_fields(response)), response.json()
    assert pictures.items.count() == 0


# ----------------------------------------------------------------------------- human review


@pytest.fixture
def review(acme, workspace, user) -> dict:
    """Acme's score config, a queue asking for it, and one of Acme's results as its item."""
    from annotation.selectors import SourceItem
    from annotation.services import annotation_queue_create, queue_items_add, score_config_create

    fields = {"name": "Correct?", "kind": "boolean"}
    config = score_config_create(workspace=workspace, user=user, fields=fields)
    queue = annotation_queue_create(
        workspace=workspace, user=user, fields={"name": "Review"}, score_configs=[config]
    )
    queue_items_add(queue=queue, items=[SourceItem("experiment_result", str(acme.result), {})])
    return {
        "config": str(config.public_id),
        "queue": str(queue.public_id),
        "item": str(queue.items.get().public_id),
    }


def acme_trace(workspace) -> None:
    """One stored span of Acme's (and its trace's summary), trace id ab…ab."""
    from django.utils import timezone

    from traces.ingest.storing import rows_insert
    from traces.models import Span

    now = timezone.now()
    span = Span(
        workspace=workspace,
        trace_id="ab" * 16,
        span_id="cd" * 8,
        name="agent",
        start_time=now,
        end_time=now,
        duration_ms=0,
        received_at=now,
    )
    rows_insert([span])


C, Q = "/api/v1/score-configs/", "/api/v1/annotation-queues/"
REVIEW_API = [
    ("get", C + "{config}/"),
    ("patch", C + "{config}/"),
    ("delete", C + "{config}/"),
    ("get", Q + "{queue}/"),
    ("patch", Q + "{queue}/"),
    ("delete", Q + "{queue}/"),
    ("post", Q + "{queue}/next/"),
    ("get", Q + "{queue}/agreement/"),
    ("get", Q + "{queue}/items/"),
    ("post", Q + "{queue}/items/"),
    ("get", Q + "{queue}/items/{item}/"),
    ("post", Q + "{queue}/items/{item}/labels/"),
    ("post", Q + "{queue}/items/{item}/skip/"),
    ("get", Q + "{queue}/disagreements/"),
    ("get", Q + "{queue}/calibration/"),
    ("post", Q + "{queue}/items/{item}/adjudicate/"),
    ("post", Q + "{queue}/sources/"),
    ("get", Q + "{queue}/feeds/"),
    ("post", Q + "{queue}/feeds/"),
    ("get", Q + "{queue}/assignment/"),
    ("post", Q + "{queue}/assignment/"),
]


@pytest.mark.parametrize(
    ("method", "template"), REVIEW_API, ids=[f"{m} {t}" for m, t in REVIEW_API]
)
def test_review_api_with_the_outsiders_own_token_is_404(outsider_api, review, method, template):
    from annotation.models import Adjudication, AnnotationQueue, ReviewSlot

    url = template.format(**review)
    body = {"name": "pwned", "values": {review["config"]: True}, "reason": "x", "blind": True}
    response = getattr(outsider_api, method)(url, None if method == "get" else body, format="json")
    assert response.status_code == 404, (url, response.status_code, response.content[:200])
    assert response.json()["error"]["code"] == "not_found"
    assert ReviewSlot.objects.count() == Adjudication.objects.count() == 0
    assert AnnotationQueue.objects.filter(name="Review", blind=False).count() == 1


def test_acmes_review_ids_in_the_outsiders_bodies_are_refused(
    outsider_api, acme, review, own, outsider, user
):
    from annotation.models import QueueItem

    theirs = {"name": "Q", "score_configs": [review["config"]]}
    assert error_fields(outsider_api.post(Q, theirs, format="json")) == {"score_configs[0]"}
    mine = outsider_api.post(C, {"name": "Mine", "kind": "boolean"}, format="json").json()
    queue = outsider_api.post(Q, {"name": "Q", "score_configs": [mine["id"]]}, format="json")
    judges = {"adjudicators": [user.username]}  # Acme's owner judges no queue of theirs
    named = outsider_api.patch(f"{Q}{queue.json()['id']}/", judges, format="json")
    assert error_fields(named) == {"adjudicators[0]"}
    url = f"{Q}{queue.json()['id']}/items/"
    acmes = {"experiment": acme.experiment, "results": [acme.result]}
    assert error_fields(outsider_api.post(url, acmes, format="json")) == {"experiment"}
    version = make_evalset_version(workspace=own, user=outsider, rows=qa_rows(1), name="Mine")
    code = make_code_version(workspace=own, user=outsider, name="Mine")
    experiment = run_inline(workspace=own, user=outsider, version=version, evaluator_version=code)
    body = {"experiment": str(experiment.public_id), "results": [acme.result]}
    assert error_fields(outsider_api.post(url, body, format="json")) == {"results[0]"}
    acme_trace(Workspace.objects.get(slug="acme"))
    spans = {"traces": ["ab" * 16]}
    assert error_fields(outsider_api.post(url, spans, format="json")) == {"traces[0]"}
    assert QueueItem.objects.exclude(queue__workspace__slug="acme").count() == 0
