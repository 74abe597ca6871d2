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
