"""Items by a filter (an experiment's results by the results grid's filters, what an online
rule judged, spans, traces and sessions), feeds that follow a rule or an experiment (the sweep
adds each item once, sampling by a hash of the item's key), and who reviews a queue (a role,
or its assigned members). Roles of every route: tests/test_roles_routes.py."""

from __future__ import annotations

import math
import secrets
from datetime import timedelta

import pytest
from django.utils import timezone

from annotation.models import QueueFeed, QueueItem
from annotation.selectors.filtered import sample_position
from annotation.services.feeds import feed_batch_read, feed_batch_take, feeds_sweep
from annotation.tasks import sweep_feeds
from assay.models import Membership, Workspace
from experiments.models import Experiment, Result
from online.models import OnlineOutcome, RuleScope
from online.services import online_rule_create
from tests.annotation.support import C, Q, client_of, finished_results
from tests.online.support import code_rule, llm_span, store
from tests.support.factories import make_code_version, make_evalset_version, qa_rows, run_inline

pytestmark = pytest.mark.django_db

LATER = timedelta(minutes=5)  # past the outcomes' lag


def fields_of(response) -> set[str]:
    assert response.status_code == 400, response.content[:300]
    return set(response.json()["error"]["details"])


@pytest.fixture
def queue(api):
    config = api.post(C, {"name": "Correct?", "kind": "boolean"}, format="json").json()
    return api.post(Q, {"name": "Triage", "score_configs": [config["id"]]}, format="json").json()


def sources(queue) -> str:
    return f"{Q}{queue['id']}/sources/"


def feeds(queue) -> str:
    return f"{Q}{queue['id']}/feeds/"


def judged(workspace, user, verdicts: list[str], *, scope=RuleScope.SPAN, session=""):
    """A rule and one stored span per verdict, each with the rule's outcome (by span order)."""
    rule = (session_rule if scope == RuleScope.SESSION else code_rule)(
        workspace, user, name=secrets.token_hex(3), scope=scope
    )
    spans = store(
        [
            llm_span(workspace, output=f"answer {i}", expected="x", session_id=session)
            for i in range(len(verdicts))
        ]
    )
    outcomes_write(rule, spans, verdicts, scope=scope)
    return rule, spans


def session_rule(workspace, user, *, name: str, scope: str):
    """A session rule scoring its last answer against its first input (a code evaluator)."""
    version = make_code_version(workspace=workspace, user=user, name=f"Session {name}")
    mapping = {"actual_output": "session:last_output", "reference_output": "session:first_input"}
    return online_rule_create(
        workspace=workspace,
        user=user,
        fields={"name": name, "scope": scope},
        evaluators=[{"evaluator_version": version, "mapping": mapping}],
    )


def outcomes_write(rule, spans, verdicts, *, scope=RuleScope.SPAN):
    evaluator = rule.evaluators.get()
    OnlineOutcome.objects.bulk_create(
        OnlineOutcome(
            rule=rule,
            rule_evaluator=evaluator,
            trace_id=span.trace_id,
            span_id=span.span_id if scope == RuleScope.SPAN else "",
            session_id=span.session_id if scope == RuleScope.SESSION else "",
            item_time=span.start_time,
            rate=1.0,
            status="success",
            verdict=verdict,
        )
        for span, verdict in zip(spans, verdicts, strict=True)
    )


# ----------------------------------------------------------------------------- by a filter


def test_results_by_the_grids_filter_fail_or_unknown_are_added_once(api, workspace, user, queue):
    version = make_evalset_version(
        workspace=workspace, user=user, rows=qa_rows(12, unknown_every=3)
    )
    code = make_code_version(workspace=workspace, user=user)
    run = run_inline(workspace=workspace, user=user, version=version, evaluator_version=code)
    results = Result.objects.filter(experiment=run)
    wanted = {str(r.pk) for r in results if r.verdict in ("fail", "unknown")}
    assert 0 < len(wanted) < results.count()  # some pass: the filter matters
    body = {"experiment": str(run.public_id), "verdicts": ["fail", "unknown"]}
    first = api.post(sources(queue), body, format="json")
    assert first.status_code == 201, first.content
    assert first.json()["added"] == len(wanted) and first.json()["more"] is False
    assert api.post(sources(queue), body, format="json").json()["added"] == 0
    refs = set(QueueItem.objects.values_list("source_ref", flat=True))
    assert refs == wanted and QueueItem.objects.count() == len(wanted)
    item = QueueItem.objects.first()
    assert "row_number" in item.snapshot and item.judge[0]["verdict"] in ("fail", "unknown")


