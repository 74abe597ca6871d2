"""The sweep: every few seconds each active rule looks at the spans stored since its last
sweep, counts the eligible ones by hour and sampling rate (its strata), samples them by cohort,
and hands the sampled ones to a new online run. A rule is swept by one worker at a time (its
row is locked, others skip it) and its cursor moves in the same transaction as the run is
created: a sweep that runs twice, or dies midway, never samples a span twice or loses one.

Spans are looked at by when they were stored (`received_at`), up to `ASSAY_ONLINE_SWEEP_LAG_S`
ago: a storing transaction still open when the sweep passes would otherwise be missed.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import Count, F, Max, Min, Q, Sum

from assay.jobs import each_apart
from assay.vocabulary import EXPERIMENT_MARKER, ResultStatus
from evaluators.kinds import kind_get
from experiments.runs.services import run_launched
from traces.models import Span, TraceSummary

from ..filters import filter_q
from ..kind import ONLINE
from ..models import (
    OnlineChunk,
    OnlineOutcome,
    OnlineRule,
    OnlineRun,
    RuleScope,
    RuleStratum,
    RunSource,
    SkipReason,
)
from ..sampling import in_sample

CHUNK_ITEMS = 1000  # an experiment chunk's rows: one judge mini-batch
DAY_S = 24 * 3600
# the budget halves the rate at most this many times before it stops sampling for the day
HALVINGS = 10


@dataclass
class SweepPlan:
    """What one sweep found: eligible and sampled counts by (hour, rate), the sampled items,
    and the sampled items the day's budget had no room for."""

    eligible: Counter = field(default_factory=Counter)
    sampled: Counter = field(default_factory=Counter)
    over: Counter = field(default_factory=Counter)
    items: list[dict] = field(default_factory=list)
    over_budget: list[dict] = field(default_factory=list)


def rules_sweep(*, now: datetime) -> int:
    """Sweep every active rule (each in its own transaction; a rule another worker is sweeping
    is skipped, one that fails is logged and the others go on); the online runs launched."""
    rules = OnlineRule.objects.filter(active=True).values_list("pk", flat=True)
    runs = each_apart(rules, lambda pk: online_sweep(rule_id=pk, now=now), what="online rule")
    return sum(run is not None for run in runs)


def online_sweep(
    *, rule_id: int, now: datetime, chunk_items: int = CHUNK_ITEMS
) -> OnlineRun | None:
    """Sweep one rule (see the module); the launched run, or None when there was nothing to
    score, the rule is paused or another worker is sweeping it."""
    with transaction.atomic():
        rule = _locked(rule_id)
        if rule is None or rule.scope not in PLANNERS:
            return None
        # spans and sessions: stored up to the lag ago; traces: ready by now (the lag is in
        # their readiness)
        lag = timedelta(seconds=settings.ASSAY_ONLINE_SWEEP_LAG_S)
        until = now if rule.scope == RuleScope.TRACE else now - lag
        if not _due(rule, until):
            return None
        rate = rate_in_force(rule=rule, now=now)
        plan = PLANNERS[rule.scope](rule, until, rate, _budget_left(rule, now))
        strata_add(rule, plan, rate)
        _over_budget_write(rule, plan.over_budget)
        run = run_create(rule, until, plan.items, size=chunk_items) if plan.items else None
        rule.swept_until, rule.rate_in_force, rule.rate_day = until, rate, now.date()
        rule.save(update_fields=["swept_until", "rate_in_force", "rate_day"])
    return run


def _locked(rule_id: int) -> OnlineRule | None:
    rules = OnlineRule.objects.select_for_update(skip_locked=True)
    return rules.filter(pk=rule_id, active=True).first()


def _due(rule: OnlineRule, until: datetime) -> bool:
    return rule.swept_until is None or rule.swept_until < until


def eligible_spans(*, rule: OnlineRule, since: datetime | None, until: datetime):
    """The rule's spans stored in (since, until]: its environment, its filter, never Assay's
    own calls."""
    spans = Span.objects.filter(workspace_id=rule.workspace_id, received_at__lte=until)
    if since is not None:
        spans = spans.filter(received_at__gt=since)
    if rule.environment:
        spans = spans.filter(environment=rule.environment)
    spans = spans.exclude(attributes__has_key=EXPERIMENT_MARKER)
    return spans.filter(filter_q(rule.filter))


def _plan(rule: OnlineRule, until: datetime, rate: float, room: int | None) -> SweepPlan:
    """A span rule's plan: its eligible spans stored since its cursor."""
    plan = SweepPlan()
    spans = eligible_spans(rule=rule, since=rule.swept_until, until=until)
    rows = spans.order_by("received_at", "start_time").values_list(
        "trace_id", "span_id", "start_time"
    )
    for trace_id, span_id, start in rows.iterator(chunk_size=2000):
        plan_add(plan, trace_id, span_id, start, rate, room)
    return plan


