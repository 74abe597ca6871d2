"""Reading traces through the API: traces listed with filters, a trace as a span tree (a parent
that came late, one that never came), spans flat and filtered; outsiders and ingest keys see
nothing."""

import pytest

from traces.models import SpanBatch
from traces.services import ingest_key_issue, span_batch_store

from .support import TRACE, export, post, span

pytestmark = pytest.mark.django_db
OTHER_TRACE = bytes.fromhex("1" * 32)


@pytest.fixture
def stored(client, workspace):
    """Two traces, stored as a worker stores them: TRACE (agent → llm, tool with an error,
    and a span whose parent never came) and OTHER_TRACE (one chain span)."""
    key = ingest_key_issue(workspace=workspace, name="tests").key

    def send(*spans):
        assert post(client, export(*spans).SerializeToString(), key).status_code == 200
        for batch_id in SpanBatch.objects.values_list("pk", flat=True):
            span_batch_store(batch_id=batch_id)

    send(
        span(
            2,
            parent=1,
            name="llm",
            gen_ai__operation__name="chat",
            gen_ai__request__model="m-1",
            gen_ai__usage__input_tokens=10,
            gen_ai__usage__output_tokens=5,
            gen_ai__conversation__id="s-1",
            tenant="blue",
        ),
        span(3, parent=1, name="tool", openinference__span__kind="TOOL", **{"error.type": "x"}),
        span(9, parent=8, name="orphan"),
    )
    send(span(1, name="agent", openinference__span__kind="AGENT"))  # the root comes last
    send(span(4, trace=OTHER_TRACE, name="other", openinference__span__kind="CHAIN"))
    return key


def test_traces_are_listed_with_their_summaries(api, stored):
    rows = api.get("/api/v1/traces/").json()["results"]
    by_id = {row["trace_id"]: row for row in rows}
    assert set(by_id) == {TRACE.hex(), OTHER_TRACE.hex()}
    ours = by_id[TRACE.hex()]
    assert (ours["root_name"], ours["spans"], ours["errors"]) == ("agent", 4, 0)
    assert (ours["tokens_in"], ours["tokens_out"], ours["session_id"]) == (10, 5, "s-1")
    assert ours["service"] == "shop-agent"


def test_trace_filters_match_any_span_of_the_trace(api, stored):
    def listed(query):
        answer = api.get(f"/api/v1/traces/?{query}")
        assert answer.status_code == 200, answer.content
        return [row["trace_id"] for row in answer.json()["results"]]

    assert listed("model=m-1") == [TRACE.hex()]
    assert listed("kind=chain") == [OTHER_TRACE.hex()]
    assert listed("session=s-1") == [TRACE.hex()]
    assert listed("attribute=tenant=blue") == [TRACE.hex()]
    assert listed("attribute=tenant=red") == []
    assert listed("min_tokens=15") == [TRACE.hex()]
    assert listed("min_tokens=16") == []
    assert api.get("/api/v1/traces/?kind=nonsense").status_code == 400
    assert api.get("/api/v1/traces/?attribute=novalue").status_code == 400


def test_a_trace_is_its_span_tree(api, stored):
    answer = api.get(f"/api/v1/traces/{TRACE.hex()}/")
    assert answer.status_code == 200
    roots = answer.json()["spans"]
    names = {root["span"]["name"]: root for root in roots}
    assert set(names) == {"agent", "orphan"}
    assert names["orphan"]["parent_missing"] is True
    assert names["agent"]["parent_missing"] is False
    children = [child["span"]["name"] for child in names["agent"]["children"]]
    assert sorted(children) == ["llm", "tool"]
    llm = next(c for c in names["agent"]["children"] if c["span"]["name"] == "llm")["span"]
    assert (llm["kind"], llm["model"], llm["tokens_in"]) == ("llm", "m-1", 10)
    assert api.get(f"/api/v1/traces/{'f' * 32}/").status_code == 404
    assert api.get("/api/v1/traces/not-hex/").status_code == 404


def test_spans_are_listed_flat_and_filtered(api, stored):
    def names(query=""):
        answer = api.get(f"/api/v1/spans/?{query}")
        assert answer.status_code == 200, answer.content
        return sorted(row["name"] for row in answer.json()["results"])

    assert names() == ["agent", "llm", "orphan", "other", "tool"]
    assert names(f"trace_id={OTHER_TRACE.hex()}") == ["other"]
    assert names("kind=tool") == ["tool"]
    assert names("service=shop-agent&kind=llm") == ["llm"]
    assert names("min_duration_ms=1&max_duration_ms=2") == names()
    assert names("min_duration_ms=5") == []
    assert names("has_error=false") == names()


def test_outsiders_and_ingest_keys_read_nothing(api, outsider_api, client, stored):
    assert outsider_api.get("/api/v1/traces/").json()["results"] == []
    assert outsider_api.get("/api/v1/spans/").json()["results"] == []
    assert outsider_api.get(f"/api/v1/traces/{TRACE.hex()}/").status_code == 404
    for path in ("/api/v1/traces/", "/api/v1/spans/", f"/api/v1/traces/{TRACE.hex()}/"):
        assert client.get(path, HTTP_AUTHORIZATION=f"Bearer {stored}").status_code == 401


def test_a_viewer_reads_traces(api_client_for, member, workspace, stored):
    viewer = api_client_for(workspace, member("vera", role="viewer"))
    assert len(viewer.get("/api/v1/traces/").json()["results"]) == 2