def test_the_grids_filters_narrow_and_a_bad_one_is_named(api, workspace, user, queue):
    experiment, ids = finished_results(workspace=workspace, user=user, rows=8)
    body = {"experiment": experiment, "filter": {"tag": "odd"}}
    assert api.post(sources(queue), body, format="json").json()["added"] == 4
    assert set(QueueItem.objects.values_list("source_ref", flat=True)) == {
        str(pk) for pk in ids[1::2]
    }
    bad = {"experiment": experiment, "verdicts": ["bad"], "filter": {"score_min": "x", "a": 1}}
    assert fields_of(api.post(sources(queue), bad, format="json")) == {
        "verdicts[0]",
        "filter.score_min",
        "filter.a",
    }


def test_a_corrected_verdict_counts_as_the_grid_shows_it(api, workspace, user, queue):
    experiment, ids = finished_results(workspace=workspace, user=user, rows=4)
    passed = Result.objects.filter(pk__in=ids, verdict="pass").first()
    Result.objects.filter(pk=passed.pk).update(human_verdict="fail")
    body = {"experiment": experiment, "verdicts": ["fail"]}
    api.post(sources(queue), body, format="json")
    refs = set(QueueItem.objects.values_list("source_ref", flat=True))
    assert str(passed.pk) in refs and len(refs) == 3  # two failed, one corrected to fail


def test_what_a_rule_judged_by_verdict_is_added_once_with_its_verdicts(api, workspace, user, queue):
    rule, spans = judged(workspace, user, ["pass", "fail", "unknown", "fail"])
    body = {"rule": str(rule.public_id), "verdicts": ["fail", "unknown"]}
    assert api.post(sources(queue), body, format="json").json()["added"] == 3
    assert api.post(sources(queue), body, format="json").json()["added"] == 0
    items = {i.source_ref: i for i in QueueItem.objects.all()}
    assert set(items) == {f"{s.trace_id}:{s.span_id}" for s in spans[1:]}
    item = items[f"{spans[1].trace_id}:{spans[1].span_id}"]
    assert item.source_kind == "span" and item.snapshot["output"] == "answer 1"
    assert [j["verdict"] for j in item.judge] == ["fail"] and item.judge[0]["rule"] == rule.name


def test_sessions_spans_and_the_trace_lists_filters_add_items(api, workspace, user, queue):
    spans = store(
        [
            llm_span(workspace, output="第一个回答", expected="x", session_id="会话-1"),
            llm_span(workspace, output="second", expected="x", session_id="会话-1"),
            llm_span(workspace, output="other", expected="x", model="claude"),
        ]
    )
    one = api.post(sources(queue), {"sessions": ["会话-1"]}, format="json")
    assert one.json()["added"] == 1, one.content
    session = QueueItem.objects.get(source_kind="session")
    assert session.source_ref == "会话-1" and session.snapshot["turns"] == 2
    span = f"{spans[0].trace_id}:{spans[0].span_id}"
    assert api.post(sources(queue), {"spans": [span.upper()]}, format="json").json()["added"] == 1
    by_filter = {"span_filter": {"model": "claude"}}
    assert api.post(sources(queue), by_filter, format="json").json()["added"] == 1
    traces = {"trace_filter": {"session": "会话-1"}}
    assert api.post(sources(queue), traces, format="json").json()["added"] == 2
    assert QueueItem.objects.count() == 5
    bad = {"spans": [span, "nothex:1234", f"{'ab' * 16}:{'cd' * 8}"]}
    assert fields_of(api.post(sources(queue), bad, format="json")) == {"spans[1]", "spans[2]"}
    assert fields_of(api.post(sources(queue), {"sessions": ["nope"]}, format="json")) == {
        "sessions[0]"
    }
    both = {"sessions": ["会话-1"], "spans": [span]}
    assert fields_of(api.post(sources(queue), both, format="json")) == {"experiment"}