def plan_add(
    plan: SweepPlan, trace_id: str, span_id: str, start, rate: float, room, session_id: str = ""
) -> None:
    """Count one eligible item in its stratum and, when the cohort holds it, sample it (or
    record it over budget when the day's room is used up). A session's item is its first
    trace's id with `session_id`, drawn by the session's cohort."""
    hour = start.replace(minute=0, second=0, microsecond=0)
    plan.eligible[hour] += 1
    if not in_sample(trace_id, rate, session_id=session_id):
        return
    item = {"trace_id": trace_id, "span_id": span_id, "rate": rate, "start": start.isoformat()}
    if session_id:
        item["session_id"] = session_id
    if room is not None and len(plan.items) >= room:
        plan.over[hour] += 1
        plan.over_budget.append(item)
    else:
        plan.sampled[hour] += 1
        plan.items.append(item)


def _plan_traces(rule: OnlineRule, until: datetime, rate: float, room: int | None) -> SweepPlan:
    """A trace rule's plan: the traces that became ready since its cursor (see
    `ready_traces`), eligible when one of their spans passes the rule's environment and filter
    and none is Assay's own; a trace scored before is not scored again."""
    plan = SweepPlan()
    ready = ready_traces(rule=rule, since=rule.swept_until, until=until)
    for part in _parts(sorted(ready)):
        spans = Span.objects.filter(workspace_id=rule.workspace_id, trace_id__in=part)
        marked = set(
            spans.filter(attributes__has_key=EXPERIMENT_MARKER).values_list("trace_id", flat=True)
        )
        matching = eligible_spans(rule=rule, since=None, until=until).filter(trace_id__in=part)
        eligible = set(matching.values_list("trace_id", flat=True)) - marked
        done = set(
            rule.outcomes.filter(span_id="", trace_id__in=part).values_list("trace_id", flat=True)
        )
        for trace_id in sorted(eligible - done, key=lambda t: ready[t]):
            plan_add(plan, trace_id, "", ready[trace_id], rate, room)
    return plan


def ready_traces(*, rule: OnlineRule, since: datetime, until: datetime) -> dict[str, datetime]:
    """Traces that became ready in (since, until], with their first start. A trace is ready
    once no span of it has arrived for the sweep's lag after its root span arrived, or for the
    rule's `idle_seconds` while its root has not: a child arriving late moves its readiness on,
    and a trace is looked at once it has been quiet."""
    lag = timedelta(seconds=settings.ASSAY_ONLINE_SWEEP_LAG_S)
    idle = timedelta(seconds=rule.idle_seconds)
    spans = Span.objects.filter(workspace_id=rule.workspace_id)
    recent = spans.filter(received_at__gt=since - idle - lag, received_at__lte=until)
    candidates = list(recent.order_by().values_list("trace_id", flat=True).distinct())
    ready = {}
    for part in _parts(candidates):
        stats = (
            spans.filter(trace_id__in=part)
            .values("trace_id")
            .annotate(
                last=Max("received_at"),
                first=Min("start_time"),
                roots=Count("pk", filter=Q(parent_span_id="")),
            )
        )
        for row in stats:
            at = row["last"] + (lag if row["roots"] else idle)
            if since < at <= until:
                ready[row["trace_id"]] = row["first"]
    return ready


def _parts(values: list, size: int = 1000):
    for start in range(0, len(values), size):
        yield values[start : start + size]


def _plan_sessions(rule: OnlineRule, until: datetime, rate: float, room: int | None) -> SweepPlan:
    """A session rule's plan: the sessions that became ready since its cursor (see
    `ready_sessions`), eligible as `sessions_eligible` says; each counted at its first
    start."""
    plan = SweepPlan()
    ready = ready_sessions(rule=rule, since=rule.swept_until, until=until)
    for session_id in sessions_eligible(rule=rule, sessions=ready, until=until):
        info = ready[session_id]
        plan_add(plan, info.trace_ids[0], "", info.first_start, rate, room, session_id)
    return plan


@dataclass(frozen=True)
class SessionInfo:
    """A session as a rule sees it: its traces in start order (the first names its item), its
    first start, and when it was first ready (None: none of its spans is stored any more)."""

    trace_ids: list[str]
    first_start: datetime
    first_ready: datetime | None


