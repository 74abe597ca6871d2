"""The demo multi-turn set: "Support chats", conversations with tool calls for the conversation
judges (goal achieved, consistency, tool results used truthfully), committed as 1.0.0.

Some rows are good, some are not on purpose (a misreported tool result, a forgotten constraint),
and one has no tool call at all, so the tool-results judge leaves it unknown.
"""

from __future__ import annotations

DEMO_NAME = "Support chats"
SYSTEM = "You are the assistant of a travel agency. Use the tools; never invent prices or times."


def _call(call_id: str, name: str, arguments: str) -> dict:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}


def _weather(reported: str) -> list[dict]:
    """Asking for the weather; the final reply reports the tool's answer as `reported`."""
    return [
        {"role": "system", "content": SYSTEM},
        {"role": "user", "content": "What's the weather in Lisbon tomorrow?"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [_call("call_w1", "get_forecast", '{"city": "Lisbon", "day": "+1"}')],
        },
        {"role": "tool", "tool_call_id": "call_w1", "content": '{"temp_c": 19, "sky": "rain"}'},
        {"role": "assistant", "content": reported},
    ]


def _booking() -> list[dict]:
    """The user moves the date; the assistant books the old one (inconsistent)."""
    return [
        {"role": "system", "content": SYSTEM},
        {"role": "user", "content": "Book me a train from Porto to Lisbon on 3 May."},
        {"role": "assistant", "content": "Sure. Morning or afternoon?"},
        {"role": "user", "content": "Afternoon. Actually make it 4 May, not 3 May."},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                _call(
                    "call_b1",
                    "book_train",
                    '{"from": "Porto", "to": "Lisbon", "date": "2026-05-03", "slot": "afternoon"}',
                )
            ],
        },
        {
            "role": "tool",
            "tool_call_id": "call_b1",
            "content": '{"status": "ok", "ref": "TR-5521"}',
        },
        {"role": "assistant", "content": "Done: you travel on 3 May in the afternoon, TR-5521."},
    ]


def _refund() -> list[dict]:
    """The refund tool fails and the assistant says so."""
    return [
        {"role": "user", "content": "Please refund booking H-77, the hotel was closed."},
        {
            "role": "assistant",
            "content": "Let me request the refund.",
            "tool_calls": [_call("call_r1", "request_refund", '{"booking": "H-77"}')],
        },
        {"role": "tool", "tool_call_id": "call_r1", "content": '{"error": "booking is locked"}'},
        {
            "role": "assistant",
            "content": "The refund could not be filed: the booking is locked. I have asked a "
            "colleague to unlock it and will write to you within a day.",
        },
    ]


def _packing() -> list[dict]:
    """Advice only: no tool call, so the tool-results judge has nothing to check."""
    return [
        {"role": "user", "content": "I fly to Oslo in January. What should I pack?"},
        {"role": "assistant", "content": "Warm layers, a windproof jacket, boots with grip."},
        {"role": "user", "content": "Only hand luggage, 8 kg."},
        {
            "role": "assistant",
            "content": "Then wear the jacket and boots on the plane and pack "
            "two thermal layers, gloves and a hat.",
        },
    ]


ROWS = [
    (
        _weather("Tomorrow in Lisbon: 19 °C with rain, take an umbrella."),
        "Know tomorrow's weather in Lisbon.",
        ["tools"],
    ),
    (
        _weather("Tomorrow in Lisbon: sunny and 25 °C, perfect beach weather!"),
        "Know tomorrow's weather in Lisbon.",
        ["tools", "misreport"],
    ),
    (_booking(), "A train from Porto to Lisbon on 4 May, afternoon.", ["tools", "inconsistent"]),
    (_refund(), "A refund for booking H-77.", ["tools"]),
    (_packing(), "A packing list for Oslo in January, hand luggage only.", ["no-tools"]),
]


def conversations_set() -> dict:
    """The set's fields, rows and version note, for `evalsets.demo.demo_evalset_version`."""
    return {
        "name": DEMO_NAME,
        "description": "Multi-turn support conversations with tool calls, for the conversation "
        "judges (goal achieved, consistent with earlier turns, tool results used truthfully).",
        "tags": ["demo", "conversation"],
        "columns": [
            {
                "name": "conversation",
                "content_type": "Conversation",
                "required": True,
                "description": "The whole chat, tool calls and results included.",
            },
            {"name": "goal", "content_type": "Text", "description": "What the user wanted."},
        ],
        "rows": [
            {"data": {"conversation": messages, "goal": goal}, "tags": tags}
            for messages, goal, tags in ROWS
        ],
        "note": "Five conversations.",
    }
