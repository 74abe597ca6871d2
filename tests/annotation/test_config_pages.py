"""The score config pages: the list (kind, labels or range, rubric, verdict mapping, use), a
config of each kind made and changed through the form, the services' problems named on their
fields, a used config's locked labels and range, delete refused while a queue asks for it,
a viewer reading only, outsiders (another workspace's URLs, foreign ids) and Chinese."""

from __future__ import annotations

import re

import pytest
from django.test import Client
from django.utils import translation

from annotation.models import ScoreConfig
from assay.models import Membership
from tests.annotation.support import C, Q, finished_results

pytestmark = pytest.mark.django_db

LIST = "/w/acme/annotation/configs/"
NEW = "/w/acme/annotation/configs/new/"


def edit_url(config) -> str:
    return f"/w/acme/annotation/configs/{config.public_id}/"


def named_error(page: bytes, field: str) -> str | None:
    """The first error shown in the form field that posts `field` (None: none there)."""
    found = re.search(
        rf'<div class="field has-error"[^>]*>(?:(?!</div>).)*?name="{field}"'
        r'(?:(?!</div>).)*?<small class="error" role="alert">([^<]*)</small>',
        page.decode(),
        re.S,
    )
    return found.group(1) if found else None


def config(name: str) -> ScoreConfig:
    return ScoreConfig.objects.get(name=name)


FORMS = {
    "Correct?": {"kind": "boolean", "pass_labels": "true", "fail_labels": "FALSE"},
    "Tone": {
        "kind": "categorical",
        "labels": "rude\nflat\n\nwarm\n",
        "ordered": "on",
        "pass_labels": "warm",
        "fail_labels": "rude\nflat",
    },
    "Helpfulness": {"kind": "numeric", "minimum": "1", "maximum": "5", "step": "1"},
    "Why": {"kind": "text"},
    "Better?": {"kind": "pairwise"},
}


def test_a_config_of_each_kind_is_made_on_the_page_and_listed(web, api):
    for name, body in FORMS.items():
        made = web.post(NEW, {"name": name, "rubric": f"Rubric of {name}", **body})
        assert made.status_code == 302 and made["Location"].endswith(LIST), made.content[:400]
    shown = {c["name"]: c for c in api.get(C).json()["results"]}
    assert (shown["Correct?"]["pass_labels"], shown["Correct?"]["fail_labels"]) == ([True], [False])
    tone = shown["Tone"]
    assert (tone["labels"], tone["ordered"]) == (["rude", "flat", "warm"], True)
    assert (tone["pass_labels"], tone["fail_labels"]) == (["warm"], ["rude", "flat"])
    assert [shown["Helpfulness"][k] for k in ("minimum", "maximum", "step")] == [1, 5, 1]
    assert (shown["Why"]["kind"], shown["Better?"]["kind"]) == ("text", "pairwise")
    assert shown["Why"]["rubric"] == "Rubric of Why" and shown["Why"]["labels"] == []
    page = web.get(LIST).content.decode()
    for words in ("from 1 to 5", "in steps of 1", "in this order", "Rubric of Tone", "0 queues"):
        assert words in page, words
    row = re.search(r'<tr data-config="[^"]+">\s*<td><a[^>]*>Tone</a>.*?</tr>', page, re.S)[0]
    assert "warm" in row and 'badge pass">pass' in row and "rude · flat" in row


def test_each_kind_is_changed_on_its_page(web):
    for name, body in FORMS.items():
        web.post(NEW, {"name": name, **body})
    changes = {
        "Correct?": {"kind": "boolean", "pass_labels": "false", "fail_labels": "true"},
        "Tone": {"kind": "categorical", "labels": "rude\nwarm", "pass_labels": "warm"},
        "Helpfulness": {"kind": "numeric", "minimum": "0", "maximum": "10", "step": ""},
        "Why": {"kind": "text", "rubric": "Say why in a sentence."},
        "Better?": {"kind": "pairwise", "rubric": "Pick the more accurate one."},
    }
    for name, body in changes.items():
        page = web.get(edit_url(config(name)))
        assert page.status_code == 200 and 'id="config-save"' in page.content.decode()
        saved = web.post(edit_url(config(name)), {"name": f"{name} 2", **body})
        assert saved.status_code == 302, (name, saved.content[:400])
    assert (config("Correct? 2").pass_labels, config("Correct? 2").fail_labels) == ([False], [True])
    tone = config("Tone 2")
    assert (tone.labels, tone.ordered, tone.pass_labels, tone.fail_labels) == (
        ["rude", "warm"],
        False,
        ["warm"],
        [],
    )
    helpfulness = config("Helpfulness 2")
    assert (helpfulness.minimum, helpfulness.maximum, helpfulness.step) == (0, 10, None)
    assert config("Why 2").rubric == "Say why in a sentence."
    assert config("Better? 2").rubric == "Pick the more accurate one."


