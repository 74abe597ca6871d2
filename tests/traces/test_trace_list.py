"""The traces list (page and API) read from the summaries: time range, filters, sorting,
keyset pages, filter errors naming the field, outsiders."""

import json

import pytest
from django.urls import reverse

from traces.models import SpanBatch
from traces.services import ingest_key_issue, span_batch_store

from .support import export, post, span

pytestmark = pytest.mark.django_db
DAY_NS = 86_400 * 1_000_000_000


def trace_id(n: int) -> bytes:
    return n.to_bytes(16, "big")


def hexid(n: int) -> str:
    return trace_id(n).hex()


@pytest.fixture
def send(client, workspace):
    key = ingest_key_issue(workspace=workspace, name="tests").key

    def send_and_store(*spans, service="shop"):
        answer = post(client, export(*spans, service=service).SerializeToString(), key)
        assert answer.status_code == 200, answer.content
        for batch_id in SpanBatch.objects.order_by("pk").values_list("pk", flat=True):
            span_batch_store(batch_id=batch_id)

    return send_and_store


def root(n: int, *, ms: float = 10, days_ago: float = 0, name="turn", **attrs):
    item = span(1, trace=trace_id(n), name=name, **attrs)
    item.start_time_unix_nano -= int(days_ago * DAY_NS)
    item.end_time_unix_nano = item.start_time_unix_nano + int(ms * 1_000_000)
    return item


@pytest.fixture
def traces(send):
    """1: an LLM call (m-1, 120 tokens, $0.5), 2: a failing tool call in staging for user u-2
    with an attribute, 3: three days old, 4: another service's, 10 s long."""
    llm = span(
        2,
        parent=1,
        trace=trace_id(1),
        name="chat",
        gen_ai__operation__name="chat",
        gen_ai__request__model="m-1",
        gen_ai__usage__input_tokens=100,
        gen_ai__usage__output_tokens=20,
        gen_ai__usage__cost=0.5,
    )
    send(root(1, ms=200, session__id="s-1", openinference__span__kind="AGENT"), llm)
    failing = root(
        2,
        ms=50,
        name="lookup",
        gen_ai__operation__name="execute_tool",
        deployment__environment="staging",
        user__id="u-2",
        tenant="acme",
    )
    failing.status.code = 2
    send(failing)
    send(root(3, days_ago=3, name="old"))
    send(root(4, ms=10_000, name="slow"), service="billing")


def listed(web, workspace, **query) -> list[str]:
    page = web.get(reverse("traces:list", kwargs={"ws": workspace.slug}), query)
    assert page.status_code == 200
    html = page.content.decode()
    return [n for n in range(1, 5) if f'value="{hexid(n)}"' in html]


def test_the_list_filters_on_the_summaries(web, workspace, traces):
    assert listed(web, workspace) == [1, 2, 4]  # the default range: the last 24 hours
    assert listed(web, workspace, range="7d") == [1, 2, 3, 4]
    assert listed(web, workspace, service="billing") == [4]
    assert listed(web, workspace, kind="llm") == [1]
    assert listed(web, workspace, kind="tool") == [2]
    assert listed(web, workspace, model="m-1") == [1]
    assert listed(web, workspace, environment="staging") == [2]
    assert listed(web, workspace, user="u-2") == [2]
    assert listed(web, workspace, session="s-1") == [1]
    assert listed(web, workspace, has_error="yes") == [2]
    assert listed(web, workspace, has_error="no") == [1, 4]
    assert listed(web, workspace, min_duration_ms="100", max_duration_ms="1000") == [1]
    assert listed(web, workspace, min_tokens="100") == [1]
    assert listed(web, workspace, max_cost="0.1") == [2, 4]
    assert listed(web, workspace, attribute="tenant=acme") == [2]
    assert listed(web, workspace, name="slow") == [4]


def test_the_list_sorts_by_each_column(web, workspace, traces):
    url = reverse("traces:list", kwargs={"ws": workspace.slug})

    def order(sort):
        html = web.get(url, {"sort": sort, "range": "7d"}).content.decode()
        return sorted(range(1, 5), key=lambda n: html.index(f'value="{hexid(n)}"'))

    assert order("-duration") == [4, 1, 2, 3]
    assert order("duration") == [3, 2, 1, 4]
    assert order("-start") == [4, 2, 1, 3]
    assert order("start") == [3, 1, 2, 4]
    assert order("-tokens")[0] == 1 and order("tokens")[-1] == 1
    assert order("-cost")[0] == 1 and order("-spans")[0] == 1
    html = web.get(url, {"sort": "-duration"}).content.decode()
    assert 'aria-sort="descending"' in html


