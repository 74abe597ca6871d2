"""The evaluator library through the API: the whole flow, every bad input, outsiders."""

import pytest

from evaluators.models import Evaluator, EvaluatorVersion

pytestmark = pytest.mark.django_db

URL = "/api/v1/evaluators/"


def error_of(response):
    return response.json()["error"]


def test_flow_template_edit_submit_diff_copy_delete_restore(api, provider, templates):
    created = api.post(URL, {"template": "correctness", "name": "Correct?"}, format="json")
    assert created.status_code == 201, created.content
    body = created.json()
    eid = body["id"]
    assert body["kind"] == "llm" and body["template"] == "correctness"
    assert body["config"]["model"]["provider_id"] == str(provider.public_id)

    v1 = api.post(
        f"{URL}{eid}/versions/", {"version": "0.0.1", "change_note": "first"}, format="json"
    )
    assert v1.status_code == 201, v1.content
    config = body["config"]
    config["model"]["temperature"] = 0.3
    patched = api.patch(f"{URL}{eid}/", {"config": config, "description": "tuned"}, format="json")
    assert patched.status_code == 200 and patched.json()["draft_changed"] is True
    v2 = api.post(f"{URL}{eid}/versions/", {"version": "0.0.2"}, format="json")
    assert v2.status_code == 201
    assert api.get(f"{URL}{eid}/").json()["latest_version"] == "0.0.2"

    listed = api.get(f"{URL}{eid}/versions/").json()["results"]
    assert [v["version"] for v in listed] == ["0.0.2", "0.0.1"]
    diff = api.get(f"{URL}{eid}/versions/diff/?old=0.0.1&new=0.0.2").json()
    assert {c["path"] for c in diff["changes"]} == {"model.temperature"}
    assert diff["changes"][0]["old"] == 0.0 and diff["changes"][0]["new"] == 0.3

    copy = api.post(f"{URL}{eid}/copy/")
    assert copy.status_code == 201 and copy.json()["name"] == "Correct? (copy)"
    assert api.post(f"{URL}{eid}/copy/").json()["name"] == "Correct? (copy 2)"

    assert api.delete(f"{URL}{eid}/").status_code == 204
    assert eid not in [e["id"] for e in api.get(URL).json()["results"]]
    assert eid in [e["id"] for e in api.get(URL + "?deleted=1").json()["results"]]
    # versions of a deleted evaluator stay resolvable (experiments pin them)
    assert api.get(f"{URL}{eid}/versions/0.0.1/").status_code == 200
    assert api.post(f"{URL}{eid}/restore/").json()["deleted"] is False


def test_create_blank_kinds(api):
    code = api.post(
        URL, {"name": "JS check", "kind": "code", "language": "javascript"}, format="json"
    )
    assert code.status_code == 201 and code.json()["config"]["language"] == "javascript"
    llm = api.post(URL, {"name": "Judge", "kind": "llm"}, format="json")
    assert llm.status_code == 201 and llm.json()["config"]["messages"]


def test_list_filters_and_sort(api, workspace, user):
    from evaluators import services

    services.evaluator_create(workspace=workspace, user=user, name="beta", kind="llm", tags=["rag"])
    services.evaluator_create(workspace=workspace, user=user, name="alpha", kind="code")
    names = lambda q: [e["name"] for e in api.get(URL + q).json()["results"]]  # noqa: E731
    assert names("?sort=name") == ["alpha", "beta"]
    assert names("?kind=code") == ["alpha"]
    assert names("?tag=rag") == ["beta"]
    assert names("?q=ALP") == ["alpha"]
    assert names("?creator=alice&sort=-name") == ["beta", "alpha"]
    assert names("?creator=nobody") == []


@pytest.mark.parametrize(
    "payload, field",
    [
        ({"name": "x", "kind": "sql"}, "kind"),
        ({"kind": "llm"}, "name"),
        (
            {
                "name": "x",
                "kind": "llm",
                "config": {
                    "input_variables": [{"name": "q", "content_type": "Video"}],
                    "messages": [{"role": "user", "content": "{{q}}"}],
                    "model": {"model": "m"},
                },
            },
            "config.input_variables[0].content_type",
        ),
        (
            {
                "name": "x",
                "kind": "code",
                "config": {"input_variables": [], "language": "python", "source": "x" * 70000},
            },
            "config.source",
        ),
        (
            {"name": "x", "kind": "code", "default_policy": {"kind": "threshold", "threshold": 2}},
            "default_policy",
        ),
        ({"name": "x", "template": "no-such-template"}, "template"),
    ],
)
def test_bad_create_names_the_field_and_saves_nothing(api, payload, field):
    response = api.post(URL, payload, format="json")
    assert response.status_code == 400, response.content
    assert field in error_of(response)["details"], error_of(response)
    assert Evaluator.objects.count() == 0


def test_duplicate_name(api):
    assert api.post(URL, {"name": "Same", "kind": "llm"}, format="json").status_code == 201
    response = api.post(URL, {"name": "Same", "kind": "code"}, format="json")
    assert response.status_code == 400 and "name" in error_of(response)["details"]
    assert Evaluator.objects.count() == 1


def test_rename_to_taken_name_is_rejected(api, workspace, user):
    from evaluators import services

    services.evaluator_create(workspace=workspace, user=user, name="taken", kind="code")
    other = services.evaluator_create(workspace=workspace, user=user, name="other", kind="code")
    response = api.patch(f"{URL}{other.public_id}/", {"name": "taken"}, format="json")
    assert response.status_code == 400 and "name" in error_of(response)["details"]
    other.refresh_from_db()
    assert other.name == "other"


