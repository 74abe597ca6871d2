"""Session rules: a session (the traces sharing a session id) is scored once it has gone idle
for the rule's idle time — a late trace moves its readiness on, a trace after it was scored does
not score it again — as one item (its first trace's id, its session id), sampled by the
session's cohort, eligible when one of its spans passes the filter and none is Assay's own;
its whole conversation is the evaluator's input; skip reasons, budgets and backfill as for
traces; its outcomes on the session page."""

import json
from datetime import UTC, datetime, timedelta

import pytest
from django.utils import timezone

from assay.models import Workspace
from evaluators import services as evaluator_services
from online.kind import online_run_inline
from online.models import OnlineOutcome, OnlineRule, RuleStratum, SkipReason
from online.sampling import in_sample, session_position
from online.services import online_backfill, online_rule_create, online_sweep
from tests.support.factories import make_llm_version, make_provider
from traces.models import Span, TraceSummary

from .support import llm_span, store

pytestmark = pytest.mark.django_db

T = datetime(2026, 12, 3, 12, tzinfo=UTC)
LAG = timedelta(seconds=10)  # ASSAY_ONLINE_SWEEP_LAG_S
IDLE = timedelta(seconds=180)

# hands back the turn it was given; "ERROR" as the reference raises
ECHO = """import json

def exec_evaluation(turn):
    reference = turn["evaluate_dataset_fields"]["reference_output"]["text"]
    if reference == "ERROR":
        return 1 / 0
    return EvalOutput(score=1.0, reason=json.dumps(turn, sort_keys=True))
"""
VARIABLES = [
    {"name": "conversation", "content_type": "Conversation", "required": True, "description": ""},
    {"name": "reference_output", "content_type": "Text", "required": True, "description": ""},
    {"name": "first", "content_type": "Text", "required": False, "description": ""},
    {"name": "last", "content_type": "Text", "required": False, "description": ""},
]
MAPPING = {
    "conversation": "session:conversation",
    "reference_output": "attribute:expected",
    "first": "session:first_input",
    "last": "session:last_output",
}


def echo_version(workspace, user, name="Echo session"):
    evaluator = evaluator_services.evaluator_create(
        workspace=workspace, user=user, name=name, kind="code", language="python"
    )
    config = {**evaluator.draft_config, "input_variables": VARIABLES, "source": ECHO}
    evaluator_services.evaluator_update_draft(evaluator=evaluator, user=user, config=config)
    return evaluator_services.evaluator_submit_version(
        evaluator=evaluator, user=user, version="1.0.0"
    )


def session_rule(workspace, user, *, name="conversations", swept_until=T, **fields):
    made = online_rule_create(
        workspace=workspace,
        user=user,
        fields={"name": name, "scope": "session", **fields},
        evaluators=[{"evaluator_version": echo_version(workspace, user, name), "mapping": MAPPING}],
    )
    OnlineRule.objects.filter(pk=made.pk).update(swept_until=swept_until)
    made.refresh_from_db()
    return made


@pytest.fixture
def rule(workspace, user):
    return session_rule(workspace, user)


def _turn(workspace, session, trace_id, *, said, answered, received, expected="ok", **fields):
    """One trace of a session: its root span with the user's input and the answer."""
    span = llm_span(
        workspace,
        output=answered,
        expected=expected,
        at=received - timedelta(seconds=2),
        trace_id=trace_id,
        span_id=trace_id[:16],
        input_text=said,
        session_id=session,
        **fields,
    )
    span.received_at = received
    return span


def _sweep(rule, at):
    run = online_sweep(rule_id=rule.pk, now=at)
    if run is not None:
        online_run_inline(run_id=run.pk)
    return run


def _echoed(outcome) -> dict:
    return json.loads(outcome.reason)["evaluate_dataset_fields"]


