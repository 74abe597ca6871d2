"""Trace → evalset: spans sent by the OpenTelemetry SDK's OTLP/HTTP exporter to a live server
(stored by a real worker) become rows of a set's draft, by the service and by the API."""

from __future__ import annotations

import json

import pytest
from django.core.exceptions import ValidationError
from opentelemetry.trace import Status, StatusCode

from assay.models import Membership, Workspace
from evalsets.models import EvalSetItem
from evalsets.services import evalset_create, version_commit
from traces.models import Span
from traces.services import ingest_key_issue
from traces.services import to_evalset_rows as rows
from traces.services.to_evalset import Selection, traces_to_evalset

from .test_real_clients import provider_for, stored_spans

pytestmark = pytest.mark.integration

SYSTEM = "You answer customers of a shop."
TURNS = (  # session, question, tool result (None: the call fails), answer
    ("s-1", "Where is order 1042?", "shipped", "Order 1042 has shipped."),
    ("s-1", "Can I change the address?", "shipped", "No: it has shipped."),
    ("s-2", "Status of order 77?", None, "Sorry, the order system is down."),
    ("s-3", "Where is order 1042?", "shipped", "Order 1042 has shipped."),  # turn 1 again
)
COLUMNS = [
    {"name": "question", "content_type": "Text"},
    {"name": "reference_output", "content_type": "Text"},
    {"name": "trajectory", "content_type": "Text"},
    {"name": "conversation", "content_type": "Conversation"},
]


def send_turns(live_server, workspace, turns=TURNS) -> list[str]:
    """Each turn a trace (an agent root, a chat span with messages, a tool span), sent by the
    SDK's exporter; the trace ids, once every span is stored."""
    provider = provider_for(live_server, ingest_key_issue(workspace=workspace, name="t").key)
    tracer = provider.get_tracer("shop")
    trace_ids = []
    for session, question, result, answer in turns:
        with tracer.start_as_current_span("support turn") as root:
            root.set_attribute("openinference.span.kind", "AGENT")
            root.set_attribute("session.id", session)
            _chat(tracer, question, answer)
            _tool(tracer, result)
            trace_ids.append(f"{root.get_span_context().trace_id:032x}")
    provider.shutdown()
    stored_spans(3 * len(turns))
    return trace_ids


def _chat(tracer, question: str, answer: str) -> None:
    with tracer.start_as_current_span("chat shop-model") as chat:
        chat.set_attribute("gen_ai.operation.name", "chat")
        chat.set_attribute("gen_ai.request.model", "shop-model")
        chat.set_attribute(
            "gen_ai.system_instructions", json.dumps([{"type": "text", "content": SYSTEM}])
        )
        chat.set_attribute(
            "gen_ai.input.messages",
            json.dumps([{"role": "user", "parts": [{"type": "text", "content": question}]}]),
        )
        chat.set_attribute(
            "gen_ai.output.messages",
            json.dumps([{"role": "assistant", "parts": [{"type": "text", "content": answer}]}]),
        )


def _tool(tracer, result: str | None) -> None:
    with tracer.start_as_current_span("execute_tool get_order") as tool:
        tool.set_attribute("gen_ai.operation.name", "execute_tool")
        tool.set_attribute("gen_ai.tool.name", "get_order")
        tool.set_attribute("gen_ai.tool.call.arguments", '{"order_id": "1042"}')
        if result is None:
            tool.set_status(Status(StatusCode.ERROR, "order service timed out"))
        else:
            tool.set_attribute("gen_ai.tool.call.result", result)


@pytest.fixture
def traces(celery_worker_inproc, live_server, workspace):
    return send_turns(live_server, workspace)


@pytest.fixture
def evalset(workspace, user):
    return evalset_create(workspace=workspace, user=user, name="from prod", columns=COLUMNS)


MAPPING = {
    "question": "input",
    "reference_output": "output",
    "trajectory": "trajectory",
    "conversation": "messages",
}


def to_evalset(workspace, user, evalset, mapping=MAPPING, **selection):
    row_from = selection.pop("row_from", "root")
    return traces_to_evalset(
        workspace=workspace,
        user=user,
        evalset=evalset,
        selection=Selection(**selection),
        mapping=mapping,
        row_from=row_from,
    )


def draft(evalset) -> list[EvalSetItem]:
    return list(evalset.items.filter(version__isnull=True).order_by("position"))


def test_traces_become_rows_linked_to_their_spans_and_duplicates_are_skipped(
    traces, workspace, user, evalset
):
    report = to_evalset(workspace, user, evalset, trace_ids=traces)
    assert (len(report.added), report.skipped_duplicates) == (3, 1)  # turn 4 repeats turn 1
    first, second, failed = draft(evalset)
    assert first.data["question"] == {"content_type": "Text", "text": "Where is order 1042?"}
    assert first.data["reference_output"]["text"] == "Order 1042 has shipped."
    assert first.data["conversation"]["messages"] == [
        {"role": "system", "content": SYSTEM},
        {"role": "user", "content": "Where is order 1042?"},
        {"role": "assistant", "content": "Order 1042 has shipped."},
    ]
    (step,) = json.loads(failed.data["trajectory"]["text"])["steps"]
    assert (step["type"], step["name"], step["status"]) == ("tool_call", "get_order", "error")
    assert json.loads(first.data["trajectory"]["text"])["steps"][0]["output"] == "shipped"
    root = Span.objects.get(trace_id=traces[0], parent_span_id="")
    assert first.source == {"kind": "span", "trace_id": traces[0], "span_id": root.span_id}
    assert [item.source["trace_id"] for item in (second, failed)] == traces[1:3]
    again = to_evalset(workspace, user, evalset, trace_ids=traces)
    assert (len(again.added), again.skipped_duplicates) == (0, 4)
    assert len(draft(evalset)) == 3


