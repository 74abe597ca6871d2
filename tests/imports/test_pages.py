"""The imports pages: past imports and one upload form per importer, an upload that leads to
its report (each source and what it became, links to what was made), a problem shown on the
file it names, roles, outsiders, escaping and Chinese."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from django.utils import translation
from django.utils.html import escape

from assay.models import Membership
from imports.kinds import KINDS
from imports.models import ImportRun
from imports.services import import_run

FIXTURES = Path(__file__).parent.parent / "fixtures" / "openai_evals"
DEFINITION = (FIXTURES / "definition.json").read_bytes()
DATA = (FIXTURES / "data.jsonl").read_bytes()

pytestmark = pytest.mark.django_db


def _post(web, workspace, data=DATA, definition=DEFINITION):
    url = reverse("imports:create", kwargs={"ws": workspace.slug, "kind": "openai-evals"})
    return web.post(
        url,
        {
            "openai-evals-definition": SimpleUploadedFile("eval.json", definition),
            "openai-evals-data": SimpleUploadedFile("data.jsonl", data),
            "openai-evals-options": "",
        },
    )


def test_the_page_has_a_form_for_every_importer_and_the_experiments_list_links_it(web, workspace):
    html = web.get(reverse("imports:list", kwargs={"ws": workspace.slug})).content.decode()
    for name, kind in KINDS.items():
        assert f'id="import-{name}"' in html
        for spec in kind.files:
            assert f'name="{name}-{spec.name}"' in html
    assert 'id="no-imports"' in html
    experiments = web.get(reverse("experiments:list", kwargs={"ws": workspace.slug}))
    assert reverse("imports:list", kwargs={"ws": workspace.slug}) in experiments.content.decode()


def test_an_upload_leads_to_its_report(web, workspace):
    response = _post(web, workspace)
    run = ImportRun.objects.get(workspace=workspace)
    detail = reverse("imports:detail", kwargs={"ws": workspace.slug, "id": run.public_id})
    assert response.status_code == 302 and response["Location"] == detail
    html = web.get(detail).content.decode()
    assert "testing_criteria[0] string_check" in html and "metric exact_match" in html
    assert "Not imported" in html and "no Assay counterpart" in html
    experiment = run.report["created"]["experiment"][0]
    assert reverse("experiments:detail", kwargs={"ws": workspace.slug, "id": experiment}) in html
    listed = web.get(reverse("imports:list", kwargs={"ws": workspace.slug})).content.decode()
    assert detail in listed and "eval.json" in listed
    again = _post(web, workspace)  # the same files: the first import's report
    assert again["Location"] == detail and ImportRun.objects.count() == 1


def test_a_problem_is_shown_on_the_file_it_names(web, workspace):
    response = _post(web, workspace, data=b'{"item": {}}\n{"item": 3}')
    html = response.content.decode()
    assert response.status_code == 400
    assert "data, line 2: a row is" in html
    assert ImportRun.objects.get(workspace=workspace).status == "failed"


def test_a_viewer_reads_and_cannot_import(client, workspace, member):
    viewer = member("vera", Membership.Role.VIEWER)
    run, _ = import_run(
        workspace=workspace,
        user=viewer,
        kind="openai-evals",
        files={"definition": DEFINITION, "data": DATA},
    )
    client.force_login(viewer)
    page = client.get(reverse("imports:list", kwargs={"ws": workspace.slug})).content.decode()
    assert 'id="import-openai-evals-submit"' not in page
    detail = reverse("imports:detail", kwargs={"ws": workspace.slug, "id": run.public_id})
    assert client.get(detail).status_code == 200
    assert _post(client, workspace).status_code == 403


def test_outsiders_reach_no_import(client, workspace, user, outsider):
    run, _ = import_run(
        workspace=workspace,
        user=user,
        kind="openai-evals",
        files={"definition": DEFINITION, "data": DATA},
    )
    client.force_login(outsider)
    for ws in ("acme", "other"):
        detail = reverse("imports:detail", kwargs={"ws": ws, "id": run.public_id})
        assert client.get(detail).status_code == 404
    assert client.get(reverse("imports:list", kwargs={"ws": "acme"})).status_code == 404
    mine = client.get(reverse("imports:list", kwargs={"ws": "other"})).content.decode()
    assert str(run.public_id) not in mine


def test_untrusted_text_is_escaped(web, workspace):
    definition = json.loads(DEFINITION)
    definition["testing_criteria"][8]["name"] = "<script>alert(1)</script>"
    _post(web, workspace, definition=json.dumps(definition).encode())
    run = ImportRun.objects.get(workspace=workspace)
    html = web.get(reverse("imports:detail", kwargs={"ws": workspace.slug, "id": run.public_id}))
    assert b"<script>alert(1)" not in html.content and b"&lt;script&gt;" in html.content


def test_the_pages_speak_chinese(web, workspace):
    _post(web, workspace)
    run = ImportRun.objects.get(workspace=workspace)
    page = web.get(
        reverse("imports:list", kwargs={"ws": workspace.slug}), HTTP_ACCEPT_LANGUAGE="zh-hans"
    )
    html = page.content.decode()
    assert "导入" in html and "过往导入" in html and "Past imports" not in html
    # every importer's file help is Chinese on the page (promptfoo's were English)
    with translation.override("zh-hans"):
        helps = [str(spec.help) for kind in KINDS.values() for spec in kind.files]
    assert all(re.search("[\u4e00-\u9fff]", help) for help in helps), helps
    assert all(escape(help) in html for help in helps)
    assert "the tests file the config names" not in html.lower()
    detail = web.get(
        reverse("imports:detail", kwargs={"ws": workspace.slug, "id": run.public_id}),
        HTTP_ACCEPT_LANGUAGE="zh-hans",
    ).content.decode()
    assert "报告" in detail and "未导入" in detail and "Not imported" not in detail
