"""The traces pages: the list with its filters, a trace as its span tree with a timeline bar
per span, transcripts for messages, every untrusted text escaped; outsiders get 404."""

import json

import pytest
from django.urls import reverse

from traces.models import SpanBatch
from traces.services import ingest_key_issue, span_batch_store

from .support import TRACE, export, post, span

pytestmark = pytest.mark.django_db
HOSTILE = '<script>alert("x")</script>'
OTHER_TRACE = bytes.fromhex("2" * 32)


@pytest.fixture
def stored(client, workspace):
    key = ingest_key_issue(workspace=workspace, name="tests").key
    messages = [{"role": "user", "parts": [{"type": "text", "content": f"hi {HOSTILE}"}]}]
    spans = [
        span(1, name=f"agent {HOSTILE}", openinference__span__kind="AGENT"),
        span(
            2,
            parent=1,
            name="llm",
            gen_ai__operation__name="chat",
            gen_ai__request__model="m-1",
            gen_ai__input__messages=json.dumps(messages),
            evil=HOSTILE,
        ),
        span(3, parent=7, name="orphan", output__value=HOSTILE),
        span(4, trace=OTHER_TRACE, name="other", openinference__span__kind="CHAIN"),
    ]
    assert post(client, export(*spans).SerializeToString(), key).status_code == 200
    span_batch_store(batch_id=SpanBatch.objects.get().pk)


def test_the_list_shows_traces_and_filters_them(web, workspace, stored):
    url = reverse("traces:list", kwargs={"ws": workspace.slug})
    page = web.get(url).content.decode()
    assert TRACE.hex() in page and OTHER_TRACE.hex() in page
    assert HOSTILE not in page and "agent &lt;script&gt;" in page
    filtered = web.get(url, {"kind": "chain"}).content.decode()
    assert OTHER_TRACE.hex() in filtered and TRACE.hex() not in filtered
    assert "No trace matches" in web.get(url, {"model": "none"}).content.decode()
    assert 'data-nav="traces" aria-current="page"' in page


def test_an_empty_list_says_how_to_send(web, workspace):
    page = web.get(reverse("traces:list", kwargs={"ws": workspace.slug})).content.decode()
    assert "/otlp/v1/traces" in page


def test_a_trace_page_is_its_span_tree_with_every_text_escaped(web, workspace, stored):
    url = reverse("traces:detail", kwargs={"ws": workspace.slug, "trace_id": TRACE.hex()})
    page = web.get(url).content.decode()
    assert HOSTILE not in page
    assert page.count("&lt;script&gt;") >= 4  # name, message, raw attribute, output
    order = [page.index(f'data-span="{(n).to_bytes(8, "big").hex()}"') for n in (1, 2, 3)]
    assert order == sorted(order)  # the root, its child, then the orphan root
    assert 'class="span-row depth-1"' in page and "parent not arrived" in page
    assert 'class="chat conversation"' in page  # the llm span's messages as a transcript
    assert "margin-left: 0.00%" in page


def test_outsiders_and_unknown_traces_get_404(client, outsider, workspace, stored):
    client.force_login(outsider)
    for url in (
        reverse("traces:list", kwargs={"ws": workspace.slug}),
        reverse("traces:detail", kwargs={"ws": workspace.slug, "trace_id": TRACE.hex()}),
        reverse("traces:detail", kwargs={"ws": "other", "trace_id": TRACE.hex()}),
    ):
        assert client.get(url).status_code == 404, url
    assert client.get(reverse("traces:list", kwargs={"ws": "other"})).status_code == 200


def test_a_malformed_trace_id_is_404(web, workspace):
    url = reverse("traces:detail", kwargs={"ws": workspace.slug, "trace_id": "x" * 32})
    assert web.get(url).status_code == 404
