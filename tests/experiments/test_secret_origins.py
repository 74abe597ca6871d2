"""A workspace secret goes only to the origins its owner listed: an editor's HTTP target (or Test
request) that would carry it elsewhere is refused at save and at send, naming the secret and the
origin, and nothing reaches the other server. Through the API, the pages and a real worker."""

import pytest
from django.urls import reverse

from assay.models import Membership, Secret
from experiments.models import Experiment, TargetResult
from tests.experiments.test_http_target import by_question, row, rows_version
from tests.support.app_server import ScriptedApp
from tests.support.factories import make_code_version

SECRET = "app-token-0123456789-abcdef"
SECRETS = "/api/v1/secrets/"
EXPERIMENTS = "/api/v1/experiments/"


@pytest.fixture
def thief():
    """A server of the editor's choice, where the secret must never arrive."""
    with ScriptedApp() as server:
        yield server


@pytest.fixture
def editor_api(member, workspace, api_client_for):
    return api_client_for(workspace, member("eddie", Membership.Role.EDITOR))


@pytest.fixture
def stored(api, app):
    """APP_TOKEN, stored by the owner through the API for the app's origin only."""
    answer = api.post(
        SECRETS, {"name": "APP_TOKEN", "value": SECRET, "origins": [app.origin]}, format="json"
    )
    assert answer.status_code == 201, answer.content
    return answer.json()


def create_body(version, contains, url: str) -> dict:
    return {
        "name": "exfiltrate",
        "evalset_version": str(version.public_id),
        "bindings": [{"evaluator_version": str(contains.public_id)}],
        "target": target_to(url),
    }


def target_to(url: str) -> dict:
    return {
        "kind": "http",
        "url": url,
        "headers": {"X-Steal": "{{secrets.APP_TOKEN}}"},
        "body": {"question": "{{question}}"},
        "output": "answer",
        "max_retries": 0,
    }


def headers_problems(answer) -> list[str]:
    assert answer.status_code == 400, answer.content
    return answer.json()["error"]["details"]["target.headers"]


def try_target(client, body: dict):
    return client.post(EXPERIMENTS + "target-test/", body, format="json")


def received(server) -> bool:
    return any(SECRET in str(r.headers) for r in server.requests)


# ----------------------------------------------------------------------------- at save


def test_an_editors_target_to_another_origin_is_refused_naming_secret_and_origin(
    workspace, user, app, thief, stored, editor_api
):
    version = rows_version(workspace, user, [row("q1")])
    contains = make_code_version(workspace=workspace, user=user)
    answer = editor_api.post(EXPERIMENTS, create_body(version, contains, thief.url), format="json")
    [problem] = headers_problems(answer)
    assert "APP_TOKEN" in problem and thief.origin in problem and app.origin in problem
    assert not Experiment.objects.exists()
    # the Test request is refused the same way, and nothing is sent
    tried = {"evalset_version": str(version.public_id), "target": target_to(thief.url)}
    [problem] = headers_problems(try_target(editor_api, tried))
    assert "APP_TOKEN" in problem and thief.origin in problem
    assert thief.calls == 0
    # to the allowed origin the same target is fine, and the app gets the value
    tried["target"] = target_to(app.url)
    answer = editor_api.post(EXPERIMENTS + "target-test/", tried, format="json")
    assert answer.status_code == 200 and answer.json()["status"] == "success", answer.content
    assert received(app) and not received(thief)


@pytest.mark.parametrize(
    "url",
    [
        "{thief}/answer",
        "http://127.0.0.1:{app_port}@127.0.0.1:{thief_port}/answer",  # a user name, not a host
        "http://localhost:{app_port}/answer",  # the same server by another name
    ],
)
def test_every_spelling_of_another_origin_is_refused(
    workspace, user, app, thief, stored, editor_api, url
):
    version = rows_version(workspace, user, [row("q1")])
    url = url.format(thief=thief.origin, app_port=app.port, thief_port=thief.port)
    tried = {"evalset_version": str(version.public_id), "target": target_to(url)}
    [problem] = headers_problems(try_target(editor_api, tried))
    assert "may not be sent to" in problem
    assert not received(app) and not received(thief)


def test_a_secret_without_origins_goes_nowhere(workspace, user, app, api, editor_api):
    answer = api.post(SECRETS, {"name": "APP_TOKEN", "value": SECRET}, format="json")
    assert answer.status_code == 201 and answer.json()["origins"] == []
    version = rows_version(workspace, user, [row("q1")])
    tried = {"evalset_version": str(version.public_id), "target": target_to(app.url)}
    [problem] = headers_problems(try_target(editor_api, tried))
    assert "APP_TOKEN" in problem and app.origin in problem and "no allowed origins" in problem
    assert app.calls == 0


def test_a_simulated_users_app_is_held_to_the_same_origins(
    workspace, user, llm_server, thief, stored, editor_api
):
    from tests.experiments.test_simulated_user import http_app, make_provider, scenario, scenarios
    from tests.experiments.test_simulated_user import target as simulated

    version = scenarios(workspace, user, [scenario()])
    app = http_app(thief, headers={"Authorization": "Bearer {{secrets.APP_TOKEN}}"})
    tried = {
        "evalset_version": str(version.public_id),
        "target": simulated(make_provider(workspace, llm_server), app),
    }
    answer = editor_api.post(EXPERIMENTS + "target-test/", tried, format="json")
    assert answer.status_code == 400, answer.content
    [problem] = answer.json()["error"]["details"]["target.app.headers"]
    assert "APP_TOKEN" in problem and thief.origin in problem
    assert thief.calls == 0