def test_a_session_is_ready_once_idle_and_a_late_trace_moves_it_on(workspace, rule):
    first, second, third = "a" * 32, "b" * 32, "c" * 32
    at = T + timedelta(seconds=1)
    store([_turn(workspace, "chat-1", first, said="Hi", answered="Hello", received=at)])
    assert _sweep(rule, T + timedelta(seconds=100)) is None
    # a second trace 150 s later: 181 s after the first the session is still talking
    later = T + timedelta(seconds=150)
    store([_turn(workspace, "chat-1", second, said="Refund?", answered="Done", received=later)])
    assert _sweep(rule, at + IDLE + LAG + timedelta(seconds=1)) is None
    assert _sweep(rule, later + IDLE + LAG - timedelta(seconds=1)) is None
    run = _sweep(rule, later + IDLE + LAG + timedelta(seconds=1))
    assert run.items_total == 1
    outcome = OnlineOutcome.objects.get(rule=rule)
    assert (outcome.trace_id, outcome.span_id, outcome.session_id) == (first, "", "chat-1")
    assert outcome.verdict == "pass" and outcome.item_time == at - timedelta(seconds=2)
    said = [m["content"] for m in _echoed(outcome)["conversation"]["messages"]]
    assert said == ["Hi", "Hello", "Refund?", "Done"]  # both traces, in order
    # a trace after the session was scored does not score it again
    much_later = T + timedelta(seconds=900)
    store([_turn(workspace, "chat-1", third, said="And?", answered="Bye", received=much_later)])
    assert _sweep(rule, much_later + IDLE + LAG + timedelta(seconds=1)) is None
    assert OnlineOutcome.objects.filter(rule=rule).count() == 1
    assert sum(RuleStratum.objects.filter(rule=rule).values_list("eligible", flat=True)) == 1


def test_spans_without_a_session_are_never_session_items(workspace, rule):
    at = T + timedelta(seconds=1)
    store([_turn(workspace, "", "d" * 32, said="Hi", answered="Hello", received=at)])
    assert _sweep(rule, at + IDLE + LAG + timedelta(seconds=1)) is None
    assert not RuleStratum.objects.filter(rule=rule).exists()


def test_the_conversation_source_and_the_first_and_last_turn(workspace, rule):
    at = T + timedelta(seconds=1)
    system = {
        "content_type": "Conversation",
        "messages": [{"role": "system", "content": "Be kind"}],
    }
    # the model call under the first trace's root holds the system prompt
    call = llm_span(
        workspace,
        output="",
        expected="",
        at=at - timedelta(seconds=1),
        trace_id="e" * 32,
        parent_span_id="e" * 16,
        input_messages=system,
    )
    call.received_at = at
    store(
        [
            _turn(
                workspace,
                "chat-2",
                "e" * 32,
                said="Where is my parcel?",
                answered="In Lyon",
                received=at,
                expected="parcel",
            ),
            call,
            _turn(
                workspace,
                "chat-2",
                "f" * 32,
                said="When?",
                answered="",
                received=at + timedelta(seconds=1),
            ),
            _turn(
                workspace,
                "chat-2",
                "0" * 32,
                said="",
                answered="Tomorrow",
                received=at + timedelta(seconds=2),
            ),
        ]
    )
    _sweep(rule, at + IDLE + LAG + timedelta(seconds=3))
    fields = _echoed(OnlineOutcome.objects.get(rule=rule))
    assert fields["conversation"] == {
        "content_type": "Conversation",
        "messages": [
            {"role": "system", "content": "Be kind"},
            {"role": "user", "content": "Where is my parcel?"},
            {"role": "assistant", "content": "In Lyon"},
            {"role": "user", "content": "When?"},
            {"role": "assistant", "content": "Tomorrow"},
        ],
    }
    assert fields["first"]["text"] == "Where is my parcel?"
    assert fields["last"]["text"] == "Tomorrow"
    assert fields["reference_output"]["text"] == "parcel"  # the first trace's root attribute


