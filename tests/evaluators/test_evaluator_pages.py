"""Evaluator pages with the Django test client: flows, bad input, outsiders, escaping."""

import json

import pytest
from django.urls import reverse

from evaluators import services
from evaluators.models import Evaluator, EvaluatorVersion

pytestmark = pytest.mark.django_db


def url(name, **kwargs):
    return reverse(f"evaluators:{name}", kwargs={"ws": "acme", **kwargs})


def draft_post(evaluator, **overrides):
    data = {
        "name": evaluator.name,
        "description": evaluator.description,
        "tags": "",
        "score_meaning": evaluator.score_meaning,
        "policy_kind": "threshold",
        "threshold": "0.5",
        "config_json": json.dumps(evaluator.draft_config),
    }
    data.update(overrides)
    return data


def test_new_page_lists_templates_and_creates(web, templates):
    page = web.get(url("new"))
    assert page.status_code == 200
    assert page.content.decode().count('name="source" value="template:') == templates.count()
    response = web.post(
        url("new"), {"name": "Mine", "source": "template:regex", "language": "javascript"}
    )
    evaluator = Evaluator.objects.get(name="Mine")
    assert response.status_code == 302 and str(evaluator.public_id) in response["Location"]
    assert evaluator.draft_config["language"] == "javascript"


def test_new_with_duplicate_name_shows_error(web, code_evaluator):
    response = web.post(url("new"), {"name": "Exact match", "source": "code"})
    assert response.status_code == 200
    assert "already exists" in response.content.decode()
    assert Evaluator.objects.count() == 1


def test_save_draft_and_submit_from_pages(web, code_evaluator):
    detail = url("detail", id=code_evaluator.public_id)
    assert web.get(detail).status_code == 200
    config = {**code_evaluator.draft_config, "timeout_s": 3.0}
    response = web.post(
        detail, draft_post(code_evaluator, config_json=json.dumps(config), tags="exact, strings")
    )
    assert response.status_code == 302
    code_evaluator.refresh_from_db()
    assert code_evaluator.tags == ["exact", "strings"]
    assert code_evaluator.draft_config["timeout_s"] == 3.0
    submitted = web.post(
        url("submit", id=code_evaluator.public_id), {"version": "0.0.1", "change_note": "first"}
    )
    assert submitted.status_code == 302
    assert EvaluatorVersion.objects.get().change_note == "first"
    bad = web.post(url("submit", id=code_evaluator.public_id), {"version": "0.0.1"})
    assert bad.status_code == 400 and "not greater" in bad.content.decode()


def test_bad_draft_names_the_field_and_saves_nothing(web, code_evaluator):
    before = dict(code_evaluator.draft_config)
    detail = url("detail", id=code_evaluator.public_id)
    broken = web.post(detail, draft_post(code_evaluator, config_json="{not json"))
    assert broken.status_code == 200 and "not valid JSON" in broken.content.decode()
    bad_type = {**before, "input_variables": [{"name": "x", "content_type": "Video"}]}
    response = web.post(detail, draft_post(code_evaluator, config_json=json.dumps(bad_type)))
    assert "input_variables[0].content_type" in response.content.decode()
    code_evaluator.refresh_from_db()
    assert code_evaluator.draft_config == before


def test_versions_page_shows_side_by_side_diff(web, code_evaluator, user):
    services.evaluator_submit_version(evaluator=code_evaluator, user=user, version="0.0.1")
    source = code_evaluator.draft_config["source"].replace("equals", "matches")
    services.evaluator_update_draft(
        evaluator=code_evaluator,
        user=user,
        config={**code_evaluator.draft_config, "source": source},
    )
    services.evaluator_submit_version(evaluator=code_evaluator, user=user, version="0.0.2")
    page = web.get(url("versions", id=code_evaluator.public_id) + "?old=0.0.1&new=0.0.2")
    html = page.content.decode()
    assert 'class="diff-del"' in html and 'class="diff-add"' in html
    assert "matches the reference" in html and "equals the reference" in html


def test_copy_delete_restore_pages(web, code_evaluator):
    copied = web.post(url("copy", id=code_evaluator.public_id))
    assert copied.status_code == 302
    assert Evaluator.objects.filter(name="Exact match (copy)").exists()
    web.post(url("delete", id=code_evaluator.public_id))
    listing = web.get(url("list")).content.decode()
    assert "Exact match (copy)" in listing and ">Exact match<" not in listing
    assert ">Exact match<" in web.get(url("list") + "?deleted=1").content.decode()
    web.post(url("restore", id=code_evaluator.public_id))
    code_evaluator.refresh_from_db()
    assert code_evaluator.deleted_at is None


def test_list_filters(web, workspace, user):
    services.evaluator_create(
        workspace=workspace, user=user, name="judge-one", kind="llm", tags=["rag"]
    )
    services.evaluator_create(workspace=workspace, user=user, name="code-one", kind="code")
    html = web.get(url("list") + "?kind=llm").content.decode()
    assert "judge-one" in html and "code-one" not in html
    html = web.get(url("list") + "?q=code").content.decode()
    assert "code-one" in html and "judge-one" not in html


def test_untrusted_text_is_escaped(web, workspace, user):
    evil = "<script>alert(1)</script><img src=x onerror=alert(2)>"
    evaluator = services.evaluator_create(
        workspace=workspace, user=user, name=evil[:100], kind="code", description=evil
    )
    for page in [
        url("list"),
        url("detail", id=evaluator.public_id),
        url("versions", id=evaluator.public_id),
    ]:
        html = web.get(page).content.decode()
        assert "<script>alert(1)" not in html and "<img src=x" not in html
        assert "&lt;script&gt;" in html


def test_outsider_pages_are_404(client, outsider, code_evaluator):
    client.force_login(outsider)
    eid = code_evaluator.public_id
    for name in ("detail", "versions"):
        assert client.get(url(name, id=eid)).status_code == 404
    for name in ("detail", "submit", "copy", "delete", "restore"):
        assert client.post(url(name, id=eid), {"version": "9.9.9"}).status_code == 404
    other = reverse("evaluators:detail", kwargs={"ws": "other", "id": eid})
    assert client.get(other).status_code == 404
    code_evaluator.refresh_from_db()
    assert code_evaluator.deleted_at is None and not code_evaluator.versions.exists()


def test_viewer_cannot_post(client, member, code_evaluator):
    client.force_login(member("vic", "viewer"))
    assert client.get(url("detail", id=code_evaluator.public_id)).status_code == 200
    assert client.post(url("delete", id=code_evaluator.public_id)).status_code == 403


def test_the_code_editor_lists_what_python_may_import(web, code_evaluator):
    from sandbox.limits import PYTHON_IMPORTS

    url = reverse("evaluators:detail", kwargs={"ws": "acme", "id": code_evaluator.public_id})
    page = web.get(url).content.decode()
    assert 'id="python-imports"' in page
    assert all(f"<code>{m}</code>" in page for m in PYTHON_IMPORTS)
