"""One row number everywhere: a version's rows are numbered 1…n with no gaps, the evalset page,
the results grid and the drawer show the same number, and each links to the row."""

import re

import pytest
from django.urls import reverse

from evalsets import services
from evalsets.models import EvalSetItem
from tests.support.factories import TEXT_COLUMNS, make_code_version, run_inline

pytestmark = pytest.mark.django_db


def row(i: int) -> dict:
    texts = {"input": f"q{i}", "actual_output": "Paris", "reference_output": "Paris"}
    return {"data": {k: {"content_type": "Text", "text": v} for k, v in texts.items()}}


@pytest.fixture
def committed(workspace, user):
    """30 draft rows, the 3rd and 10th deleted, committed as 1.0.0 (28 rows)."""
    evalset = services.evalset_create(
        workspace=workspace, user=user, name="Numbered", columns=TEXT_COLUMNS
    )
    created = services.items_bulk(evalset=evalset, create=[row(i) for i in range(30)])["created"]
    services.items_bulk(evalset=evalset, delete=[str(created[2].item_id), str(created[9].item_id)])
    return services.version_commit(evalset=evalset, user=user, version="1.0.0")


def test_a_commit_numbers_rows_without_gaps_in_draft_order(committed):
    rows = EvalSetItem.objects.filter(version=committed).order_by("position")
    assert [r.position for r in rows] == list(range(28))
    assert [r.data["input"]["text"] for r in rows][:4] == ["q0", "q1", "q3", "q4"]


def test_the_evalset_page_shows_position_plus_one(web, committed):
    url = reverse("evalsets:detail", kwargs={"ws": "acme", "id": committed.evalset.public_id})
    body = web.get(url + "?version=1.0.0&page=2").content.decode()
    shown = re.findall(r'class="muted row-number"[^>]*>(\d+)</td>', body)
    assert shown == [str(n) for n in range(26, 29)]


def locate(version, item, ws="acme"):
    kwargs = {"ws": ws, "id": version.evalset.public_id, "item_id": item.item_id}
    return reverse("evalsets:item", kwargs=kwargs) + f"?version={version.version}"


def test_a_rows_link_opens_the_page_that_shows_it(web, committed):
    item = EvalSetItem.objects.get(version=committed, position=26)  # row 27: page 2
    response = web.get(locate(committed, item))
    assert response.status_code == 302
    assert response["Location"].endswith(f"?version=1.0.0&page=2#item-{item.item_id}")
    page = web.get(response["Location"]).content.decode()
    assert f'id="item-{item.item_id}"' in page


def test_results_and_drawer_use_the_same_number_and_link(web, workspace, user, committed):
    experiment = run_inline(
        workspace=workspace,
        user=user,
        version=committed,
        evaluator_version=make_code_version(workspace=workspace, user=user),
        name="numbers",
    )
    item = EvalSetItem.objects.get(version=committed, position=5)
    link = locate(committed, item)
    grid = web.get(
        reverse("experiments:detail", kwargs={"ws": "acme", "id": experiment.public_id})
    ).content.decode()
    assert ">6</button>" in grid and link in grid.replace("&amp;", "&")
    drawer = web.get(
        reverse(
            "experiments:item",
            kwargs={"ws": "acme", "id": experiment.public_id, "item_id": item.item_id},
        )
    ).content.decode()
    assert "Row 6" in drawer and link in drawer.replace("&amp;", "&")


def test_outsiders_cannot_locate_rows(client, outsider, committed, workspace, user):
    client.force_login(outsider)
    item = EvalSetItem.objects.filter(version=committed).first()
    assert client.get(locate(committed, item)).status_code == 404
    assert client.get(locate(committed, item, ws="other")).status_code == 404


def test_an_item_of_another_set_is_not_found(web, committed, workspace, user):
    other = services.evalset_create(workspace=workspace, user=user, name="Other")
    foreign = EvalSetItem.objects.filter(version=committed).first()
    kwargs = {"ws": "acme", "id": other.public_id, "item_id": foreign.item_id}
    assert web.get(reverse("evalsets:item", kwargs=kwargs)).status_code == 404