def test_undeclared_variable_blocks_submit(api, provider, workspace, user):
    from evaluators import services

    evaluator = services.evaluator_create(workspace=workspace, user=user, name="j", kind="llm")
    config = dict(evaluator.draft_config)
    config["model"] = {**config["model"], "provider_id": str(provider.public_id)}
    config["messages"] = [{"role": "user", "content": "{{input}} {{output}} {{ghost}}"}]
    assert (
        api.patch(f"{URL}{evaluator.public_id}/", {"config": config}, format="json").status_code
        == 200
    )
    response = api.post(
        f"{URL}{evaluator.public_id}/versions/", {"version": "0.0.1"}, format="json"
    )
    assert response.status_code == 400
    assert "ghost" in error_of(response)["message"]
    assert EvaluatorVersion.objects.count() == 0


def test_unconfigured_model_blocks_submit(api, workspace, user):
    from evaluators import services

    evaluator = services.evaluator_create(workspace=workspace, user=user, name="j", kind="llm")
    response = api.post(
        f"{URL}{evaluator.public_id}/versions/", {"version": "0.0.1"}, format="json"
    )
    assert response.status_code == 400
    assert any(k.startswith("config.model") for k in error_of(response)["details"])


@pytest.mark.parametrize(
    "version, message",
    [
        ("1.0", "1.0"),
        ("v1.0.0", "v1.0.0"),
        ("01.0.0", "01.0.0"),
        ("0.0.1", "not greater"),
        ("0.0.0", "not greater"),
        ("0.0.1-rc.1", "not greater"),
    ],
)
def test_bad_versions(api, code_evaluator, version, message):
    url = f"{URL}{code_evaluator.public_id}/versions/"
    assert api.post(url, {"version": "0.0.1"}, format="json").status_code == 201
    response = api.post(url, {"version": version}, format="json")
    assert response.status_code == 400
    assert "version" in error_of(response)["details"]
    assert message in error_of(response)["message"]
    assert EvaluatorVersion.objects.count() == 1


def test_code_that_does_not_parse_blocks_submit(api, code_evaluator):
    config = dict(code_evaluator.draft_config)
    config["source"] = "def exec_evaluation(turn):\n    return (\n"
    api.patch(f"{URL}{code_evaluator.public_id}/", {"config": config}, format="json")
    response = api.post(
        f"{URL}{code_evaluator.public_id}/versions/", {"version": "1.0.0"}, format="json"
    )
    assert response.status_code == 400
    assert "config.source" in error_of(response)["details"]
    assert "line" in error_of(response)["message"]


def test_code_without_contract_or_with_forbidden_import_blocks_submit(api, code_evaluator):
    url = f"{URL}{code_evaluator.public_id}/"
    for source, expected in [
        ("def evaluate(turn):\n    return 1\n", "exec_evaluation"),
        ("import os\ndef exec_evaluation(turn):\n    return 1\n", "os"),
    ]:
        config = {**code_evaluator.draft_config, "source": source}
        assert api.patch(url, {"config": config}, format="json").status_code == 200
        response = api.post(url + "versions/", {"version": "1.0.0"}, format="json")
        assert response.status_code == 400, source
        assert expected in error_of(response)["message"]
    assert EvaluatorVersion.objects.count() == 0


def test_versions_have_no_update_path(api, code_evaluator):
    url = f"{URL}{code_evaluator.public_id}/versions/"
    api.post(url, {"version": "0.0.1"}, format="json")
    for method in ("put", "patch", "delete"):
        response = getattr(api, method)(url + "0.0.1/", {"change_note": "x"}, format="json")
        assert response.status_code == 405, method
    assert EvaluatorVersion.objects.get().change_note == ""


def test_read_only_fields_cannot_be_patched(api, code_evaluator):
    response = api.patch(f"{URL}{code_evaluator.public_id}/", {"kind": "llm"}, format="json")
    assert response.status_code == 400 and "kind" in error_of(response)["details"]


def test_outsider_gets_404_everywhere(outsider_api, code_evaluator, api):
    api.post(f"{URL}{code_evaluator.public_id}/versions/", {"version": "0.0.1"}, format="json")
    base = f"{URL}{code_evaluator.public_id}/"
    for method, url in [
        ("get", base),
        ("patch", base),
        ("delete", base),
        ("post", base + "copy/"),
        ("post", base + "restore/"),
        ("get", base + "versions/"),
        ("post", base + "versions/"),
        ("get", base + "versions/0.0.1/"),
        ("get", base + "versions/diff/?old=0.0.1"),
    ]:
        response = getattr(outsider_api, method)(
            url, {"name": "pwned", "version": "9.9.9"}, format="json"
        )
        assert response.status_code == 404, (method, url, response.status_code)
    assert outsider_api.get(URL).json()["count"] == 0
    code_evaluator.refresh_from_db()
    assert code_evaluator.name == "Exact match" and code_evaluator.deleted_at is None


def test_viewer_can_read_not_write(member, workspace, api_client_for, code_evaluator):
    viewer = api_client_for(workspace, member("vera", "viewer"))
    assert viewer.get(URL).json()["count"] == 1
    assert (
        viewer.patch(f"{URL}{code_evaluator.public_id}/", {"name": "x"}, format="json").status_code
        == 403
    )
    assert viewer.post(URL, {"name": "n", "kind": "llm"}, format="json").status_code == 403


def test_templates_endpoint(api, templates):
    listed = api.get("/api/v1/evaluator-templates/?page_size=100").json()["results"]
    kinds = [t["kind"] for t in listed]
    assert kinds.count("llm") >= 10 and kinds.count("code") >= 8
    equal = api.get("/api/v1/evaluator-templates/equal/").json()
    assert equal["languages"] == ["javascript", "python"]