# ----------------------------------------------------------------------------- at send


@pytest.mark.django_db(transaction=True)
def test_origins_taken_back_hold_at_send_in_the_worker_and_the_test_request(
    celery_worker_inproc, workspace, user, app, web, api, editor_api
):
    """Saved while the app's origin was allowed; the owner then moves the secret to another
    origin: the stored target's rows are refused by the worker, naming the secret and the
    origin, and so is the experiment page's Test request. The app never sees the value."""
    from tests.experiments.conftest import wait_for

    stored = api.post(
        SECRETS, {"name": "APP_TOKEN", "value": SECRET, "origins": [app.origin]}, format="json"
    ).json()
    version = rows_version(workspace, user, [row("q1"), row("q2")])
    contains = make_code_version(workspace=workspace, user=user)
    answer = editor_api.post(EXPERIMENTS, create_body(version, contains, app.url), format="json")
    assert answer.status_code == 201, answer.content
    moved = {"origins": ["https://app.example.com"]}
    assert api.put(SECRETS + f"{stored['id']}/", moved, format="json").status_code == 200
    experiment = Experiment.objects.get(public_id=answer.json()["id"])
    assert editor_api.post(EXPERIMENTS + f"{experiment.public_id}/launch/").status_code == 202
    done = lambda: Experiment.objects.get(pk=experiment.pk).status == "completed"  # noqa: E731
    wait_for(done, timeout=60, what="the run to complete")
    for row_ in by_question(experiment, TargetResult).values():
        assert row_.status == "error"
        assert row_.error.startswith("the request was not sent: The secret APP_TOKEN")
        assert app.origin in row_.error and "https://app.example.com" in row_.error
    page = reverse(
        "experiments:detail_target_test", kwargs={"ws": "acme", "id": experiment.public_id}
    )
    shown = web.post(page).content.decode()
    assert "may not be sent to" in shown and app.origin in shown
    assert app.calls == 0


def test_a_secret_deleted_after_save_is_a_row_error_not_an_empty_header(
    workspace, user, app, stored, api, editor_api
):
    from experiments import scoring as engine

    version = rows_version(workspace, user, [row("q1")])
    contains = make_code_version(workspace=workspace, user=user)
    answer = editor_api.post(EXPERIMENTS, create_body(version, contains, app.url), format="json")
    assert answer.status_code == 201, answer.content
    assert api.delete(SECRETS + f"{stored['id']}/").status_code == 204
    experiment = Experiment.objects.get(public_id=answer.json()["id"])
    assert editor_api.post(EXPERIMENTS + f"{experiment.public_id}/launch/").status_code == 202
    experiment = engine.experiment_run_inline(experiment_id=experiment.pk)
    [result] = TargetResult.objects.filter(experiment=experiment)
    assert result.status == "error" and "no secret named 'APP_TOKEN'" in result.error
    assert app.calls == 0


# ----------------------------------------------------------------------------- the secret


def test_origins_are_readable_the_value_write_only_and_kept_when_only_origins_change(
    workspace, user, app, stored, api, member, api_client_for
):
    viewer = api_client_for(workspace, member("vera", Membership.Role.VIEWER))
    listed = viewer.get(SECRETS).json()["results"]
    assert [(s["name"], s["origins"]) for s in listed] == [("APP_TOKEN", [app.origin])]
    assert SECRET not in str(listed) and "value" not in listed[0]
    more = {"origins": [app.origin, "HTTPS://Api.Example.COM:443/"]}
    changed = api.put(SECRETS + f"{stored['id']}/", more, format="json")
    assert changed.status_code == 200, changed.content
    assert changed.json()["origins"] == [app.origin, "https://api.example.com"]
    version = rows_version(workspace, user, [row("q1")])
    tried = {"evalset_version": str(version.public_id), "target": target_to(app.url)}
    assert api.post(EXPERIMENTS + "target-test/", tried, format="json").status_code == 200
    assert received(app)  # the value was kept


@pytest.mark.parametrize(
    "origins",
    [["https://app.example.com/v1"], ["app.example.com"], ["ftp://app.example.com"], "x"],
)
def test_a_bad_origin_is_named_and_nothing_saved(api, origins):
    answer = api.post(
        SECRETS, {"name": "APP_TOKEN", "value": SECRET, "origins": origins}, format="json"
    )
    assert answer.status_code == 400, answer.content
    assert "origins" in answer.json()["error"]["details"]
    assert not Secret.objects.exclude(name="").exists()


@pytest.mark.parametrize("role", [Membership.Role.EDITOR, Membership.Role.VIEWER])
def test_only_owners_set_origins(workspace, app, stored, member, api_client_for, role):
    client = api_client_for(workspace, member("eddie", role))
    answer = client.put(SECRETS + f"{stored['id']}/", {"origins": ["http://evil"]}, format="json")
    assert answer.status_code == 403
    assert Secret.objects.get(name="APP_TOKEN").origins == [app.origin]


def test_an_outsider_cannot_read_or_set_origins(app, stored, outsider_api):
    url = SECRETS + f"{stored['id']}/"
    assert outsider_api.get(url).status_code == 404
    answer = outsider_api.put(url, {"origins": ["http://evil"]}, format="json")
    assert answer.status_code == 404
    assert Secret.objects.get(name="APP_TOKEN").origins == [app.origin]
