"""The small things a run's page says (issue 28, minor): a code evaluator's cost reads "—"
(the API keeps null), row numbers instead of item ids in titles, no throughput for a run Assay
did not execute, "not enough history" in words."""

from __future__ import annotations

import re

import pytest

from tests.support.factories import make_code_version, make_evalset_version, qa_rows, run_inline

pytestmark = pytest.mark.django_db


@pytest.fixture
def code_run(workspace, user):
    version = make_evalset_version(workspace=workspace, user=user, rows=qa_rows(6), name="QA")
    check = make_code_version(workspace=workspace, user=user, name="Contains")
    return run_inline(workspace=workspace, user=user, version=version, evaluator_version=check)


def page_of(web, run) -> str:
    return web.get(f"/w/acme/experiments/{run.public_id}/").content.decode()


def usage_card(html: str, name: str) -> str:
    return html.split(f'data-usage-evaluator="{name}"')[1].split("</article>")[0]


def test_a_code_evaluator_costs_a_dash_not_no_price_known(web, api, code_run):
    card = usage_card(page_of(web, code_run), "Contains")
    cost = re.search(r'<dd class="cost"[^>]*>(.*?)</dd>', card, re.S).group(1)
    assert cost.strip() == "—"
    assert "no price known" not in card and "$0" not in card
    assert re.search(r'<dd class="tokens">\s*—\s*</dd>', card)
    body = api.get(f"/api/v1/experiments/{code_run.public_id}/").json()
    usage = body["bindings"][0]["summary"]["usage"]
    assert usage["cost"] is None and usage["priced_rows"] == 0  # the API stays null
