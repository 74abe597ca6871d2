"""Provider keys stay with the host they were given for: a new base URL drops the key, only
owners change providers, and a provider's error body that echoes the key is scrubbed."""

import pytest
from django.urls import reverse

from assay import services
from assay.models import Membership, ModelProvider, Secret
from evaluators.services import evaluator_debug
from experiments import scoring as engine
from experiments import services as experiment_services
from experiments.models import Result
from tests.support.factories import make_evalset_version, make_llm_evaluator, make_provider

pytestmark = pytest.mark.django_db

KEY = "sk-live-THIS-MUST-NEVER-LEAK-0123456789"
TURN = {
    "evaluate_dataset_fields": {"input": {"content_type": "Text", "text": "q [[script:%s]]"}},
    "evaluate_target_output_fields": {"output": {"content_type": "Text", "text": "a"}},
}


def turn(script: str) -> dict:
    fields = {"input": {"content_type": "Text", "text": f"q [[script:{script}]]"}}
    return {**TURN, "evaluate_dataset_fields": fields}


def test_new_base_url_drops_the_stored_key_before_any_call(api, workspace, user, llm_server):
    provider = services.provider_create(
        workspace=workspace, name="P", base_url="https://p.test/v1", default_model="m", api_key=KEY
    )
    response = api.patch(
        f"/api/v1/providers/{provider.public_id}/", {"base_url": llm_server.base_url}, format="json"
    )
    assert response.status_code == 200, response.content
    assert response.json()["has_api_key"] is False
    assert Secret.objects.count() == 0
    judge = make_llm_evaluator(workspace=workspace, user=user, provider=provider)
    evaluator_debug(evaluator=judge, turns=[turn("clean")])
    sent = llm_server.chat_requests()
    assert sent and all(KEY not in str(r.headers) and KEY not in str(r.body) for r in sent)


def test_new_base_url_with_a_new_key_keeps_only_the_new_key(api, workspace):
    provider = services.provider_create(
        workspace=workspace, name="P", base_url="https://p.test/v1", default_model="m", api_key=KEY
    )
    body = {"base_url": "https://q.test/v1", "api_key": "sk-other-key-for-q-0000"}
    assert (
        api.patch(f"/api/v1/providers/{provider.public_id}/", body, format="json").status_code
        == 200
    )
    provider.refresh_from_db()
    assert services.secret_reveal(secret=provider.api_key) == "sk-other-key-for-q-0000"
    assert Secret.objects.count() == 1


def test_the_same_base_url_keeps_the_key(api, workspace):
    provider = services.provider_create(
        workspace=workspace, name="P", base_url="https://p.test/v1", default_model="m", api_key=KEY
    )
    body = {"base_url": "https://p.test/v1", "timeout_s": 20}
    assert (
        api.patch(f"/api/v1/providers/{provider.public_id}/", body, format="json").status_code
        == 200
    )
    provider.refresh_from_db()
    assert services.secret_reveal(secret=provider.api_key) == KEY


def test_the_page_form_drops_the_key_on_a_new_base_url(web, workspace):
    provider = services.provider_create(
        workspace=workspace, name="P", base_url="https://p.test/v1", default_model="m", api_key=KEY
    )
    url = reverse("settings_provider", kwargs={"ws": "acme", "provider_id": provider.public_id})
    form = {
        "name": "P",
        "base_url": "https://evil.test/v1",
        "default_model": "m",
        "timeout_s": 60,
        "rpm_limit": 600,
        "structured_mode": "json_object",
        "max_retries": 4,
    }
    assert web.post(url, form).status_code == 302
    provider.refresh_from_db()
    assert provider.api_key_id is None and Secret.objects.count() == 0