@pytest.mark.parametrize(
    ("body", "field", "message"),
    [
        ({"name": "", "kind": "text"}, "name", "Give the score config a name."),
        ({"kind": "categorical", "labels": "one"}, "labels", "between 2 and 50 labels"),
        ({"kind": "categorical", "labels": "a\na"}, "labels", "Labels must differ"),
        ({"kind": "numeric", "minimum": "5", "maximum": "1"}, "maximum", "must be above the min"),
        ({"kind": "numeric", "maximum": "1"}, "minimum", "needs a minimum and a maximum"),
        ({"kind": "numeric", "minimum": "0", "maximum": "1", "step": "-1"}, "step", "above 0"),
        ({"kind": "boolean", "pass_labels": "yes"}, "pass_labels", "Use labels of this config."),
        (
            {"kind": "categorical", "labels": "a\nb", "fail_labels": "c"},
            "fail_labels",
            "Use labels",
        ),
        (
            {"kind": "categorical", "labels": "a\nb", "pass_labels": "a", "fail_labels": "a"},
            "fail_labels",
            "both pass and fail",
        ),
        ({"kind": "text", "rubric": "x" * 20_001}, "rubric", "at most 20000 characters"),
    ],
)
def test_the_services_problems_are_named_on_their_fields_and_nothing_is_saved(
    web, body, field, message
):
    refused = web.post(NEW, {"name": "Q", **body})
    assert refused.status_code == 400
    assert message in (named_error(refused.content, field) or ""), refused.content.decode()[-3000:]
    assert not ScoreConfig.objects.exists()


def test_a_taken_name_and_another_kind_are_named(web):
    web.post(NEW, {"name": "Tone", "kind": "categorical", "labels": "a\nb"})
    taken = web.post(NEW, {"name": "Tone", "kind": "text"})
    assert "A score config of that name exists." in named_error(taken.content, "name")
    other_kind = web.post(edit_url(config("Tone")), {"name": "Tone", "kind": "numeric"})
    assert other_kind.status_code == 400
    assert "kind cannot change" in named_error(other_kind.content, "kind")
    assert config("Tone").kind == "categorical"
    page = web.get(edit_url(config("Tone"))).content.decode()
    assert 'type="hidden" name="kind" value="categorical"' in page  # no kind to choose


@pytest.fixture
def used(api, workspace, user, web):
    """A categorical config and a numeric one, both asked by a queue, each given one label."""
    web.post(NEW, {"name": "Tone", "kind": "categorical", "labels": "rude\nwarm"})
    web.post(NEW, {"name": "Stars", "kind": "numeric", "minimum": "1", "maximum": "5"})
    ids = [str(config("Tone").public_id), str(config("Stars").public_id)]
    queue = api.post(Q, {"name": "Review", "score_configs": ids}, format="json").json()
    experiment, results = finished_results(workspace=workspace, user=user, rows=1)
    body = {"experiment": experiment, "results": results}
    assert api.post(f"{Q}{queue['id']}/items/", body, format="json").status_code == 201
    item = api.post(f"{Q}{queue['id']}/next/").json()
    values = {ids[0]: "warm", ids[1]: 4}
    url = f"{Q}{queue['id']}/items/{item['id']}/labels/"
    assert api.post(url, {"values": values}, format="json").status_code == 201
    return queue


def test_a_used_configs_labels_and_range_are_locked_and_named(web, used):
    page = web.get(edit_url(config("Tone"))).content.decode()
    assert 'id="config-locked"' in page and "Used by 1 queue" in page and "1 label given" in page
    assert re.search(r'<textarea name="labels"[^>]*readonly', page)
    moved = web.post(
        edit_url(config("Tone")),
        {"name": "Tone", "kind": "categorical", "labels": "rude\nwarm\nkind"},
    )
    assert moved.status_code == 400
    assert "Reviewers have labelled" in named_error(moved.content, "labels")
    reordered = web.post(
        edit_url(config("Tone")),
        {"name": "Tone", "kind": "categorical", "labels": "rude\nwarm", "ordered": "on"},
    )
    assert "Reviewers have labelled" in named_error(reordered.content, "ordered")
    stars_page = web.get(edit_url(config("Stars"))).content.decode()
    assert re.search(r'name="maximum" value="5"[^>]*readonly', stars_page)  # 5, not 5.0
    stars = {"name": "Stars", "kind": "numeric", "minimum": "1", "maximum": "5"}
    wider = web.post(edit_url(config("Stars")), {**stars, "maximum": "10", "step": "1"})
    assert named_error(wider.content, "maximum") and named_error(wider.content, "step")
    assert (config("Tone").labels, config("Stars").maximum) == (["rude", "warm"], 5)
    renamed = web.post(
        edit_url(config("Tone")),
        {
            "name": "Tone of voice",
            "kind": "categorical",
            "labels": "rude\nwarm",
            "pass_labels": "warm",
            "rubric": "Warm: friendly.",
        },
    )
    assert renamed.status_code == 302, renamed.content[-2000:]
    tone = config("Tone of voice")
    assert (tone.pass_labels, tone.rubric) == (["warm"], "Warm: friendly.")
    listed = web.get(LIST).content.decode()
    assert "1 queue" in listed and "1 label" in listed