# ----------------------------------------------------------------------------- feeds


def test_a_rules_feed_swept_twice_adds_each_item_once(api, workspace, user, queue):
    rule, spans = judged(workspace, user, ["fail", "pass", "unknown", "fail"])
    body = {"kind": "online_rule", "rule": str(rule.public_id), "verdicts": ["fail", "unknown"]}
    made = api.post(feeds(queue), body, format="json")
    assert made.status_code == 201, made.content
    now = timezone.now()
    assert feeds_sweep(now=now) == 0  # younger than the lag: a lower id may still commit
    assert feeds_sweep(now=now + LATER) == 3
    assert feeds_sweep(now=now + LATER) == 0
    more = store([llm_span(workspace, output="late", expected="x") for _ in range(2)])
    outcomes_write(rule, more, ["fail", "pass"])
    assert sweep_feeds.apply().get() == 0  # the task, now: too young
    assert feeds_sweep(now=timezone.now() + LATER) == 1
    assert QueueItem.objects.count() == 4
    assert QueueItem.objects.values("source_ref").distinct().count() == 4
    feed = api.get(f"{feeds(queue)}{made.json()['id']}/").json()
    assert feed["added"] == 4 and feed["swept_at"] and feed["rule_name"] == rule.name


def test_a_batch_another_sweep_took_adds_nothing_and_never_moves_the_cursor_back(
    api, workspace, user, queue
):
    rule, _spans = judged(workspace, user, ["fail", "fail"])
    api.post(feeds(queue), {"kind": "online_rule", "rule": str(rule.public_id)}, format="json")
    later = timezone.now() + LATER
    feed = QueueFeed.objects.get()
    slow = feed_batch_read(feed=feed, now=later)  # a sweep that reads, then stalls
    assert feed_batch_take(feed=feed, batch=feed_batch_read(feed=feed, now=later), now=later) == 2
    outcomes_write(rule, store([llm_span(workspace, output="3", expected="x")]), ["fail"])
    later = timezone.now() + LATER
    assert feeds_sweep(now=later) == 1
    assert feed_batch_take(feed=feed, batch=slow, now=later) == 0  # the cursor moved: taken
    fresh = QueueFeed.objects.get()
    assert fresh.cursor == OnlineOutcome.objects.latest("pk").pk  # not back to the slow one's
    assert fresh.added == 3 == QueueItem.objects.count()
    assert feeds_sweep(now=later) == 0


def test_sampling_keeps_its_rate_within_the_binomial_interval(api, workspace, user, queue):
    n, rate = 2000, 0.3
    rule, spans = judged(workspace, user, ["fail"] * n)
    body = {"kind": "online_rule", "rule": str(rule.public_id), "sampling_rate": rate}
    api.post(feeds(queue), body, format="json")
    feeds_sweep(now=timezone.now() + LATER)
    kept = set(QueueItem.objects.values_list("source_ref", flat=True))
    spread = 3.29 * math.sqrt(n * rate * (1 - rate))  # 99.9 %
    assert abs(len(kept) - n * rate) < spread, len(kept)
    # deterministic: exactly the spans whose key hashes below the rate, at every sweep
    refs = [f"{s.trace_id}:{s.span_id}" for s in spans]
    assert kept == {r for r in refs if sample_position("span", r) < rate}
    smaller = {"sampling_rate": 0.1}
    feed = QueueFeed.objects.get()
    api.patch(f"{feeds(queue)}{feed.public_id}/", smaller, format="json")
    assert {r for r in refs if sample_position("span", r) < 0.1} <= kept  # a subset


