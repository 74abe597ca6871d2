"""The client guesses a new column's type from a JSONL file as the server does: arrays of chat
messages are a Conversation."""

from __future__ import annotations

import json

from assay_client.evalset_files import import_mapping


def test_message_arrays_become_a_conversation_column(tmp_path):
    path = tmp_path / "chats.jsonl"
    rows = [
        {"topic": "weather", "chat": [{"role": "user", "content": "hi"}]},
        {
            "topic": "other",
            "picture": {"content_type": "Image", "image": {"url": "https://x/a.png"}},
        },
    ]
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    mapping, new_columns = import_mapping(path, [])
    assert mapping == {"topic": "topic", "chat": "chat", "picture": "picture"}
    assert {c["name"]: c["content_type"] for c in new_columns} == {
        "topic": "Text",
        "chat": "Conversation",
        "picture": "Image",
    }