def test_eligible_when_one_span_matches_and_none_is_assays_own(workspace, user):
    rule = session_rule(workspace, user, filter={"field": "model", "op": "eq", "value": "gpt-x"})
    at = T + timedelta(seconds=1)
    store(
        [
            # one trace of the session matches the filter: the session is eligible
            _turn(workspace, "match", "1" * 32, said="a", answered="b", received=at),
            _turn(workspace, "match", "2" * 32, said="c", answered="d", received=at, model="gpt-x"),
            # no span matches
            _turn(workspace, "none", "3" * 32, said="a", answered="b", received=at),
            # a match, but another trace of the session is an experiment's
            _turn(
                workspace, "marked", "4" * 32, said="a", answered="b", received=at, model="gpt-x"
            ),
            _turn(
                workspace,
                "marked",
                "5" * 32,
                said="a",
                answered="b",
                received=at,
                attributes={"assay.experiment": "run-1", "expected": "ok"},
            ),
            # another environment
            _turn(
                workspace,
                "staging",
                "6" * 32,
                said="a",
                answered="b",
                received=at,
                model="gpt-x",
                environment="staging",
            ),
        ]
    )
    run = _sweep(rule, at + IDLE + LAG + timedelta(seconds=1))
    assert run.items_total == 1
    assert list(OnlineOutcome.objects.values_list("session_id", "trace_id")) == [
        ("match", "1" * 32)
    ]
    assert sum(RuleStratum.objects.filter(rule=rule).values_list("eligible", flat=True)) == 1


def test_two_session_rules_at_ten_percent_pick_the_same_sessions(workspace, user):
    rules = [session_rule(workspace, user, name=name, sampling_rate=0.1) for name in ("one", "two")]
    at = T + timedelta(seconds=1)
    sessions = [f"user-{i}/chat" for i in range(300)]
    store(
        [
            _turn(workspace, sid, f"{i:032x}", said="q", answered="a", received=at)
            for i, sid in enumerate(sessions)
        ]
    )
    picked = []
    for rule in rules:
        run = online_sweep(rule_id=rule.pk, now=at + IDLE + LAG + timedelta(seconds=1))
        items = [item for chunk in run.chunks.all() for item in chunk.items]
        picked.append({item["session_id"] for item in items})
    expected = {sid for sid in sessions if session_position(sid) < 0.1}
    assert picked[0] == picked[1] == expected
    # by the session's cohort, not its first trace's
    by_trace = {sid for i, sid in enumerate(sessions) if in_sample(f"{i:032x}", 0.1)}
    assert expected != by_trace and 10 < len(expected) < 60
    for rule in rules:
        stratum = RuleStratum.objects.get(rule=rule)
        assert (stratum.eligible, stratum.sampled) == (300, len(expected))


def test_skip_reasons_for_sessions(workspace, user):
    rule = session_rule(workspace, user, daily_item_budget=3)
    at = T + timedelta(seconds=1)
    store(
        [
            _turn(workspace, "s1", "1" * 32, said="q", answered="a", received=at),
            # nothing said: the conversation is empty, a required variable unfilled
            _turn(workspace, "s2", "2" * 32, said="", answered="", received=at),
            _turn(workspace, "s3", "3" * 32, said="q", answered="a", received=at, expected="ERROR"),
            _turn(workspace, "s4", "4" * 32, said="q", answered="a", received=at),  # over budget
            _turn(workspace, "s5", "5" * 32, said="q", answered="a", received=at),  # over budget
        ]
    )
    run = online_sweep(rule_id=rule.pk, now=at + IDLE + LAG + timedelta(seconds=1))
    assert run.items_total == 3
    # retention drops the first session before its run scores it
    Span.objects.filter(session_id="s1").delete()
    TraceSummary.objects.filter(session_id="s1").delete()
    online_run_inline(run_id=run.pk)
    reasons = dict(OnlineOutcome.objects.values_list("session_id", "skip_reason"))
    assert reasons == {
        "s1": SkipReason.NOT_READY,
        "s2": SkipReason.MAPPING,
        "s3": SkipReason.EVALUATOR_ERROR,
        "s4": SkipReason.OVER_BUDGET,
        "s5": SkipReason.OVER_BUDGET,
    }
    stratum = RuleStratum.objects.get(rule=rule)
    assert (stratum.eligible, stratum.sampled, stratum.over_budget) == (5, 3, 2)