def ready_sessions(*, rule: OnlineRule, since: datetime, until: datetime) -> dict:
    """Sessions first ready in (since, until]: a session is ready once no span of its traces
    has been received for the rule's `idle_seconds`, and it is an item once, at the first time
    it was (later traces of it are not scored again). Spans without a session id (traces
    without one) are never a session's."""
    idle = timedelta(seconds=rule.idle_seconds)
    spans = Span.objects.filter(workspace_id=rule.workspace_id)
    recent = spans.filter(received_at__gt=since - idle, received_at__lte=until)
    traces = list(recent.order_by().values_list("trace_id", flat=True).distinct())
    session_ids = set()
    for part in _parts(traces):
        summaries = TraceSummary.objects.filter(workspace_id=rule.workspace_id, trace_id__in=part)
        session_ids |= set(summaries.exclude(session_id="").values_list("session_id", flat=True))
    infos = sessions_info(rule=rule, session_ids=sorted(session_ids))
    return {
        sid: info
        for sid, info in infos.items()
        if info.first_ready is not None and since < info.first_ready <= until
    }


def sessions_info(*, rule: OnlineRule, session_ids: list[str]) -> dict[str, SessionInfo]:
    """Each session's traces (their summaries, by the session index) and when it first went
    quiet for the rule's idle time, from when each trace's spans were received."""
    infos = {}
    for part in _parts(session_ids):
        summaries = TraceSummary.objects.filter(
            workspace_id=rule.workspace_id, session_id__in=part
        ).order_by("start_time", "trace_id")
        rows = list(summaries.values_list("session_id", "trace_id", "start_time"))
        received = _received(rule.workspace_id, [trace for _s, trace, _t in rows])
        by_session = defaultdict(list)
        for session_id, trace_id, start in rows:
            by_session[session_id].append((trace_id, start))
        for session_id, traces in by_session.items():
            intervals = sorted(received[t] for t, _start in traces if t in received)
            infos[session_id] = SessionInfo(
                trace_ids=[t for t, _start in traces],
                first_start=traces[0][1],
                first_ready=_first_quiet(intervals, timedelta(seconds=rule.idle_seconds)),
            )
    return infos


def _received(workspace_id: int, trace_ids: list[str]) -> dict[str, tuple[datetime, datetime]]:
    """Each trace's first and last span received (traces retention dropped are left out)."""
    found = {}
    for part in _parts(trace_ids):
        rows = (
            Span.objects.filter(workspace_id=workspace_id, trace_id__in=part)
            .values("trace_id")
            .annotate(first=Min("received_at"), last=Max("received_at"))
        )
        found |= {row["trace_id"]: (row["first"], row["last"]) for row in rows}
    return found


def _first_quiet(intervals: list[tuple[datetime, datetime]], idle: timedelta):
    """When spans received over these (first, last) intervals, in order, first stopped for
    `idle`: the end of the first gap longer than it, else the last span's arrival plus it."""
    if not intervals:
        return None
    end = intervals[0][1]
    for first, last in intervals[1:]:
        if first > end + idle:
            break
        end = max(end, last)
    return end + idle


def sessions_eligible(*, rule: OnlineRule, sessions: dict, until: datetime) -> list[str]:
    """The sessions (id → SessionInfo) a rule scores, by first start: one span of their
    traces stored by `until` passes the rule's environment and filter, none is Assay's own,
    and the rule has no outcome for them yet."""
    traces = [trace for info in sessions.values() for trace in info.trace_ids]
    marked, matching, done = set(), set(), set()
    for part in _parts(traces):
        spans = Span.objects.filter(workspace_id=rule.workspace_id, trace_id__in=part).order_by()
        marked |= _trace_ids(spans.filter(attributes__has_key=EXPERIMENT_MARKER))
        matching |= _trace_ids(eligible_spans(rule=rule, since=None, until=until), part)
        done |= _trace_ids(rule.outcomes.filter(span_id=""), part)
    chosen = [
        sid
        for sid, info in sessions.items()
        if not matching.isdisjoint(info.trace_ids)
        and marked.isdisjoint(info.trace_ids)
        and info.trace_ids[0] not in done
    ]
    return sorted(chosen, key=lambda sid: (sessions[sid].first_start, sid))


def _trace_ids(rows, among: list[str] | None = None) -> set[str]:
    if among is not None:
        rows = rows.filter(trace_id__in=among)
    return set(rows.order_by().values_list("trace_id", flat=True))


PLANNERS = {RuleScope.SPAN: _plan, RuleScope.TRACE: _plan_traces, RuleScope.SESSION: _plan_sessions}


def strata_add(rule: OnlineRule, plan: SweepPlan, rate: float) -> None:
    """Add a plan's counts to the rule's strata (hour × rate)."""
    for hour, eligible in plan.eligible.items():
        stratum, _ = RuleStratum.objects.get_or_create(rule=rule, hour=hour, rate=rate)
        RuleStratum.objects.filter(pk=stratum.pk).update(
            eligible=F("eligible") + eligible,
            sampled=F("sampled") + plan.sampled[hour],
            over_budget=F("over_budget") + plan.over[hour],
        )