def test_a_session_becomes_one_conversation_row_and_a_version_keeps_the_links(
    traces, workspace, user, evalset
):
    report = to_evalset(workspace, user, evalset, session_ids=["s-1"])
    (row,) = report.added
    assert row.data["conversation"]["messages"] == [
        {"role": "system", "content": SYSTEM},
        {"role": "user", "content": "Where is order 1042?"},
        {"role": "assistant", "content": "Order 1042 has shipped."},
        {"role": "user", "content": "Can I change the address?"},
        {"role": "assistant", "content": "No: it has shipped."},
    ]
    assert row.source == {"kind": "session", "session_id": "s-1", "trace_ids": traces[:2]}
    assert len(json.loads(row.data["trajectory"]["text"])["steps"]) == 2
    version = version_commit(evalset=evalset, user=user, version="1.0.0")
    assert version.items.get().source == row.source


def test_llm_spans_by_the_lists_filters(traces, workspace, user, evalset):
    mapping = {"question": "input", "reference_output": "output", "conversation": "messages"}
    report = to_evalset(
        workspace, user, evalset, mapping, filters={"session": "s-1"}, row_from="llm"
    )
    assert [r.data["question"]["text"] for r in report.added] == [
        "Where is order 1042?",
        "Can I change the address?",
    ]
    chats = Span.objects.filter(session_id="", name="chat shop-model", trace_id__in=traces[:2])
    assert {r.source["span_id"] for r in report.added} == {s.span_id for s in chats}


@pytest.mark.parametrize(
    "mapping, key, words",
    [
        ({"answer": "output"}, "mapping.answer", "no column 'answer'"),
        ({"question": "prompt"}, "mapping.question", "'prompt' is not a span field"),
        ({"conversation": "input"}, "mapping.conversation", "holds Conversation"),
        ({"question": "messages"}, "mapping.question", "'messages' is Conversation"),
        ({}, "mapping", "at least one column"),
    ],
)
def test_a_bad_mapping_is_named_and_nothing_is_saved(
    traces, workspace, user, evalset, mapping, key, words
):
    with pytest.raises(ValidationError) as caught:
        to_evalset(workspace, user, evalset, mapping, trace_ids=traces)
    assert words in " ".join(caught.value.message_dict[key])
    assert draft(evalset) == []


def test_too_many_traces_are_refused_whole(traces, workspace, user, evalset, monkeypatch):
    monkeypatch.setattr(rows, "MAX_TRACES", 3)
    with pytest.raises(ValidationError) as caught:
        to_evalset(workspace, user, evalset, trace_ids=traces)
    assert "at most 3 a call" in caught.value.message_dict["selection"][0]
    assert draft(evalset) == []


# ----------------------------------------------------------------------------- the API

URL = "/api/v1/traces/to-evalset/"


def test_the_api_adds_rows_and_reports_duplicates(traces, api, evalset):
    body = {"evalset": str(evalset.public_id), "trace_ids": traces}
    answer = api.post(URL, body, format="json")
    assert answer.status_code == 201, answer.content
    assert (answer.json()["added"], answer.json()["skipped_duplicates"]) == (3, 1)
    assert answer.json()["mapping"] == {
        "question": "input",
        "reference_output": "output",
        "trajectory": "trajectory",
        "conversation": "messages",
    }
    assert sorted(answer.json()["rows"]) == sorted(str(i.item_id) for i in draft(evalset))
    items = api.get(f"/api/v1/evalsets/{evalset.public_id}/items/").json()["results"]
    assert items[0]["source"]["trace_id"] == traces[0]


def test_the_api_names_a_bad_request(traces, api, evalset):
    body = {"evalset": str(evalset.public_id), "trace_ids": traces, "session_ids": ["s-1"]}
    assert "selection" in api.post(URL, body, format="json").json()["error"]["details"]
    body = {"evalset": str(evalset.public_id), "filters": {"kind": "nope"}}
    assert api.post(URL, body, format="json").status_code == 400
    body = {"evalset": str(evalset.public_id), "trace_ids": traces, "mapping": {"x": "input"}}
    answer = api.post(URL, body, format="json")
    assert answer.status_code == 400 and "mapping.x" in answer.json()["error"]["details"]
    assert draft(evalset) == []


def test_outsiders_reach_neither_the_set_nor_the_spans(
    traces, evalset, outsider, outsider_api, member, api_client_for, workspace
):
    body = {"evalset": str(evalset.public_id), "trace_ids": traces}
    assert outsider_api.post(URL, body, format="json").status_code == 404
    other = Workspace.objects.get(slug="other")
    theirs = evalset_create(workspace=other, user=outsider, name="theirs", columns=COLUMNS)
    body = {"evalset": str(theirs.public_id), "trace_ids": traces}
    answer = outsider_api.post(URL, body, format="json")
    assert answer.status_code == 400 and "Nothing selected" in str(answer.json())
    assert draft(theirs) == []
    viewer = api_client_for(workspace, member("vic", Membership.Role.VIEWER))
    body = {"evalset": str(evalset.public_id), "trace_ids": traces}
    assert viewer.post(URL, body, format="json").status_code == 403
    assert draft(evalset) == []
