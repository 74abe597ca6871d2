"""Conversation cells: validation naming the row and the message, JSONL and CSV imports through
the service the worker runs (and the worker itself), exports that import back unchanged, the row
editor's JSON textarea, the column editor and API, and the transcript in the rows table."""

from __future__ import annotations

import csv
import io
import json
import time

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse

from evalsets import selectors, services
from evalsets.export import export_response
from evalsets.importing import import_create
from evalsets.items.cells import CellError
from evalsets.items.content import (
    content_cell,
    content_from_value,
    content_text,
)
from evalsets.items.conversation import CONVERSATION_CAP, MAX_MESSAGES
from evalsets.models import EvalSetItem
from tests.evalsets.conftest import jsonl, run_now, upload

pytestmark = pytest.mark.django_db

COLUMNS = [
    {"name": "topic", "content_type": "Text", "required": True},
    {"name": "dialogue", "content_type": "Conversation"},
]


def call(call_id="call_1", name="get_weather", arguments='{"city": "Paris"}'):
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}


def weather_chat(reply="It is 18 °C in Paris."):
    return [
        {"role": "system", "content": "You are a travel assistant."},
        {"role": "user", "content": "Weather in Paris?", "name": "ann"},
        {"role": "assistant", "content": None, "tool_calls": [call()]},
        {"role": "tool", "tool_call_id": "call_1", "content": '{"temp_c": 18}'},
        {"role": "assistant", "content": reply},
    ]


def no_files(uri, kind):
    raise AssertionError("a conversation refers to no stored file")


def convert(value):
    return content_from_value(value, "Conversation", no_files)


@pytest.fixture
def chats(workspace, user):
    return services.evalset_create(
        workspace=workspace, user=user, name="Chats", columns=[dict(c) for c in COLUMNS]
    )


def imported(evalset, name, body, **options):
    return run_now(import_create(evalset=evalset, user=None, upload=upload(name, body), **options))


def problems(job):
    return [(e["line"], e["column"], e["problem"]) for e in job.errors]


# ----------------------------------------------------------------------------- the content


def test_a_conversation_keeps_the_openai_shape():
    content = convert(weather_chat())
    assert content == {"content_type": "Conversation", "messages": weather_chat()}
    assert convert({"content_type": "Conversation", "messages": weather_chat()}) == content
    assert convert(json.dumps(weather_chat())) == content  # a JSON cell
    # an assistant message that only calls tools has content null, written out
    bare = [{"role": "user", "content": "x"}, {"role": "assistant", "tool_calls": [call()]}]
    assert convert(bare)["messages"][1] == {
        "role": "assistant",
        "content": None,
        "tool_calls": [call()],
    }
    assert content_text(content).splitlines()[2] == "assistant: [get_weather]"
    assert json.loads(content_cell(content)) == weather_chat()


@pytest.mark.parametrize(
    ("value", "problem"),
    [
        (
            [{"role": "user", "content": "hi"}, {"role": "bot", "content": "hello"}],
            "message 2: role must be one of system, user, assistant, tool, got 'bot'",
        ),
        (
            [{"role": "user", "content": "hi"}, {"role": "tool", "content": "18"}],
            "message 2: a tool message needs tool_call_id that an earlier assistant tool call "
            "declared",
        ),
        (
            [{"role": "tool", "tool_call_id": "call_9", "content": "18"}],
            "message 1: a tool message needs tool_call_id that an earlier assistant tool call "
            "declared (no call has id 'call_9')",
        ),
        (
            [*weather_chat()[:4], {"role": "tool", "tool_call_id": "call_1", "content": "again"}],
            "message 5: tool call 'call_1' already has its result in message 4",
        ),
        ({"content_type": "Conversation", "messages": {"role": "user"}}, "non-empty list"),
        ("just some text", "not valid JSON"),
        ([], "a Conversation needs a non-empty list of messages"),
        ([{"role": "user", "content": None}], "message 1: content must be a string"),
        ([{"role": "user", "content": "x", "colour": "red"}], "message 1: unknown field 'colour'"),
        (["hello"], "message 1: a message is an object {role, content}, got a string"),
        (
            [{"role": "user", "content": "x", "tool_calls": [call()]}],
            "message 1: a user message cannot have tool_calls",
        ),
        (
            [{"role": "assistant", "content": "", "tool_calls": [call(arguments={"city": "P"})]}],
            "message 1: tool call 1: function.arguments must be a string of JSON text, got an "
            "object",
        ),
        (
            [{"role": "assistant", "content": None, "tool_calls": [call(), call()]}],
            "message 1: tool call 2: id 'call_1' is already used by message 1",
        ),
        ({"content_type": "Text", "text": "hi"}, "wrong content type Text"),
    ],
)
def test_bad_conversations_name_the_message(value, problem):
    with pytest.raises(CellError) as error:
        convert(value)
    assert problem in str(error.value)