def test_a_config_a_queue_asks_for_is_not_deleted_and_the_page_says_why(web, api):
    web.post(NEW, {"name": "Asked", "kind": "boolean"})
    web.post(NEW, {"name": "Spare", "kind": "text"})
    asked = config("Asked")
    api.post(Q, {"name": "Review", "score_configs": [str(asked.public_id)]}, format="json")
    page = web.get(edit_url(asked)).content.decode()
    assert "1 queue asks for this config, so it cannot be deleted" in page
    assert re.search(r'id="config-delete-button"\s+disabled', page)
    refused = web.post(f"{edit_url(asked)}delete/")
    assert refused.status_code == 400
    assert "A queue uses this score config" in refused.content.decode()
    assert ScoreConfig.objects.filter(pk=asked.pk).exists()
    deleted = web.post(f"{edit_url(config('Spare'))}delete/")
    assert deleted.status_code == 302 and not ScoreConfig.objects.filter(name="Spare").exists()


def test_a_viewer_reads_the_pages_and_cannot_write(web, member):
    web.post(NEW, {"name": "Tone", "kind": "categorical", "labels": "a\nb"})
    tone = config("Tone")
    viewer = Client()
    viewer.force_login(member("vic", Membership.Role.VIEWER))
    listed = viewer.get(LIST).content.decode()
    assert "Tone" in listed and 'id="new-config"' not in listed
    page = viewer.get(edit_url(tone)).content.decode()
    assert 'id="config-read-only"' in page
    assert 'id="config-save"' not in page and 'id="config-delete-button"' not in page
    assert viewer.post(NEW, {"name": "Mine", "kind": "text"}).status_code == 403
    body = {"name": "Renamed", "kind": "categorical", "labels": "a\nb"}
    assert viewer.post(edit_url(tone), body).status_code == 403
    assert viewer.post(f"{edit_url(tone)}delete/").status_code == 403
    assert list(ScoreConfig.objects.values_list("name", flat=True)) == ["Tone"]


def test_outsiders_reach_neither_acmes_pages_nor_its_configs_through_their_own(
    web, client, outsider
):
    web.post(NEW, {"name": "Acme tone", "kind": "categorical", "labels": "a\nb"})
    tone = config("Acme tone")
    client.force_login(outsider)
    assert client.get(LIST).status_code == 404
    assert client.get(edit_url(tone)).status_code == 404
    theirs = f"/w/other/annotation/configs/{tone.public_id}/"
    assert client.get(theirs).status_code == 404
    body = {"name": "Mine now", "kind": "categorical", "labels": "a\nb"}
    assert client.post(theirs, body).status_code == 404
    assert client.post(f"{theirs}delete/").status_code == 404
    assert "Acme tone" not in client.get("/w/other/annotation/configs/").content.decode()
    made = client.post("/w/other/annotation/configs/new/", {"name": "Acme tone", "kind": "text"})
    assert made.status_code == 302  # names are per workspace
    acmes = ScoreConfig.objects.get(name="Acme tone", workspace__slug="acme")
    assert (acmes.pk, acmes.labels) == (tone.pk, ["a", "b"])


def test_the_queue_pages_link_the_score_configs_and_untrusted_text_is_escaped(web):
    web.post(
        NEW,
        {
            "name": "<b>bold</b>",
            "kind": "categorical",
            "labels": "<i>a</i>\nb",
            "rubric": "<script>x</script>",
        },
    )
    listed = web.get("/w/acme/annotation/").content.decode()
    assert 'id="score-configs" href="/w/acme/annotation/configs/"' in listed
    new_queue = web.get("/w/acme/annotation/new/").content.decode()
    assert 'href="/w/acme/annotation/configs/new/" id="new-score-config"' in new_queue
    page = web.get(LIST).content.decode()
    assert "<b>bold</b>" not in page and "&lt;b&gt;bold&lt;/b&gt;" in page
    assert "<i>a</i>" not in page and "<script>x</script>" not in page


def test_the_score_config_pages_speak_chinese(web, api):
    web.post(NEW, {"name": "语气", "kind": "categorical", "labels": "粗鲁\n温暖", "ordered": "on"})
    api.post(Q, {"name": "审阅", "score_configs": [str(config("语气").public_id)]}, format="json")
    with translation.override("zh-hans"):
        listed = web.get(LIST, HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
        form = web.get(NEW, HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
        used = web.get(edit_url(config("语气")), HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
        refused = web.post(NEW, {"name": "", "kind": "text"}, HTTP_ACCEPT_LANGUAGE="zh-hans")
    for words in ("评分配置", "新建评分配置", "粗鲁", "温暖", "按此顺序"):
        assert words in listed, words
    for words in ("创建评分配置", "评分细则", "与评估器的判定可比"):
        assert words in form, words
    assert "无法删除" in used
    assert named_error(refused.content, "name") and "Give" not in refused.content.decode()
