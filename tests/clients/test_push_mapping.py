"""`assay evalset push` into a set that already has columns leaves the mapping to the server,
as the web map step does: headers fill columns by name and synonym (问题 → input, 参考答案 →
reference_output, 标签 → the row's tags), other fields become new columns named as the server
names them (pinyin for Chinese, JSONL content types guessed), and a file that would fill no
column of the set is refused with the server's message, nothing changed."""

from __future__ import annotations

import json

import pytest
from assay_client.cli import main
from click.testing import CliRunner

pytestmark = pytest.mark.django_db(transaction=True)


def assay(*args: str):
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def pushed(client, name: str, version: str) -> tuple[list[dict], list[dict]]:
    """The set's columns, and the version's items as {data as text, tags}."""
    evalset = client.evalset_by_name(name)
    items = [
        {"data": {k: v.get("text") for k, v in i["data"].items()}, "tags": i["tags"]}
        for i in client.evalset_items(evalset["id"], version=version)
    ]
    return evalset["columns"], items


def test_chinese_headers_fill_the_sets_columns_and_tags(tmp_path, assay_env, client, words):
    source = tmp_path / "中文.csv"
    source.write_text(
        "问题,参考答案,标签,用户满意度\n"
        "北京是哪国的首都？,中国,地理; 常识,高\n"
        "一加一等于几？,二,数学,中\n",
        encoding="utf-8",
    )
    result = assay("evalset", "push", str(source), "--name", "Words")
    assert result.exit_code == 0, result.output
    assert "Committed Words@1.0.1 (2 rows)" in result.stdout
    columns, items = pushed(client, "Words", "1.0.1")
    # the set's own columns are filled; the one unknown header is a new column, named in pinyin
    # and keeping the header as its description
    assert [(c["name"], c["description"]) for c in columns] == [
        ("input", ""),
        ("reference_output", ""),
        ("yong_hu_man_yi_du", "用户满意度"),
    ]
    assert sorted(items, key=lambda i: i["data"]["reference_output"]) == [
        {
            "data": {
                "input": "北京是哪国的首都？",
                "reference_output": "中国",
                "yong_hu_man_yi_du": "高",
            },
            "tags": ["地理", "常识"],
        },
        {
            "data": {
                "input": "一加一等于几？",
                "reference_output": "二",
                "yong_hu_man_yi_du": "中",
            },
            "tags": ["数学"],
        },
    ]


def test_a_file_that_fills_no_column_of_the_set_is_refused_with_the_servers_message(
    tmp_path, assay_env, client, words
):
    source = tmp_path / "other.csv"
    source.write_text("城市,人口\n北京,2189万\n", encoding="utf-8")
    result = assay("evalset", "push", str(source), "--name", "Words")
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    assert (
        "no field of the file maps to a column of the set (input, reference_output)"
        in result.stderr
    )
    # the real problem, not one "unknown column" per header the client could not name
    assert "unknown column" not in result.stderr
    # nothing changed: no new version, no new column, the draft still holds the 12 rows
    evalset = client.evalset_by_name("Words")
    assert evalset["latest_version"] == "1.0.0"
    assert [c["name"] for c in evalset["columns"]] == ["input", "reference_output"]
    assert len(list(client.evalset_items(evalset["id"], version="draft"))) == 12


def test_jsonl_content_objects_become_columns_of_their_type(tmp_path, assay_env, client, words):
    rows = [
        {
            "question": "what is this?",
            "answer": "a cat",
            "chat": [{"role": "user", "content": "hi"}],
            "picture": {"content_type": "Image", "image": {"url": "https://example.com/a.png"}},
        }
    ]
    source = tmp_path / "chats.jsonl"
    source.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    result = assay("evalset", "push", str(source), "--name", "Words")
    assert result.exit_code == 0, result.output
    evalset = client.evalset_by_name("Words")
    assert {c["name"]: c["content_type"] for c in evalset["columns"]} == {
        "input": "Text",
        "reference_output": "Text",
        "chat": "Conversation",
        "picture": "Image",
    }
    [item] = client.evalset_items(evalset["id"], version="1.0.1")
    assert item["data"]["input"]["text"] == "what is this?"
    assert item["data"]["reference_output"]["text"] == "a cat"