def test_sizes_are_capped():
    too_many = [{"role": "user", "content": "hi"}] * (MAX_MESSAGES + 1)
    with pytest.raises(CellError, match=f"at most {MAX_MESSAGES} messages, this one has 501"):
        convert(too_many)
    assert len(convert(too_many[:MAX_MESSAGES])["messages"]) == MAX_MESSAGES
    with pytest.raises(CellError, match="message 1: text is 70,000 bytes"):
        convert([{"role": "user", "content": "x" * 70_000}])
    big = [{"role": "user", "content": "x" * 60_000}] * 5
    with pytest.raises(CellError, match=f"the limit is {CONVERSATION_CAP:,} bytes"):
        convert(big)


def test_the_api_names_the_row_column_and_message(chats):
    good = {"data": {"topic": "weather", "dialogue": weather_chat()}}
    bad_role = {"data": {"topic": "x", "dialogue": [{"role": "robot", "content": "beep"}]}}
    orphan = {"data": {"topic": "y", "dialogue": [{"role": "tool", "content": "18"}]}}
    with pytest.raises(ValidationError) as error:
        services.items_bulk(evalset=chats, create=[good, bad_role, orphan])
    details = error.value.message_dict
    assert details["create[1].data.dialogue"] == [
        "message 1: role must be one of system, user, assistant, tool, got 'robot'"
    ]
    assert details["create[2].data.dialogue"][0].startswith("message 1: a tool message needs")
    assert EvalSetItem.objects.count() == 0  # all or nothing
    item = services.item_create(evalset=chats, **good)
    assert item.data["dialogue"]["messages"] == weather_chat()
    assert "user: Weather in Paris?" in item.search_text  # the rows table searches it


def test_api_accepts_a_conversation_column_and_its_rows(api, workspace):
    made = api.post(
        "/api/v1/evalsets/", {"name": "API chats", "columns": COLUMNS}, format="json"
    ).json()
    assert [c["content_type"] for c in made["columns"]] == ["Text", "Conversation"]
    url = f"/api/v1/evalsets/{made['id']}/items/"
    row = {"data": {"topic": "t", "dialogue": weather_chat()}}
    created = api.post(url, {"create": [row]}, format="json")
    assert created.status_code in (200, 201), created.content
    assert created.json()["created"][0]["data"]["dialogue"]["messages"] == weather_chat()
    bad = {"data": {"topic": "t", "dialogue": [{"role": "user", "content": 3}]}}
    refused = api.post(url, {"create": [row, bad]}, format="json")
    assert refused.status_code == 400
    details = refused.json()["error"]["details"]
    assert "message 1: content must be a string" in details["create[1].data.dialogue"][0]


# ----------------------------------------------------------------------------- imports


def test_jsonl_import_takes_message_arrays_and_content_objects(chats):
    body = jsonl(
        [
            {"topic": "array", "dialogue": weather_chat()},
            {
                "topic": "object",
                "dialogue": {"content_type": "Conversation", "messages": weather_chat()},
            },
            {"topic": "none"},
        ]
    )
    job = imported(chats, "chats.jsonl", body)
    assert job.status == "completed", job.message
    first, second, third = selectors.items_list(evalset=chats)
    assert first.data["dialogue"] == second.data["dialogue"] == convert(weather_chat())
    assert "dialogue" not in third.data


