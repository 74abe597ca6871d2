"""The review page of a pairwise queue: the two outputs side by side in the reviewer's own
stored order (the same on reload), choices by place (1 left, 2 right, 3 tie) stored as the
side shown there; blind mode hides the judge and which experiment is which; Chinese."""

from __future__ import annotations

import re

import pytest
from django.test import Client
from django.utils import translation

from annotation.models import Label, ReviewSlot
from experiments.models import PairwiseResult
from tests.annotation.support import C, Q

pytestmark = pytest.mark.django_db


@pytest.fixture
def pairs(api, pw_finished):
    """A pairwise queue (one reviewer per item) with the 12 pairs of a run of apps X and Y."""

    def make(name: str = "Pairs", **settings) -> dict:
        run = pw_finished("X", "Y", name=name)
        ids = list(PairwiseResult.objects.filter(run=run).values_list("pk", flat=True))
        config = api.post(C, {"name": f"{name}?", "kind": "pairwise"}, format="json").json()
        body = {"name": name, "kind": "pairwise", "score_configs": [config["id"]], **settings}
        queue = api.post(Q, body, format="json").json()
        body = {"pairwise_run": str(run.public_id), "pairs": ids}
        assert api.post(f"{Q}{queue['id']}/items/", body, format="json").status_code == 201
        return {
            "queue": queue,
            "config": config,
            "url": f"/w/acme/annotation/{queue['id']}/review/",
        }

    return make


def reviewer(member, name: str) -> Client:
    client = Client()
    client.force_login(member(name))
    return client


def shown(page) -> tuple[str, str, str]:
    """(the item's id, the left output, the right output) as the page shows them."""
    text = page.content.decode()
    item = re.search(r'name="item" value="([0-9a-f-]{36})"', text).group(1)
    left = re.search(r'id="side-left".*?<pre>(.*?)</pre>', text, re.S).group(1)
    right = re.search(r'id="side-right".*?<pre>(.*?)</pre>', text, re.S).group(1)
    return item, left, right


def test_a_pair_is_shown_in_the_reviewers_stored_order_and_a_place_is_stored_as_its_side(
    pairs, member
):
    made = pairs()
    client = reviewer(member, "ann")
    field = f"config-{made['config']['id']}"
    seen = set()
    for _round in range(12):
        page = client.get(made["url"])
        item, left, right = shown(page)
        assert shown(client.get(made["url"])) == (item, left, right)  # a reload: same order
        slot = ReviewSlot.objects.select_related("item").get(item__public_id=item)
        a, b = slot.item.snapshot["output_a"], slot.item.snapshot["output_b"]
        assert (left, right) == ((b, a) if slot.swapped else (a, b))
        posted = client.post(made["url"], {"item": item, field: "left"})
        assert posted.status_code == 302, posted.content[:400]
        label = Label.objects.get(item__public_id=item)
        assert label.value == ("B" if slot.swapped else "A")  # the side, never "left"
        seen.add(slot.swapped)
    assert seen == {True, False}
    assert "nothing-left" in client.get(made["url"]).content.decode()


def test_keys_1_2_3_are_left_right_and_tie_and_a_tie_is_stored_as_tie(pairs, member):
    made = pairs()
    client = reviewer(member, "ann")
    page = client.get(made["url"]).content.decode()
    choices = re.findall(r'value="(left|right|tie|unknown)">\s*<kbd>(\d)</kbd>', page)
    assert choices == [("left", "1"), ("right", "2"), ("tie", "3"), ("unknown", "4")]
    assert page.index('id="side-left"') < page.index('id="side-right"')
    item = re.search(r'name="item" value="([0-9a-f-]{36})"', page).group(1)
    client.post(made["url"], {"item": item, f"config-{made['config']['id']}": "tie"})
    assert Label.objects.get().value == "tie"
    client.post(
        made["url"],
        {"item": shown(client.get(made["url"]))[0], f"config-{made['config']['id']}": "unknown"},
    )
    assert sorted(Label.objects.values_list("value", flat=True), key=str) == [None, "tie"]


def test_the_judges_pick_is_shown_by_place_and_a_blind_queue_hides_it_and_the_experiments(
    pairs, member
):
    open_queue = pairs()
    page = reviewer(member, "ann").get(open_queue["url"]).content.decode()
    assert 'id="pair-judge"' in page and "Which is better" in page
    blind = pairs(name="Blind", blind=True)
    page = reviewer(member, "bob").get(blind["url"]).content.decode()
    assert 'id="pair"' in page
    assert 'id="pair-judge"' not in page and "app X" not in page and "app Y" not in page