def test_a_backfill_takes_the_sessions_that_began_in_the_window(workspace, user):
    now = timezone.now()
    early = now - timedelta(hours=2)
    store(
        [
            _turn(workspace, "old-1", "1" * 32, said="q", answered="a", received=early),
            _turn(workspace, "old-1", "2" * 32, said="q2", answered="a2", received=early),
            _turn(workspace, "old-2", "3" * 32, said="q", answered="a", received=early),
            # began before the window: an earlier window's
            _turn(
                workspace,
                "older",
                "4" * 32,
                said="q",
                answered="a",
                received=now - timedelta(hours=5),
            ),
            # began in the window but still talking when the rule began: the live sweep's
            *[
                _turn(
                    workspace,
                    "live",
                    f"{i + 100:032x}",
                    said="q",
                    answered="a",
                    received=now - timedelta(minutes=61) + i * timedelta(seconds=150),
                )
                for i in range(25)
            ],
        ]
    )
    rule = session_rule(workspace, user, swept_until=now)
    since, until = now - timedelta(hours=3), now - timedelta(hours=1)
    estimate, run = online_backfill(rule=rule, since=since, until=until, start=False)
    assert (estimate.spans, estimate.sampled, estimate.calls, run) == (2, 2, 2, None)
    _estimate, run = online_backfill(rule=rule, since=since, until=until, start=True)
    online_run_inline(run_id=run.pk)
    outcomes = OnlineOutcome.objects.filter(rule=rule)
    assert sorted(outcomes.values_list("session_id", "trace_id", "verdict")) == [
        ("old-1", "1" * 32, "pass"),
        ("old-2", "3" * 32, "pass"),
    ]
    said = [
        m["content"] for m in _echoed(outcomes.get(session_id="old-1"))["conversation"]["messages"]
    ]
    assert said == ["q", "a", "q2", "a2"]
    # the live sweep takes the session that was still talking, once
    live = online_sweep(rule_id=rule.pk, now=now + IDLE + LAG)
    assert [item["session_id"] for item in live.chunks.get().items] == ["live"]


def test_a_session_rule_is_made_through_the_api(api, workspace, user):
    version = echo_version(workspace, user)
    body = {
        "name": "sessions",
        "scope": "session",
        "idle_seconds": 600,
        "evaluators": [{"evaluator_version": str(version.public_id), "mapping": MAPPING}],
    }
    answer = api.post("/api/v1/online-rules/", body, format="json")
    assert answer.status_code == 201, answer.content
    assert answer.json()["scope"] == "session" and answer.json()["idle_seconds"] == 600
    assert answer.json()["evaluators"][0]["mapping"] == MAPPING
    wrong = {
        **body,
        "name": "wrong",
        "evaluators": [
            {
                "evaluator_version": str(version.public_id),
                "mapping": {
                    "conversation": "span:input_messages",
                    "reference_output": "span:output",
                },
            }
        ],
    }
    refused = api.post("/api/v1/online-rules/", wrong, format="json")
    assert refused.status_code == 400
    assert "a session rule has no 'span:input_messages'" in str(refused.json())


def test_the_new_rule_page_offers_the_session_sources(web, workspace, user):
    version = echo_version(workspace, user)
    body = {
        "name": "chats",
        "scope": "session",
        "idle_seconds": "900",
        "environment": "production",
        "sampling_percent": "10",
        "evaluator_versions": [str(version.public_id)],
    }
    page = web.post("/w/acme/online/new/", {**body, "step": "map"}).content.decode()
    assert 'value="session:conversation" selected' in page
    assert 'value="session:last_output"' in page and 'value="span:output"' not in page
    field = f"map:{version.public_id}:"
    mapping = {
        field + "conversation": "session:conversation",
        field + "reference_output": "session:first_input",
    }
    created = web.post("/w/acme/online/new/", {**body, "step": "create", **mapping})
    assert created.status_code == 302
    rule = OnlineRule.objects.get()
    assert (rule.scope, rule.idle_seconds, rule.sampling_rate) == ("session", 900, 0.1)