def test_jsonl_import_reports_each_bad_row_with_line_column_and_message(chats):
    body = jsonl(
        [
            {"topic": "ok", "dialogue": weather_chat()},
            {
                "topic": "bad role",
                "dialogue": [{"role": "user", "content": "a"}, {"role": "ai", "content": "b"}],
            },
            {
                "topic": "orphan",
                "dialogue": [{"role": "tool", "tool_call_id": "c", "content": "x"}],
            },
            {"topic": "not a list", "dialogue": "hello"},
        ]
    )
    job = imported(chats, "bad.jsonl", body)
    assert job.status == "failed"
    found = problems(job)
    assert found[0] == (
        2,
        "dialogue",
        "message 2: role must be one of system, user, assistant, tool, got 'ai'",
    )
    assert found[1][:2] == (3, "dialogue") and found[1][2].startswith(
        "message 1: a tool message needs tool_call_id that an earlier assistant tool call declared"
    )
    assert found[2][:2] == (4, "dialogue") and "not valid JSON" in found[2][2]
    assert EvalSetItem.objects.count() == 0


def test_a_new_jsonl_column_of_message_arrays_is_a_conversation(workspace, user):
    empty = services.evalset_create(workspace=workspace, user=user, name="Fresh")
    job = imported(empty, "chats.jsonl", jsonl([{"q": "weather", "chat": weather_chat()}]))
    assert job.status == "completed", job.message
    empty.refresh_from_db()
    assert {c["name"]: c["content_type"] for c in empty.columns} == {
        "q": "Text",
        "chat": "Conversation",
    }


def test_csv_import_parses_json_cells_and_reports_bad_rows(chats):
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(["topic", "dialogue"])
    writer.writerow(["ok", json.dumps(weather_chat())])
    writer.writerow(
        ["bad", json.dumps([{"role": "user", "content": "a"}, {"role": "tool", "content": "b"}])]
    )
    writer.writerow(["text", "hello there"])
    writer.writerow(["empty", ""])
    job = imported(chats, "chats.csv", out.getvalue(), skip_bad_rows=True)
    assert job.status == "completed", job.message
    assert job.rows_imported == 2 and job.rows_failed == 2
    line, column, problem = problems(job)[0]
    assert (line, column) == (3, "dialogue")
    assert problem.startswith("message 2: a tool message needs tool_call_id")
    assert problems(job)[1][:2] == (4, "dialogue") and "not valid JSON" in problems(job)[1][2]
    kept = list(selectors.items_list(evalset=chats))
    assert kept[0].data["dialogue"]["messages"] == weather_chat()


def exported(evalset, file_format: str) -> str:
    response = export_response(evalset=evalset, version=None, file_format=file_format)
    return b"".join(response.streaming_content).decode("utf-8")


@pytest.mark.parametrize("file_format", ["jsonl", "csv"])
def test_export_writes_the_messages_and_imports_back_unchanged(chats, workspace, user, file_format):
    hostile = [{"role": "user", "content": '=cmd|" /C calc"!A0, "quoted"\nnew line'}]
    services.items_bulk(
        evalset=chats,
        create=[
            {"data": {"topic": "weather", "dialogue": weather_chat()}, "tags": ["tools"]},
            {"data": {"topic": "odd", "dialogue": hostile}},
        ],
    )
    text = exported(chats, file_format)
    if file_format == "jsonl":
        assert json.loads(text.splitlines()[0])["dialogue"] == weather_chat()  # the array
    else:
        header, first, *_ = csv.reader(io.StringIO(text))
        assert json.loads(first[header.index("dialogue")]) == weather_chat()  # a JSON cell
    copy = services.evalset_create(
        workspace=workspace, user=user, name="Copy", columns=[dict(c) for c in COLUMNS]
    )
    job = imported(copy, f"export.{file_format}", text)
    assert job.status == "completed", (job.message, job.errors)
    original = [(i.data, i.tags) for i in selectors.items_list(evalset=chats)]
    assert [(i.data, i.tags) for i in selectors.items_list(evalset=copy)] == original
    assert rows_of(exported(copy, file_format), file_format) == rows_of(text, file_format)


def rows_of(text: str, file_format: str) -> list:
    """An export's rows without their item ids (the copy's rows have new ones)."""
    if file_format == "jsonl":
        return [
            {k: v for k, v in json.loads(line).items() if k != "item_id"}
            for line in text.splitlines()
        ]
    return [row[1:] for row in csv.reader(io.StringIO(text))]