def test_an_experiments_feed_waits_for_it_to_finish_then_reads_it_to_the_end(
    api, workspace, user, queue
):
    experiment, ids = finished_results(workspace=workspace, user=user, rows=6)
    Experiment.objects.filter(public_id=experiment).update(status="running")
    body = {"kind": "experiment", "experiment": experiment, "verdicts": ["fail"]}
    made = api.post(feeds(queue), body, format="json")
    assert made.status_code == 201, made.content
    assert feeds_sweep() == 0  # a retry may still rewrite a running run's results
    Experiment.objects.filter(public_id=experiment).update(status="completed")
    assert feeds_sweep() == 3 and feeds_sweep() == 0
    assert QueueFeed.objects.get().done
    assert set(QueueItem.objects.values_list("source_ref", flat=True)) == {
        str(pk) for pk in ids[1::2]
    }


def test_a_feed_is_checked_by_field_and_changed(api, workspace, user, queue):
    experiment, _ids = finished_results(workspace=workspace, user=user, rows=2)
    bad = {
        "kind": "experiment",
        "experiment": experiment,
        "verdicts": ["maybe"],
        "filter": {"status": "nope"},
        "sampling_rate": 0,
    }
    assert fields_of(api.post(feeds(queue), bad, format="json")) == {
        "verdicts[0]",
        "filter.status",
        "sampling_rate",
    }
    good = {"kind": "experiment", "experiment": experiment, "filter": {"tag": "odd"}}
    feed = api.post(feeds(queue), good, format="json").json()
    url = f"{feeds(queue)}{feed['id']}/"
    assert api.patch(url, {"active": False}, format="json").json()["active"] is False
    assert feeds_sweep() == 0
    assert fields_of(api.patch(url, {"rule": feed["id"]}, format="json")) == {"kind"}
    assert api.delete(url).status_code == 204 and not QueueFeed.objects.exists()


# ----------------------------------------------------------------------------- outsiders


def test_foreign_rules_and_experiments_are_named_and_never_read(
    api, workspace, user, queue, outsider
):
    other = Workspace.objects.get(slug="other")
    rule, _spans = judged(other, outsider, ["fail"])
    experiment, _ids = finished_results(workspace=other, user=outsider, rows=2)
    for body, field in [
        ({"rule": str(rule.public_id)}, "rule"),
        ({"experiment": experiment}, "experiment"),
    ]:
        assert fields_of(api.post(sources(queue), body, format="json")) == {field}
        feed = {"kind": "online_rule" if field == "rule" else "experiment", **body}
        assert fields_of(api.post(feeds(queue), feed, format="json")) == {field}
    assert not QueueItem.objects.exists() and not QueueFeed.objects.exists()


def test_an_outsider_reaches_no_queues_sources_feeds_or_assignment(
    api, queue, outsider_api, workspace, user
):
    rule, _spans = judged(workspace, user, ["fail"])
    feed = api.post(
        feeds(queue), {"kind": "online_rule", "rule": str(rule.public_id)}, format="json"
    )
    for url in (
        feeds(queue),
        f"{feeds(queue)}{feed.json()['id']}/",
        f"{Q}{queue['id']}/assignment/",
    ):
        assert outsider_api.get(url).status_code == 404
    body = {"rule": str(rule.public_id)}
    assert outsider_api.post(sources(queue), body, format="json").status_code == 404
    assert not QueueItem.objects.exists()


# ----------------------------------------------------------------------------- assignment


