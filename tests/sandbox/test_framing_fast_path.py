"""The orjson fast path of the frames reads and writes what the stdlib path would: the same
values for the same bytes, and the same refusals (no processes)."""

from __future__ import annotations

import dataclasses
import datetime
import json
import math

import pytest

from sandbox import framing, runner
from sandbox.outcome import Outcome

BODIES = [
    b'{"r":[["ok",1.0,"contains","","",0.0023456789012345678]]}',  # a long fraction
    b"[12345678901234567890, -9223372036854775809, 18446744073709551616]",  # past 64 bits
    b"[1.00000000000000000000001, 1234567890123456789]",
    b'{"a":"x1234567890123456789","b":"\\u00e9\\ud83d\\ude00"}',
    b'{"nested":{"deep":[[[[1,2,{"x":null}]]]]},"t":true,"f":false}',
    b"[1e400]",  # the stdlib reads inf; orjson refuses, so the stdlib decides
    b'["\\udc80"]',  # a lone surrogate: orjson refuses, the stdlib reads it
]


@pytest.mark.parametrize("body", BODIES)
def test_decode_gives_the_stdlib_values(body):
    expected = json.loads(body)
    got = framing.decode(body)
    assert repr(got) == repr(expected)  # repr: an int must stay an int, 1e400 stays inf


@pytest.mark.parametrize("body", [b"NaN", b"[Infinity]", b"[-Infinity]", b"{bad", b"\xff"])
def test_decode_still_refuses_what_the_stdlib_path_refuses(body):
    with pytest.raises(framing.FrameError):
        framing.decode(body)


def _stdlib_turn(turn):
    try:
        return json.loads(framing.ENCODER.encode(turn))
    except (TypeError, ValueError):
        return "refused"


@dataclasses.dataclass
class Point:
    x: int


class Text(str):
    pass


TURNS = [
    {"evaluate_dataset_fields": {"input": {"content_type": "Text", "text": "é 😀"}}, "ext": {}},
    {"score": None, "values": [1, 2.5, True]},  # null: the stdlib writes it
    {"n": 12345678901234567890123},  # past 64 bits: orjson refuses, the stdlib writes it
    {1: "int key"},  # orjson refuses, the stdlib converts the key
    {"x": math.nan},
    {"x": math.inf},
    {"at": datetime.datetime(2026, 1, 1)},
    {"p": Point(1)},
    {"s": Text("sub")},
    {"lone": "\udc80"},
]


@pytest.mark.parametrize("turn", TURNS)
def test_encode_turn_sends_what_the_stdlib_would(turn):
    encoded = runner.encode_turn(turn)
    expected = _stdlib_turn(turn)
    if expected == "refused":
        assert isinstance(encoded, Outcome) and encoded.status == "error"
    else:
        assert json.loads(encoded) == expected


def test_result_frames_read_back_as_sent():
    records = [
        ["ok", 1.0, "contains", "", "", 0.0023456789012345678],
        ["ok", None, "é 😀", "printed\n", "", 1.5],
        ["error", None, "", "", "line 3: ZeroDivisionError: division by zero", 0.2],
        ["ok", 0.5, "lone \udc80", "", "", 0.1],  # orjson refuses: the stdlib writes it
    ]
    reader = framing.FrameReader(1024)
    frames = reader.feed(b"".join(framing.encode_result(r) for r in records))
    assert frames == [{"r": [r]} for r in records]