def test_the_session_page_shows_each_rules_outcome(web, workspace, rule):
    at = T + timedelta(seconds=1)
    store([_turn(workspace, "chat-9", "7" * 32, said="Hi", answered="Hello", received=at)])
    _sweep(rule, at + IDLE + LAG + timedelta(seconds=1))
    page = web.get("/w/acme/traces/sessions/chat-9/").content.decode()
    assert 'id="online-session-scores"' in page and rule.name in page
    assert 'data-verdict="pass"' in page
    empty = store([_turn(workspace, "chat-0", "8" * 32, said="Hi", answered="Hey", received=at)])
    other = web.get(f"/w/acme/traces/sessions/{empty[0].session_id}/").content.decode()
    assert "No session rule has scored this session." in other and rule.name not in other


def test_outsiders_never_see_a_sessions_scores(client, outsider, workspace, rule):
    at = T + timedelta(seconds=1)
    store([_turn(workspace, "shared-id", "7" * 32, said="Hi", answered="Hello", received=at)])
    _sweep(rule, at + IDLE + LAG + timedelta(seconds=1))
    other = Workspace.objects.get(slug="other")
    store([_turn(other, "shared-id", "8" * 32, said="Hi", answered="Hello", received=at)])
    client.force_login(outsider)
    assert client.get("/w/acme/traces/sessions/shared-id/").status_code == 404
    theirs = client.get("/w/other/traces/sessions/shared-id/")
    assert theirs.status_code == 200
    page = theirs.content.decode()
    assert 'id="online-session-scores"' in page and rule.name not in page


def test_the_rule_page_names_the_scope_and_links_each_session(web, workspace, rule):
    at = T + timedelta(seconds=1)
    store([_turn(workspace, "chat/7", "7" * 32, said="Hi", answered="Hello", received=at)])
    _sweep(rule, at + IDLE + LAG + timedelta(seconds=1))
    page = web.get(f"/w/acme/online/{rule.public_id}/").content.decode()
    assert "scores each session (ready after 180 s without a new span)" in page
    assert "of sessions" in page and "of traces" not in page
    assert 'href="/w/acme/traces/sessions/chat/7/"' in page


def test_a_judge_on_sessions_names_a_blocked_request(workspace, user, llm_server):
    provider = make_provider(workspace=workspace, server=llm_server)
    judge = make_llm_version(workspace=workspace, user=user, provider=provider)
    mapping = {v["name"]: "session:last_output" for v in judge.config["input_variables"]}
    rule = online_rule_create(
        workspace=workspace,
        user=user,
        fields={"name": "judged sessions", "scope": "session"},
        evaluators=[{"evaluator_version": judge, "mapping": mapping}],
    )
    OnlineRule.objects.filter(pk=rule.pk).update(swept_until=T)
    at = T + timedelta(seconds=1)
    answers = {"fine": "Fine [[script:score:0.9]]", "blocked": "Forbidden [[script:400]]"}
    store(
        [
            _turn(workspace, sid, f"{i + 1:032x}", said="q", answered=answer, received=at)
            for i, (sid, answer) in enumerate(answers.items())
        ]
    )
    _sweep(rule, at + IDLE + LAG + timedelta(seconds=1))
    by_session = {o.session_id: o for o in OnlineOutcome.objects.filter(rule=rule)}
    assert (by_session["fine"].verdict, by_session["fine"].score) == ("pass", 0.9)
    assert by_session["blocked"].skip_reason == SkipReason.PROVIDER_BLOCKED
    assert "scripted failure 400" in by_session["blocked"].error


def test_a_rules_scope_cannot_change(api, workspace, user, rule):
    answer = api.patch(f"/api/v1/online-rules/{rule.public_id}/", {"scope": "trace"}, format="json")
    assert answer.status_code == 400
    assert answer.json()["error"]["details"]["scope"] == [
        "A rule's scope cannot change: make a new rule."
    ]
    rule.refresh_from_db()
    assert rule.scope == "session"
    same = api.patch(f"/api/v1/online-rules/{rule.public_id}/", {"scope": "session"}, format="json")
    assert same.status_code == 200