def test_a_queue_assigned_to_members_gives_items_to_them_only(api, workspace, user, queue, member):
    ann, bob = member("ann"), member("bob")
    viewer = member("vic", Membership.Role.VIEWER)
    experiment, ids = finished_results(workspace=workspace, user=user, rows=2)
    api.post(f"{Q}{queue['id']}/items/", {"experiment": experiment, "results": ids}, format="json")
    assignment = f"{Q}{queue['id']}/assignment/"
    set_to = api.post(assignment, {"open_to": "assigned", "assignees": ["ann"]}, format="json")
    assert set_to.status_code == 200, set_to.content
    assert set_to.json() == {"open_to": "assigned", "assignees": ["ann"], "reviewer": False}
    clients = {u.username: client_of(workspace=workspace, user=u) for u in (ann, bob, viewer)}
    next_url = f"{Q}{queue['id']}/next/"
    assert clients["bob"].post(next_url).status_code == 403
    assert clients["vic"].post(next_url).status_code == 403
    assert api.post(next_url).status_code == 403  # an owner too: the queue is assigned
    held = clients["ann"].post(next_url)
    assert held.status_code == 200
    item = f"{Q}{queue['id']}/items/{held.json()['id']}/"
    config = queue["score_configs"][0]
    label = {"values": {config: True}}
    assert clients["bob"].post(f"{item}labels/", label, format="json").status_code == 403
    assert clients["bob"].post(f"{item}skip/", {"reason": "x"}, format="json").status_code == 403
    assert clients["ann"].post(f"{item}labels/", label, format="json").status_code == 201
    detail = api.get(f"{Q}{queue['id']}/").json()
    assert (detail["open_to"], detail["assignees"]) == ("assigned", ["ann"])
    assert clients["ann"].get(assignment).json()["reviewer"] is True


def test_a_queue_open_to_owners_and_who_may_set_it(api, workspace, user, queue, member):
    ann = client_of(workspace=workspace, user=member("ann"))
    assignment = f"{Q}{queue['id']}/assignment/"
    assert ann.post(assignment, {"open_to": "owners"}, format="json").status_code == 403
    assert api.post(assignment, {"open_to": "owners"}, format="json").status_code == 200
    experiment, ids = finished_results(workspace=workspace, user=user, rows=1)
    api.post(f"{Q}{queue['id']}/items/", {"experiment": experiment, "results": ids}, format="json")
    assert ann.post(f"{Q}{queue['id']}/next/").status_code == 403
    assert api.post(f"{Q}{queue['id']}/next/").status_code == 200
    member("vic", Membership.Role.VIEWER)
    bad = {"open_to": "assigned", "assignees": ["ann", "vic", "nobody"]}
    assert fields_of(api.post(assignment, bad, format="json")) == {"assignees[1]", "assignees[2]"}
    assert fields_of(api.post(assignment, {"open_to": "assigned"}, format="json")) == {"assignees"}
    back = api.post(assignment, {"open_to": "reviewers"}, format="json").json()
    assert back["open_to"] == "reviewers" and ann.post(f"{Q}{queue['id']}/next/").status_code in (
        200,
        204,
    )


def test_problems_are_said_in_chinese(api, queue):
    bad = {"open_to": "assigned"}
    answer = api.post(
        f"{Q}{queue['id']}/assignment/", bad, format="json", HTTP_ACCEPT_LANGUAGE="zh-hans"
    )
    message = answer.json()["error"]["details"]["assignees"][0]
    assert any("\u4e00" <= ch <= "\u9fff" for ch in message), message


def test_a_trace_or_session_rules_outcomes_are_traces_and_sessions(api, workspace, user, queue):
    rule, spans = judged(workspace, user, ["fail", "pass"], scope=RuleScope.TRACE)
    selected = {"traces": [spans[0].trace_id]}
    assert api.post(f"{Q}{queue['id']}/items/", selected, format="json").status_code == 201
    body = {"rule": str(rule.public_id), "verdicts": ["fail"]}
    assert api.post(sources(queue), body, format="json").json()["added"] == 0  # the same trace
    assert QueueItem.objects.get().source_ref == spans[0].trace_id
    rule, _spans = judged(
        workspace, user, ["unknown", "unknown"], scope=RuleScope.SESSION, session="会话-9"
    )
    body = {"rule": str(rule.public_id), "verdicts": ["unknown"]}
    assert api.post(sources(queue), body, format="json").json()["added"] == 1  # one session
    session = QueueItem.objects.get(source_kind="session")
    assert session.source_ref == "会话-9" and session.snapshot["turns"] == 2
    assert [j["verdict"] for j in session.judge] == ["unknown", "unknown"]