@pytest.mark.integration
def test_a_conversation_file_imports_through_the_worker(celery_worker_inproc, chats):
    body = jsonl([{"topic": f"t{i}", "dialogue": weather_chat(f"reply {i}")} for i in range(50)])
    job = import_create(evalset=chats, user=None, upload=upload("chats.jsonl", body))
    deadline = time.monotonic() + 60
    while not job.is_finished and time.monotonic() < deadline:
        time.sleep(0.2)
        job.refresh_from_db()
    assert job.status == "completed", job.message
    rows = list(selectors.items_list(evalset=chats))
    assert len(rows) == 50 and rows[7].data["dialogue"]["messages"][-1]["content"] == "reply 7"


# ----------------------------------------------------------------------------- pages


def page_url(name, evalset, **kwargs):
    return reverse(f"evalsets:{name}", kwargs={"ws": "acme", "id": evalset.public_id, **kwargs})


def test_row_editor_takes_a_json_array_and_names_the_bad_message(web, chats):
    form = web.get(page_url("row_new", chats)).content.decode()
    assert "dialogue (Conversation JSON)" in form and 'name="col_dialogue"' in form
    bad = json.dumps([{"role": "user", "content": "hi"}, {"role": "martian", "content": "?"}])
    refused = web.post(page_url("row_new", chats), {"col_topic": "t", "col_dialogue": bad})
    assert refused.status_code == 200
    assert (
        "message 2: role must be one of system, user, assistant, tool" in refused.content.decode()
    )
    assert EvalSetItem.objects.count() == 0
    saved = web.post(
        page_url("row_new", chats), {"col_topic": "t", "col_dialogue": json.dumps(weather_chat())}
    )
    assert saved.status_code == 302
    item = EvalSetItem.objects.get()
    assert item.data["dialogue"]["messages"] == weather_chat()
    edit = web.get(page_url("row_edit", chats, item_id=item.item_id)).content.decode()
    assert "&quot;tool_call_id&quot;: &quot;call_1&quot;" in edit  # the messages, to edit


def test_column_editor_offers_and_keeps_the_conversation_type(web, workspace, user):
    plain = services.evalset_create(workspace=workspace, user=user, name="Plain", columns=[])
    page = web.get(page_url("columns", plain)).content.decode()
    assert '<option value="Conversation">Conversation</option>' in page
    form = {
        "set-name": "Plain",
        "set-description": "",
        "set-tags": "",
        "col-TOTAL_FORMS": "1",
        "col-INITIAL_FORMS": "0",
        "col-0-old_name": "",
        "col-0-name": "chat",
        "col-0-content_type": "Conversation",
    }
    assert web.post(page_url("columns", plain), form).status_code == 302
    plain.refresh_from_db()
    assert plain.columns[0]["content_type"] == "Conversation"


HOSTILE = [
    {"role": "system", "content": "<img src=x onerror=alert(1)>"},
    {"role": "user", "content": "<script>steal()</script>", "name": "<b>eve</b>"},
    {
        "role": "assistant",
        "content": None,
        "tool_calls": [call(name="<i>tool</i>", arguments='{"q": "<svg onload=x()>"}')],
    },
    {"role": "tool", "tool_call_id": "call_1", "content": "</li><script>pwn()</script>"},
]


def test_the_rows_table_shows_a_transcript_and_escapes_every_text(web, chats):
    services.item_create(evalset=chats, data={"topic": "t", "dialogue": HOSTILE})
    services.item_create(evalset=chats, data={"topic": "w", "dialogue": weather_chat()})
    body = web.get(page_url("detail", chats)).content.decode()
    for raw in (
        "<script>",
        "<img src=x",
        "<b>eve</b>",
        "<i>tool</i>",
        "<svg onload",
        "</li><script>",
    ):
        assert raw not in body
    assert "&lt;script&gt;steal()&lt;/script&gt;" in body and "&lt;i&gt;tool&lt;/i&gt;" in body
    assert '<details class="chat-more conversation">' in body
    assert "4 messages" in body and "5 messages" in body
    assert 'class="msg msg-tool"' in body and "get_weather" in body