@pytest.mark.parametrize("role", [Membership.Role.EDITOR, Membership.Role.VIEWER])
def test_only_owners_create_change_or_delete_providers(member, workspace, api_client_for, role):
    provider = services.provider_create(
        workspace=workspace, name="P", base_url="https://p.test/v1", default_model="m", api_key=KEY
    )
    client = api_client_for(workspace, member("eddie", role))
    assert client.get("/api/v1/providers/").status_code == 200  # editors pick providers
    body = {"name": "x", "base_url": "https://x.test/v1", "default_model": "m"}
    assert client.post("/api/v1/providers/", body, format="json").status_code == 403
    url = f"/api/v1/providers/{provider.public_id}/"
    assert client.patch(url, {"base_url": "https://evil.test/v1"}, format="json").status_code == 403
    assert client.delete(url).status_code == 403
    provider.refresh_from_db()
    assert provider.base_url == "https://p.test/v1" and provider.api_key_id


def test_editor_pages_cannot_change_providers(client, member, workspace):
    provider = services.provider_create(
        workspace=workspace, name="P", base_url="https://p.test/v1", default_model="m", api_key=KEY
    )
    client.force_login(member("eddie", Membership.Role.EDITOR))
    edit = reverse("settings_provider", kwargs={"ws": "acme", "provider_id": provider.public_id})
    page = client.get(edit)
    assert page.status_code == 200 and b"Only owners" in page.content
    form = {
        "name": "P",
        "base_url": "https://evil.test/v1",
        "default_model": "m",
        "timeout_s": 60,
        "rpm_limit": 600,
        "structured_mode": "json_object",
        "max_retries": 4,
    }
    assert client.post(edit, form).status_code == 403
    new = reverse("settings_provider_new", kwargs={"ws": "acme"})
    assert client.post(new, {**form, "name": "Q"}).status_code == 403
    delete = reverse(
        "settings_provider_delete", kwargs={"ws": "acme", "provider_id": provider.public_id}
    )
    assert client.post(delete).status_code == 403
    assert ModelProvider.objects.get().base_url == "https://p.test/v1"


@pytest.mark.parametrize("script", ["echo_key", "echo_key:masked"])
def test_error_bodies_that_echo_the_key_are_scrubbed(workspace, user, llm_server, script):
    provider = make_provider(workspace=workspace, server=llm_server, api_key=KEY)
    judge = make_llm_evaluator(workspace=workspace, user=user, provider=provider)
    (outcome,) = evaluator_debug(evaluator=judge, turns=[turn(script)])
    assert outcome.status == "error" and "HTTP 401" in outcome.error
    assert "Incorrect API key provided" in outcome.error
    assert (
        KEY not in outcome.error and KEY[:12] not in outcome.error and "[redacted]" in outcome.error
    )


def test_stored_results_never_hold_the_echoed_key(workspace, user, llm_server):
    from evaluators import services as evaluator_services

    provider = make_provider(workspace=workspace, server=llm_server, api_key=KEY)
    judge = make_llm_evaluator(workspace=workspace, user=user, provider=provider)
    version = evaluator_services.evaluator_submit_version(
        evaluator=judge, user=user, version="1.0.0"
    )
    columns = [
        {"name": n, "content_type": "Text", "required": True, "description": ""}
        for n in ("input", "output")
    ]
    evalset = make_evalset_version(
        workspace=workspace,
        user=user,
        columns=columns,
        rows=[{"input": "q [[script:echo_key]]", "output": "a"}],
    )
    experiment = experiment_services.experiment_create(
        workspace=workspace,
        user=user,
        name="e",
        evalset_version=evalset,
        bindings=[{"evaluator_version": version}],
    )
    experiment_services.experiment_launch(experiment=experiment)
    engine.experiment_run_inline(experiment_id=experiment.pk)
    result = Result.objects.get()
    assert result.status == "error" and "401" in result.error
    assert KEY not in str(Result.objects.values().get())


def test_scrub_removes_whole_and_masked_echoes_but_not_words():
    from assay.safety.redact import scrub

    assert scrub(f"bad key {KEY} given", KEY) == "bad key [redacted] given"
    assert KEY[:8] not in scrub(f"key {KEY[:8]}****{KEY[-4:]} refused", KEY)
    assert KEY[:10] not in scrub(f"key {KEY[:10]}...{KEY[-4:]} refused", KEY)
    plain = "the model gpt-4o-mini is not available at https://x.test/v1"
    assert scrub(plain, KEY) == plain
