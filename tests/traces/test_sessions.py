"""Sessions: traces grouped by session id (OpenInference's session.id, GenAI's
gen_ai.conversation.id), listed and shown as a chat of each trace's input and answer, on the
page and in the API; outsiders get 404."""

import pytest
from django.urls import reverse

from traces.models import SpanBatch
from traces.services import ingest_key_issue, span_batch_store

from .support import export, post, span

pytestmark = pytest.mark.django_db
HOSTILE = '<img src=x onerror="alert(1)">'


def turn(n: int, question: str, answer: str, **attrs):
    """Trace n: an agent root with the turn's input and output, an LLM child."""
    trace = n.to_bytes(16, "big")
    root = span(
        1,
        trace=trace,
        name=f"turn {n}",
        openinference__span__kind="AGENT",
        input__value=question,
        output__value=answer,
        **attrs,
    )
    root.start_time_unix_nano += n * 1_000_000
    root.end_time_unix_nano += n * 1_000_000
    return [root, span(2, parent=1, trace=trace, name="chat", gen_ai__operation__name="chat")]


@pytest.fixture
def sessions(client, workspace):
    key = ingest_key_issue(workspace=workspace, name="tests").key
    spans = [
        *turn(1, "Where is my parcel?", "It left yesterday.", session__id="s-1", user__id="ann"),
        *turn(2, "When will it come?", f"Tomorrow {HOSTILE}", session__id="s-1"),
        # GenAI's conversation id makes a session too
        *turn(3, "Cancel my order", "Done.", gen_ai__conversation__id="conv-9"),
        *turn(4, "No session", "—"),
    ]
    assert post(client, export(*spans).SerializeToString(), key).status_code == 200
    span_batch_store(batch_id=SpanBatch.objects.get().pk)


def test_the_sessions_list_groups_traces(web, workspace, sessions):
    html = web.get(reverse("traces:sessions", kwargs={"ws": workspace.slug})).content.decode()
    assert "s-1" in html and "conv-9" in html
    assert html.index("conv-9") < html.index("s-1")  # the most recently active first
    assert 'aria-current="page">Sessions' in html  # the tab, beside Traces
    traces = web.get(reverse("traces:list", kwargs={"ws": workspace.slug})).content.decode()
    assert reverse("traces:sessions", kwargs={"ws": workspace.slug}) in traces


def test_a_session_is_a_chat_of_its_traces_in_order(web, workspace, sessions):
    url = reverse("traces:session", kwargs={"ws": workspace.slug, "session_id": "s-1"})
    html = web.get(url).content.decode()
    said = [html.index(text) for text in ("Where is my parcel?", "It left yesterday.")]
    said += [html.index(text) for text in ("When will it come?", "Tomorrow")]
    assert said == sorted(said)
    assert html.count('class="msg msg-user"') == 2 and html.count('class="msg msg-assistant"') == 2
    for n in (1, 2):
        trace = n.to_bytes(16, "big").hex()
        assert reverse("traces:detail", kwargs={"ws": workspace.slug, "trace_id": trace}) in html
    assert HOSTILE not in html and "&lt;img" in html
    assert "Cancel my order" not in html


def test_a_conversation_id_makes_a_session(web, workspace, sessions):
    url = reverse("traces:session", kwargs={"ws": workspace.slug, "session_id": "conv-9"})
    assert "Cancel my order" in web.get(url).content.decode()


def test_the_sessions_api(api, sessions):
    body = api.get("/api/v1/sessions/").json()
    rows = {row["session_id"]: row for row in body["results"]}
    assert set(rows) == {"s-1", "conv-9"} and body["next"] is None
    assert (rows["s-1"]["traces"], rows["s-1"]["spans"], rows["s-1"]["user_id"]) == (2, 4, "ann")
    page = api.get("/api/v1/sessions/", {"limit": 1}).json()
    assert len(page["results"]) == 1 and page["next"]
    assert api.get(page["next"]).json()["results"][0]["session_id"] == "s-1"
    detail = api.get("/api/v1/sessions/s-1/").json()
    assert [t["input"] for t in detail["turns"]] == ["Where is my parcel?", "When will it come?"]
    assert detail["turns"][0]["trace"]["root_name"] == "turn 1"
    assert api.get("/api/v1/sessions/", {"since": "yesterday"}).status_code == 400
    assert api.get("/api/v1/sessions/nope/").status_code == 404


def test_outsiders_get_404(client, outsider, outsider_api, workspace, sessions):
    client.force_login(outsider)
    for url in (
        reverse("traces:sessions", kwargs={"ws": workspace.slug}),
        reverse("traces:session", kwargs={"ws": workspace.slug, "session_id": "s-1"}),
        reverse("traces:session", kwargs={"ws": "other", "session_id": "s-1"}),
    ):
        assert client.get(url).status_code == 404, url
    assert outsider_api.get("/api/v1/sessions/s-1/").status_code == 404
    assert outsider_api.get("/api/v1/sessions/").json()["results"] == []
    assert outsider_api.get("/api/v1/traces/").json()["results"] == []


def test_sessions_pages_list_each_session_once_in_order(api, client, workspace, monkeypatch):
    """Traces of five sessions interleaved (a session's older traces sit below newer
    sessions): walked a few traces at a time, every page holds the next sessions by their
    last trace, none twice."""
    from traces import selectors

    monkeypatch.setattr(selectors, "SESSION_WALK", 3)
    key = ingest_key_issue(workspace=workspace, name="tests").key
    spans = []
    for n in range(1, 16):  # trace n in session n % 5: sessions last active 11..15
        spans += turn(n, f"q{n}", f"a{n}", session__id=f"s{n % 5}")
    assert post(client, export(*spans).SerializeToString(), key).status_code == 200
    span_batch_store(batch_id=SpanBatch.objects.get().pk)
    seen, url = [], "/api/v1/sessions/?limit=2"
    while url:
        body = api.get(url).json()
        seen += [(row["session_id"], row["traces"]) for row in body["results"]]
        url = body["next"]
    assert seen == [("s0", 3), ("s4", 3), ("s3", 3), ("s2", 3), ("s1", 3)]