def _over_budget_write(rule: OnlineRule, items: list[dict]) -> None:
    """A sampled item the day's budget had no room for is recorded as such, per evaluator."""
    rows = [
        OnlineOutcome(
            rule=rule,
            rule_evaluator=evaluator,
            trace_id=item["trace_id"],
            span_id=item["span_id"],
            session_id=item.get("session_id", ""),
            item_time=datetime.fromisoformat(item["start"]),
            rate=item["rate"],
            status=ResultStatus.SKIPPED,
            skip_reason=SkipReason.OVER_BUDGET,
        )
        for evaluator in rule.evaluators.all()
        for item in items
    ]
    OnlineOutcome.objects.bulk_create(rows, batch_size=1000, ignore_conflicts=True)


def run_create(
    rule: OnlineRule,
    until: datetime,
    items: list[dict],
    *,
    size: int = CHUNK_ITEMS,
    source: str = RunSource.LIVE,
    since: datetime | None = None,
) -> OnlineRun:
    """A launched run with chunks of `size` items for each of the rule's evaluators (a live
    sweep's covers the spans stored since the rule's cursor)."""
    run = OnlineRun.objects.create(
        workspace_id=rule.workspace_id,
        rule=rule,
        name=f"{rule.name} · {until:%Y-%m-%d %H:%M:%S}",
        source=source,
        concurrency=rule.concurrency,
        since=since if source == RunSource.BACKFILL else rule.swept_until,
        until=until,
    )
    chunks = []
    for evaluator in rule.evaluators.select_related("evaluator_version"):
        queue = kind_queue(evaluator.evaluator_version.kind)
        for start in range(0, len(items), size):
            chunks.append(
                OnlineChunk(
                    run=run,
                    index=len(chunks),
                    rule_evaluator=evaluator,
                    kind=queue,
                    items=items[start : start + size],
                )
            )
    OnlineChunk.objects.bulk_create(chunks)
    run_launched(
        kind=ONLINE,
        run_id=run.pk,
        items_total=len(items),
        results_total=len(items) * len({c.rule_evaluator_id for c in chunks}),
        chunks_total=len(chunks),
    )
    run.refresh_from_db()
    return run


def kind_queue(evaluator_kind: str) -> str:
    """The broker queue of an evaluator kind's chunks ("code" or "llm")."""
    return kind_get(evaluator_kind).queue


# ---------------------------------------------------------------------------- the budget


def _day_start(now: datetime) -> datetime:
    return now.replace(hour=0, minute=0, second=0, microsecond=0)


def _budget_left(rule: OnlineRule, now: datetime) -> int | None:
    """Items the day's item budget still has room for (None: no item budget)."""
    if rule.daily_item_budget is None:
        return None
    today = rule.strata.filter(hour__gte=_day_start(now)).aggregate(n=Sum("sampled"))["n"] or 0
    return max(rule.daily_item_budget - today, 0)


def rate_in_force(*, rule: OnlineRule, now: datetime) -> float:
    """The sampling rate for this sweep: the rule's, lowered by halving (so each lower sample
    lies inside the higher one) when the day's traffic so far says the item budget would run
    out before the day ends, 0 once a budget is spent. It only goes down within a day."""
    current = rule.sampling_rate
    if rule.rate_day == now.date() and rule.rate_in_force is not None:
        current = min(current, rule.rate_in_force)
    if _cost_spent(rule, now):
        return 0.0
    left = _budget_left(rule, now)
    if left is None or current == 0:
        return current
    if left == 0:
        return 0.0
    expected = _expected_rest_of_day(rule, now)
    for _ in range(HALVINGS):
        if expected is None or current * expected <= left:
            return current
        current /= 2
    return current if current * expected <= left else 0.0


def _expected_rest_of_day(rule: OnlineRule, now: datetime) -> float | None:
    """Eligible items expected before midnight at today's pace (None before an hour of it)."""
    start = _day_start(now)
    elapsed = (now - start).total_seconds()
    seen = rule.strata.filter(hour__gte=start).aggregate(n=Sum("eligible"))["n"] or 0
    if elapsed < 3600 or not seen:
        return None
    return seen / elapsed * (DAY_S - elapsed)


def _cost_spent(rule: OnlineRule, now: datetime) -> bool:
    if rule.daily_cost_budget is None:
        return False
    today = rule.outcomes.filter(created_at__gte=_day_start(now)).aggregate(c=Sum("cost"))["c"]
    return (today or 0) >= float(rule.daily_cost_budget)
