"""The body an endpoint is sent, by its format: the event as JSON (generic), or a message a
Slack incoming webhook or a Feishu (飞书) custom bot posts in its channel.

Chat formats show the event's type and its plain fields as plain text (never markup: names
come from users), at most `CHAT_FIELDS` of them, each value cut at `CHAT_VALUE_CHARS`.
"""

from __future__ import annotations

import json
from datetime import datetime

from django.utils import translation

from assay.vocabulary import EventType

from .models import WebhookFormat

CHAT_FIELDS = 8
CHAT_VALUE_CHARS = 200
# failures in red, the rest in blue (Feishu card header templates)
ALARMING = {
    EventType.EXPERIMENT_FAILED,
    EventType.GATE_FAILED,
    EventType.SCHEDULE_REGRESSION,
    EventType.ALERT_FIRED,
    EventType.IMPORT_FAILED,
}


def body_render(*, format: str, event_type: str, data: dict, at: datetime) -> str:
    """The request body for an event in an endpoint's format (a JSON text)."""
    if format == WebhookFormat.SLACK:
        payload = slack_payload(event_type, data)
    elif format == WebhookFormat.FEISHU:
        payload = feishu_payload(event_type, data)
    else:
        payload = {"type": event_type, "timestamp": at.isoformat(), "data": data}
    return json.dumps(payload, ensure_ascii=False, separators=(",", ":"), default=str)


def title(event_type: str) -> str:
    """The event's name in English (a worker sends it; there is no reader's language)."""
    with translation.override("en"):
        label = dict(EventType.choices).get(event_type, event_type)
        return f"Assay: {label}"


def lines(data: dict) -> list[str]:
    """The event's plain fields as `key: value` lines (nested values left out)."""
    plain = [(k, v) for k, v in data.items() if isinstance(v, str | int | float | bool)]
    return [f"{key}: {str(value)[:CHAT_VALUE_CHARS]}" for key, value in plain[:CHAT_FIELDS]]


def slack_payload(event_type: str, data: dict) -> dict:
    """A Slack incoming-webhook message: a header block and the fields as plain text."""
    heading, body = title(event_type), "\n".join(lines(data)) or "-"
    return {
        "text": heading,
        "blocks": [
            {"type": "header", "text": {"type": "plain_text", "text": heading}},
            {"type": "section", "text": {"type": "plain_text", "text": body}},
        ],
    }


def feishu_payload(event_type: str, data: dict) -> dict:
    """A Feishu custom bot's card: a coloured header and the fields as plain text."""
    colour = "red" if event_type in ALARMING else "blue"
    return {
        "msg_type": "interactive",
        "card": {
            "header": {
                "template": colour,
                "title": {"tag": "plain_text", "content": title(event_type)},
            },
            "elements": [
                {"tag": "div", "text": {"tag": "plain_text", "content": line}}
                for line in lines(data) or ["-"]
            ],
        },
    }
