"""The bodies each format sends: the generic event, a Slack incoming-webhook message and a
Feishu custom bot's card, with users' text as plain text (never markup) and capped."""

from __future__ import annotations

import json
from datetime import UTC, datetime

from notifications.formats import CHAT_FIELDS, CHAT_VALUE_CHARS, body_render

AT = datetime(2026, 12, 5, 8, 0, tzinfo=UTC)
DATA = {"name": "nightly <@channel> *bold*", "results_done": 40, "nested": {"x": 1}}


def _render(fmt: str, event_type: str = "experiment.failed", data=DATA) -> dict:
    return json.loads(body_render(format=fmt, event_type=event_type, data=data, at=AT))


def test_generic_is_the_event_as_json():
    assert _render("generic") == {
        "type": "experiment.failed",
        "timestamp": "2026-12-05T08:00:00+00:00",
        "data": DATA,
    }


def test_slack_is_a_header_and_plain_text_fields():
    body = _render("slack")
    assert body["text"] == "Assay: Experiment failed"
    header, section = body["blocks"]
    assert header == {"type": "header", "text": {"type": "plain_text", "text": body["text"]}}
    assert section["text"]["type"] == "plain_text"  # <@channel> and *bold* stay literal
    assert section["text"]["text"] == "name: nightly <@channel> *bold*\nresults_done: 40"


def test_feishu_is_a_card_red_for_failures_blue_otherwise():
    card = _render("feishu")["card"]
    assert _render("feishu")["msg_type"] == "interactive"
    assert card["header"] == {
        "template": "red",
        "title": {"tag": "plain_text", "content": "Assay: Experiment failed"},
    }
    assert [e["text"] for e in card["elements"]] == [
        {"tag": "plain_text", "content": "name: nightly <@channel> *bold*"},
        {"tag": "plain_text", "content": "results_done: 40"},
    ]
    done = _render("feishu", "experiment.completed")["card"]["header"]["template"]
    assert done == "blue"


def test_chat_fields_are_capped():
    many = {f"k{i}": "x" * 1000 for i in range(20)}
    lines = _render("slack", data=many)["blocks"][1]["text"]["text"].split("\n")
    assert len(lines) == CHAT_FIELDS and all(len(line) <= CHAT_VALUE_CHARS + 5 for line in lines)
    assert _render("feishu", data={})["card"]["elements"][0]["text"]["content"] == "-"