def test_a_bad_filter_is_named_on_the_page(web, workspace, traces):
    url = reverse("traces:list", kwargs={"ws": workspace.slug})
    html = web.get(url, {"min_tokens": "10", "max_tokens": "5"}).content.decode()
    assert 'id="filter-errors"' in html and "Max tokens" in html
    assert 'name="trace_id"' not in html  # no rows shown as if the filter were not there
    html = web.get(url, {"attribute": "novalue"}).content.decode()
    assert "Give key=value." in html


def test_the_span_kind_tool_is_translated_apart_from_the_role(web, workspace, traces):
    url = reverse("traces:list", kwargs={"ws": workspace.slug})
    html = web.get(url, HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    assert '<option value="tool">工具</option>' in html


def test_keyset_pages_walk_every_trace_once(send, web, workspace):
    send(*(root(n, ms=n) for n in range(1, 121)))
    url = reverse("traces:list", kwargs={"ws": workspace.slug})
    seen, page = [], f"{url}?sort=-duration"
    for _ in range(5):
        html = web.get(page).content.decode()
        seen += [n for n in range(1, 121) if f'value="{hexid(n)}"' in html]
        if 'id="next-page"' not in html:
            break
        page = f"{url}?{_next(html)}"
    assert sorted(seen) == list(range(1, 121)) and len(seen) == 120
    assert "120 traces match" in web.get(url).content.decode()


def _next(html: str) -> str:
    link = html.index('id="next-page"')
    start = html.rindex('href="?', 0, link) + len('href="?')
    return html[start : html.index('"', start)].replace("&amp;", "&")


def test_the_api_lists_pages_and_names_bad_filters(api, workspace, send):
    send(*(root(n, ms=n, tenant="acme" if n % 2 else "other") for n in range(1, 8)))
    found, url = [], "/api/v1/traces/?limit=3&sort=duration"
    while url:
        body = api.get(url).json()
        found += [int(t["trace_id"], 16) for t in body["results"]]
        url = body["next"]
    assert found == list(range(1, 8))  # ascending duration, each once
    body = api.get("/api/v1/traces/", {"attribute": "tenant=acme"}).json()
    assert sorted(int(t["trace_id"], 16) for t in body["results"]) == [1, 3, 5, 7]
    first = body["results"][0]
    assert (first["spans"], first["errors"], first["kinds"]) == (1, 0, ["other"])
    for query, field in [
        ({"min_cost": "2", "max_cost": "1"}, "max_cost"),
        ({"range": "2y"}, "range"),
        ({"range": "7d", "since": "2026-01-01T00:00:00Z"}, "range"),
        ({"cursor": "bm90IGEgY3Vyc29y"}, "cursor"),
        ({"sort": "name"}, "sort"),
        ({"attribute": "x"}, "attribute"),
        ({"limit": "0"}, "limit"),
    ]:
        answer = api.get("/api/v1/traces/", query)
        assert answer.status_code == 400 and field in json.dumps(answer.json()), (query, answer)


def test_the_span_api_pages_by_cursor(api, send):
    send(*(span(n, name=f"s{n}", tenant="acme") for n in range(1, 6)))
    names, url = [], "/api/v1/spans/?limit=2"
    while url:
        body = api.get(url).json()
        names += [s["name"] for s in body["results"]]
        url = body["next"]
    assert sorted(names) == ["s1", "s2", "s3", "s4", "s5"] and len(names) == 5
    assert api.get("/api/v1/spans/", {"min_tokens": "5", "max_tokens": "1"}).status_code == 400


def test_outsiders_get_404_on_the_list_and_the_api(client, outsider, workspace, traces):
    client.force_login(outsider)
    assert client.get(reverse("traces:list", kwargs={"ws": workspace.slug})).status_code == 404
    answer = client.get("/api/v1/traces/", HTTP_X_ASSAY_WORKSPACE=workspace.slug)
    assert answer.status_code == 404


def test_hostile_text_is_escaped_in_the_list(send, web, workspace):
    send(root(9, name='<script>alert("x")</script>', session__id="<b>s</b>"))
    html = web.get(reverse("traces:list", kwargs={"ws": workspace.slug})).content.decode()
    assert "<script>alert" not in html and "&lt;script&gt;" in html and "<b>s</b>" not in html
