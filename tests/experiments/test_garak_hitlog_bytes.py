"""The hit log's lines are written piece by piece; each must be, byte for byte, the line
json.dumps(record, ensure_ascii=False) writes for the same record (garak's own writer)."""

import json
import math

import pytest

from experiments.results.exports import export_stream
from experiments.results.garak.hitlog import _conversation_json, _message_json, _value
from tests.experiments.test_garak_formats import reader, rows_of, scan  # noqa: F401 - fixtures

pytestmark = pytest.mark.django_db

ODD_TEXTS = [
    'quotes " and \\ backslash',
    "new\nline\ttab\r\x1b escape \x7f del",  # no NUL: PostgreSQL text refuses it
    "é ü 中文 😀",
    "",
]


@pytest.mark.parametrize(
    "value",
    [
        *ODD_TEXTS,
        "\x00 nul",
        None,
        True,
        False,
        0,
        -7,
        12345678901234567890123,
        0.0,
        1.0,
        1e-05,
        1e16,
        0.1 + 0.2,
        math.nan,
        math.inf,
        -math.inf,
        ["secret", {"k": [1.5, None, "中"]}],
        {"a": {"b": []}},
    ],
)
def test_a_value_is_written_as_the_encoder_writes_it(value):
    assert _value(value) == json.dumps(value, ensure_ascii=False)


@pytest.mark.parametrize("text", [*ODD_TEXTS, None, 5, ["a list"]])
def test_a_message_and_a_conversation_as_their_dicts_dump(text):
    message = None
    if text is not None:
        message = {"text": text, "lang": None, "data_path": None, "data_type": None}
        message |= {"data_checksum": None, "notes": {}}
    assert _message_json(text) == json.dumps(message, ensure_ascii=False)
    if text is not None:
        conversation = {"turns": [{"role": "user", "content": message}], "notes": {}}
        assert _conversation_json(text) == json.dumps(conversation, ensure_ascii=False)


def test_every_hit_line_is_the_line_json_dumps_writes(scan):  # noqa: F811 - the fixture
    triggers = ['["secret", {"nested": [1.5, null, "中文"]}]', 'not json: a "word"', "", "[]"]
    rows = rows_of(
        "fail",
        "fail",
        "pass",
        "fail",
        goal=ODD_TEXTS,
        prompt=list(reversed(ODD_TEXTS)),
        triggers=triggers,
        actual_output=['out "1"', "", "中文 output", "x\ny"],
    )
    rows[0]["tags"] = ["a tag", "中"]
    run = scan(rows, probe_name="test.Test", ext={"detector": 'det."A"'})
    lines = "".join(export_stream(run, "hitlog")).splitlines(keepends=True)
    assert len(lines) == 3
    for line in lines:
        assert line == json.dumps(json.loads(line), ensure_ascii=False) + "\n"
    first = json.loads(lines[0])
    assert first["goal"] == ODD_TEXTS[0]
    assert first["triggers"] == ["secret", {"nested": [1.5, None, "中文"]}]
    assert first["tags"] == ["a tag", "中"]
    assert first["detector"] == 'det."A"'
    assert json.loads(lines[1])["triggers"] == ['not json: a "word"']
