"""A trace page draws each span's input and output as what it is: messages as a transcript,
a tool call with its arguments and result, a retriever's documents as documents (id, score,
text, in order), JSON indented, the attributes as a table and the span as raw JSON; every
text escaped."""

import json

import pytest
from django.urls import reverse

from traces.models import Span, SpanBatch
from traces.services import ingest_key_issue, span_batch_store
from traces.views.rendering import documents_read, span_view

from .support import TRACE, export, post, span

pytestmark = pytest.mark.django_db
HOSTILE = '<img src=x onerror="alert(1)">'


@pytest.fixture
def page(client, web, workspace):
    key = ingest_key_issue(workspace=workspace, name="tests").key
    documents = {  # sent out of order, the second one hostile
        "retrieval__documents__1__document__id": "doc-b",
        "retrieval__documents__1__document__score": 0.5,
        "retrieval__documents__1__document__content": f"second {HOSTILE}",
        "retrieval__documents__0__document__id": "doc-a",
        "retrieval__documents__0__document__score": 0.92,
        "retrieval__documents__0__document__content": "first document",
    }
    spans = [
        span(1, name="agent", openinference__span__kind="AGENT"),
        span(2, parent=1, name="retrieve", openinference__span__kind="RETRIEVER", **documents),
        span(
            3,
            parent=1,
            name="tool",
            gen_ai__operation__name="execute_tool",
            gen_ai__tool__name="get_order",
            gen_ai__tool__call__arguments='{"order_id": "1042"}',
            gen_ai__tool__call__result="shipped",
        ),
    ]
    assert post(client, export(*spans).SerializeToString(), key).status_code == 200
    span_batch_store(batch_id=SpanBatch.objects.get().pk)
    url = reverse("traces:detail", kwargs={"ws": workspace.slug, "trace_id": TRACE.hex()})
    return web.get(url).content.decode()


def test_a_retrievers_documents_are_drawn_as_documents_in_order(page):
    documents = page[page.index('class="span-documents"') :]
    assert "2 documents retrieved" in page
    assert documents.index("doc-a") < documents.index("first document") < documents.index("doc-b")
    assert "score 0.920" in documents and "score 0.500" in documents
    assert HOSTILE not in page and "second &lt;img src=x" in page


def test_a_tool_call_shows_its_arguments_indented_and_its_result(page):
    assert "Tool call <code>get_order</code>" in page
    arguments = json.dumps({"order_id": "1042"}, indent=2).replace('"', "&quot;")
    assert f'<pre class="span-text span-json">{arguments}</pre>' in page
    assert "<h4>Result</h4>" in page and ">shipped</pre>" in page


def test_attributes_as_a_table_and_the_span_as_raw_json(page):
    assert "<code>gen_ai.tool.name</code></th><td>get_order</td>" in page
    assert "Raw JSON" in page and "&quot;span_id&quot;: &quot;0000000000000003&quot;" in page


def test_the_view_of_a_retriever(page):
    retriever = Span.objects.get(name="retrieve")
    view = span_view(retriever)
    assert [(d.id, d.score) for d in view.documents] == [("doc-a", 0.92), ("doc-b", 0.5)]
    assert not view.output  # the documents are its output, not their joined text again
    assert view.input.text == "" and not view.tool_name


def test_documents_with_a_bad_score_keep_the_rest():
    found = documents_read(
        {
            "retrieval.documents.0.document.score": "high",
            "retrieval.documents.0.document.content": "text",
            "retrieval.documents.x.document.content": "not a position",
        }
    )
    assert [(d.position, d.score, d.content) for d in found] == [(0, None, "text")]