def test_the_pairwise_review_page_speaks_chinese(pairs, member):
    made = pairs()
    client = reviewer(member, "ann")
    with translation.override("zh-hans"):
        page = client.get(made["url"], HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    for words in ("左侧输出", "右侧输出", "左侧更好", "右侧更好", "平局"):
        assert words in page, words
    assert "Left output" not in page and "Right is better" not in page


# ----------------------------------------------------------------------------- making and filling


def test_a_queue_of_either_kind_is_made_on_its_page(web, api):
    pair = api.post(C, {"name": "Better?", "kind": "pairwise"}, format="json").json()
    yes = api.post(C, {"name": "Correct?", "kind": "boolean"}, format="json").json()
    page = web.get("/w/acme/annotation/new/").content.decode()
    assert 'value="pairwise"' in page and pair["id"] in page
    body = {"name": "Duel", "kind": "pairwise", "score_configs": [yes["id"]]}
    body |= {"reviewers_per_item": 2, "reservation_minutes": 15}
    refused = web.post("/w/acme/annotation/new/", body)
    assert (
        refused.status_code == 400
        and "A pairwise queue asks at least one" in refused.content.decode()
    )
    made = web.post("/w/acme/annotation/new/", {**body, "score_configs": [pair["id"]]})
    queue = api.get(Q).json()["results"][0]
    assert made.status_code == 302 and made["Location"].endswith(f"/annotation/{queue['id']}/add/")
    assert (queue["kind"], queue["reviewers_per_item"], queue["blind"]) == ("pairwise", 2, False)
    listed = web.get("/w/acme/annotation/").content.decode()
    assert 'id="new-queue"' in listed and "pairwise" in listed


def test_pairs_are_added_on_the_add_items_page_from_a_run_or_two_experiments(
    web, api, pairs, pw_apps
):
    made = pairs()  # 12 pairs already
    url = f"/w/acme/annotation/{made['queue']['id']}/add/"
    page = web.get(url).content.decode()
    assert 'value="pairwise_run"' in page and 'value="experiments"' in page
    assert 'value="evalset_version"' not in page
    x, y = pw_apps("X", "Y")
    body = {
        "source": "experiments",
        "experiment_a": str(x.public_id),
        "experiment_b": str(y.public_id),
    }
    added = web.post(url, body)
    assert added.status_code == 302, added.content[:500]
    assert api.get(f"{Q}{made['queue']['id']}/").json()["progress"]["items"] == 24
    same = web.post(url, {**body, "experiment_b": str(x.public_id)})
    assert same.status_code == 400 and "Compare two different experiments." in same.content.decode()
    unchosen = web.post(url, {"source": "pairwise_run"})
    assert unchosen.status_code == 400


def test_evalset_rows_are_added_by_id_or_all_on_the_add_items_page(web, api, workspace, user):
    from tests.support.factories import make_evalset_version

    rows = [{"input": "你好"}, {"input": "two"}, {"input": "three"}]
    version = make_evalset_version(workspace=workspace, user=user, rows=rows, name="中文集")
    config = api.post(C, {"name": "Correct?", "kind": "boolean"}, format="json").json()
    queue = api.post(Q, {"name": "Rows", "score_configs": [config["id"]]}, format="json").json()
    url = f"/w/acme/annotation/{queue['id']}/add/"
    ids = [str(i.item_id) for i in version.items.order_by("position")]
    body = {"source": "evalset_version", "evalset_version": str(version.public_id)}
    wrong = web.post(url, {**body, "rows": f"{ids[0]}\nnot-a-row"})
    assert wrong.status_code == 400 and "No such row in this version." in wrong.content.decode()
    assert web.post(url, {**body, "rows": f"{ids[1]}, {ids[0]}"}).status_code == 302
    assert web.post(url, body).status_code == 302  # all: the third is new
    items = api.get(f"{Q}{queue['id']}/items/").json()["results"]
    assert [i["snapshot"]["row_number"] for i in items] == [2, 1, 3]


def test_another_workspaces_ids_on_the_add_items_page_are_refused(client, outsider, pairs, pw_apps):
    from annotation.services import annotation_queue_create, score_config_create
    from assay.models import Workspace

    made = pairs()
    x, y = pw_apps("X", "Y")
    own = Workspace.objects.get(slug="other")
    config = score_config_create(
        workspace=own, user=outsider, fields={"name": "B?", "kind": "pairwise"}
    )
    theirs = annotation_queue_create(
        workspace=own,
        user=outsider,
        fields={"name": "Q", "kind": "pairwise"},
        score_configs=[config],
    )
    client.force_login(outsider)
    url = f"/w/other/annotation/{theirs.public_id}/add/"
    run = PairwiseResult.objects.first().run
    for body in (
        {"source": "pairwise_run", "pairwise_run": str(run.public_id)},
        {
            "source": "experiments",
            "experiment_a": str(x.public_id),
            "experiment_b": str(y.public_id),
        },
    ):
        assert client.post(url, body).status_code == 400
    acme_page = client.post(
        f"/w/acme/annotation/{made['queue']['id']}/add/", {"source": "pairwise_run"}
    )
    assert acme_page.status_code == 404
    assert theirs.items.count() == 0


def test_the_new_queue_and_add_items_pages_speak_chinese(web, api):
    api.post(C, {"name": "Better?", "kind": "pairwise"}, format="json")
    with translation.override("zh-hans"):
        page = web.get("/w/acme/annotation/new/", HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    for words in ("新建标注队列", "比较两个输出", "单个输出", "创建队列"):
        assert words in page, words
