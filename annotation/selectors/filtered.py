"""Reads of what a queue may be given by a filter rather than a selection: an experiment's
results by the results grid's filters, an online rule's outcomes by verdict, spans and sessions
of the traces store; their items' snapshots (capped, untrusted text). And who may review a
queue. Everything is scoped to a workspace; an id that is not its own is named, never read."""

from __future__ import annotations

import hashlib
import re

from django.core.exceptions import ValidationError
from django.db.models import Q, QuerySet
from django.utils.translation import gettext as _

from assay.models import Workspace
from assay.selectors import unknown_named
from assay.vocabulary import Verdict
from evalsets.items.cells import CellError
from evalsets.items.conversation import conversation_content
from experiments.models import Experiment
from experiments.results.grid import FINAL_VERDICT
from experiments.selectors import results_list
from online.models import OnlineOutcome, OnlineRule, RuleScope, SkipReason
from traces.models import Span, TraceSummary
from traces.selectors import session_turns, spans_filtered

from ..models import AnnotationQueue, ItemSource, QueueAccess
from . import (
    HEX_TRACE_ID,
    MAX_JUDGE_ENTRIES,
    SourceItem,
    outcome_verdict,
    result_items,
    snapshot_capped,
    trace_items,
)

# the results grid's filters a queue may use (the grid's own, verdicts aside: a list here)
GRID_FILTERS = ("evaluator", "status", "tag", "q", "score_min", "score_max")
# outcomes no judge gave a verdict on by choice: not items to review
NOT_JUDGED = (SkipReason.FILTERED, SkipReason.SAMPLED_OUT, SkipReason.OVER_BUDGET)
SAMPLING_SALT = "annotation"  # not online's cohort hash: a queue samples across rules' cohorts
HEX_SPAN_ID = re.compile(r"^[0-9a-f]{16}$")
SESSION_TURNS = 50  # a session's traces shown in one item


# ----------------------------------------------------------------------------- sampling


def sample_position(kind: str, ref: str) -> float:
    """An item's place in [0, 1), from its source's key alone: the same item is in or out of a
    sample at every sweep, and a sample at 10 % is a subset of one at 20 %. Salted so that it
    is independent of the online rules' own cohort sampling of the same traces."""
    digest = hashlib.sha256(f"{SAMPLING_SALT}:{kind}:{ref}".encode()).digest()
    return int.from_bytes(digest[:8], "big") / float(1 << 64)


def in_queue_sample(kind: str, ref: str, rate: float) -> bool:
    return sample_position(kind, ref) < rate


# ----------------------------------------------------------------------------- experiments


def verdicts_problems(verdicts: list[str], field: str = "verdicts") -> dict:
    return unknown_named(field, verdicts, Verdict.values, _("Use pass, fail or unknown."))


def results_matching(*, experiment: Experiment, verdicts: list[str], filters: dict) -> QuerySet:
    """The experiment's results the results grid's `filters` select (`results_list`, the
    grid's own parsing) whose final verdict (a human correction first) is one of `verdicts`
    (empty: any), by id. A bad filter is a ValidationError naming `filter.<name>`."""
    errors = verdicts_problems(verdicts)
    wanted = {k: str(v) for k, v in filters.items() if k in GRID_FILTERS and v not in (None, "")}
    errors |= {f"filter.{k}": [_("No such filter.")] for k in filters if k not in GRID_FILTERS}
    try:
        results = results_list(experiment=experiment, **wanted)
    except ValidationError as exc:
        errors |= {f"filter.{k}": v for k, v in exc.message_dict.items()}
    if errors:
        raise ValidationError(errors)
    if verdicts:
        results = results.alias(final=FINAL_VERDICT).filter(final__in=verdicts)
    return results.order_by("pk")


def result_items_of(*, workspace: Workspace, experiment: Experiment, pks: list[int]) -> list:
    """The items of these results of the experiment (snapshots as a selection makes them)."""
    if not pks:
        return []
    found = result_items(workspace=workspace, experiment_id=experiment.public_id, result_ids=pks)
    return found["items"]


def queue_refs(*, queue: AnnotationQueue, kind: str) -> QuerySet:
    return queue.items.filter(source_kind=kind).values("source_ref")


# ----------------------------------------------------------------------------- online rules


def outcomes_matching(*, rule: OnlineRule, verdicts: list[str]) -> QuerySet[OnlineOutcome]:
    """The rule's outcomes a judge gave (not filtered, sampled out or over budget) with one of
    `verdicts` (empty: any), by id."""
    outcomes = OnlineOutcome.objects.filter(rule=rule).exclude(skip_reason__in=NOT_JUDGED)
    if verdicts:
        outcomes = outcomes.filter(verdict__in=verdicts)
    return outcomes.order_by("pk")


def outcome_key(outcome: OnlineOutcome, scope: str) -> tuple[str, str]:
    """What an outcome judged, as an item's source: a span, a trace or a session."""
    if scope == RuleScope.SESSION:
        return ItemSource.SESSION, outcome.session_id
    if scope == RuleScope.TRACE or not outcome.span_id:
        return ItemSource.TRACE, outcome.trace_id
    return ItemSource.SPAN, f"{outcome.trace_id}:{outcome.span_id}"


TRAFFIC = (ItemSource.SPAN, ItemSource.TRACE, ItemSource.SESSION)


def traffic_outcomes(*, queue: AnnotationQueue, item_pks) -> dict[int, dict]:
    """Item pk → {evaluator version: its newest outcome}, for the queue's items of live traffic
    (spans, traces, sessions) that the workspace's online rules judged as that same subject: a
    span rule's verdict on one span never stands for its trace, nor a trace rule's for a span."""
    items = queue.items.filter(pk__in=list(item_pks), source_kind__in=TRAFFIC)
    keys = {
        (kind, ref): pk for pk, kind, ref in items.values_list("pk", "source_kind", "source_ref")
    }
    outcomes = OnlineOutcome.objects.filter(
        _subjects_q(keys), rule__workspace=queue.workspace
    ).exclude(skip_reason__in=NOT_JUDGED)
    found: dict[int, dict] = {}
    related = outcomes.select_related("rule", "rule_evaluator__evaluator_version__evaluator")
    for outcome in related.order_by("created_at", "pk"):  # the newest verdict last, and kept
        pk = keys.get(outcome_key(outcome, outcome.rule.scope))
        if pk is not None:
            found.setdefault(pk, {})[outcome.rule_evaluator.evaluator_version] = outcome
    return found


def _subjects_q(keys) -> Q:
    """The outcomes that may have judged these subjects, each kind by its own index: a span's
    (trace and span id), a trace's (no span id), a session's (its id)."""
    refs = {kind: [ref for k, ref in keys if k == kind] for kind in TRAFFIC}
    spans = [ref.split(":") for ref in refs[ItemSource.SPAN]]
    query = Q(trace_id__in=refs[ItemSource.TRACE], span_id="")
    query |= Q(trace_id__in=[t for t, _ in spans], span_id__in=[s for _, s in spans])
    return query | Q(session_id__in=refs[ItemSource.SESSION])


def outcome_items(*, rule: OnlineRule, outcomes: list[OnlineOutcome]) -> list[SourceItem]:
    """The items of what these outcomes of the rule judged, each with the rule's verdicts on
    it; a span, trace or session gone from the store (retention) gives none."""
    refs = list(dict.fromkeys(outcome_key(o, rule.scope)[1] for o in outcomes))
    workspace = rule.workspace
    if rule.scope == RuleScope.SESSION:
        items = session_items(workspace=workspace, session_ids=refs)
    elif rule.scope == RuleScope.TRACE:
        found = TraceSummary.objects.filter(workspace=workspace, trace_id__in=refs)
        stored = list(found.values_list("trace_id", flat=True))
        items = trace_items(workspace=workspace, trace_ids=stored)["items"] if stored else []
    else:
        items = span_items(workspace=workspace, refs=refs, lenient=True)["items"]
    judges = _rule_verdicts(rule, outcomes)
    return [SourceItem(i.kind, i.ref, i.snapshot, judges.get(i.ref, [])) for i in items]


def _rule_verdicts(rule: OnlineRule, outcomes: list[OnlineOutcome]) -> dict[str, list[dict]]:
    """The rule's verdicts on each subject of these outcomes (all its evaluators)."""
    found: dict[str, list[dict]] = {}
    wanted = {outcome_key(o, rule.scope)[1] for o in outcomes}
    rows = outcomes_matching(rule=rule, verdicts=[])
    if rule.scope == RuleScope.SESSION:  # a session's outcomes may name any of its traces
        rows = rows.filter(session_id__in=wanted)
    else:
        rows = rows.filter(trace_id__in={o.trace_id for o in outcomes})
    for outcome in rows.select_related("rule_evaluator__evaluator_version__evaluator"):
        ref = outcome_key(outcome, rule.scope)[1]
        if ref in wanted and len(found.get(ref, ())) < MAX_JUDGE_ENTRIES:
            found.setdefault(ref, []).append(_verdict(rule, outcome))
    return found


def _verdict(rule: OnlineRule, outcome: OnlineOutcome) -> dict:
    return {"rule": rule.name, **outcome_verdict(outcome)}


def online_rule_find(*, workspace: Workspace, public_id) -> OnlineRule | None:
    """The workspace's rule of that id, or None (a malformed id too)."""
    try:
        return OnlineRule.objects.filter(workspace=workspace, public_id=public_id).first()
    except (ValueError, ValidationError):
        return None


# ----------------------------------------------------------------------------- spans, sessions


def span_refs_parsed(refs: list[str]) -> list[tuple[str, str] | None]:
    """ "<trace id>:<span id>" as (trace, span) in lower case; None for a malformed one."""
    parsed = []
    for ref in refs:
        trace, _colon, span = str(ref).lower().partition(":")
        good = HEX_TRACE_ID.match(trace) and HEX_SPAN_ID.match(span)
        parsed.append((trace, span) if good else None)
    return parsed


def span_items(*, workspace: Workspace, refs: list[str], lenient: bool = False) -> dict:
    """Items of the workspace's spans ("<trace id>:<span id>"): the span's input and output,
    its name, kind and model. {"items"} or {"errors"} naming each that is not one (`lenient`:
    those are left out)."""
    parsed = span_refs_parsed(refs)
    good = [p for p in parsed if p]
    spans = {}
    if good:
        rows = Span.objects.filter(
            workspace=workspace,
            trace_id__in={t for t, _s in good},
            span_id__in={s for _t, s in good},
        ).only("trace_id", "span_id", "name", "kind", "model", "input_text", "output_text")
        spans = {(s.trace_id, s.span_id): s for s in rows}
    errors = unknown_named("spans", parsed, spans, _("No such span in this workspace."))
    if errors and not lenient:
        return {"errors": errors}
    keys = [p for p in dict.fromkeys(parsed) if p in spans]
    return {"items": [_span_item(spans[k]) for k in keys]}


def _span_item(span: Span) -> SourceItem:
    snapshot = {
        "input": span.input_text or "",
        "output": span.output_text or "",
        "span": {"name": span.name, "kind": span.kind, "model": span.model},
    }
    ref = f"{span.trace_id}:{span.span_id}"
    return SourceItem(ItemSource.SPAN, ref, snapshot_capped(snapshot))


def session_items(*, workspace: Workspace, session_ids: list[str]) -> list[SourceItem]:
    """Items of the workspace's sessions that exist (its first `SESSION_TURNS` traces as one
    conversation: the first input, the last output and every turn between)."""
    items = []
    for session in dict.fromkeys(s for s in session_ids if s):
        traces = list(
            TraceSummary.objects.filter(workspace=workspace, session_id=session).order_by(
                "start_time", "trace_id"
            )[:SESSION_TURNS]
        )
        if traces:
            items.append(_session_item(session, session_turns(workspace=workspace, traces=traces)))
    return items


def _session_item(session: str, turns: list[dict]) -> SourceItem:
    messages = []
    for turn in turns:
        messages += [{"role": "user", "content": turn["input"]}] if turn["input"] else []
        messages += [{"role": "assistant", "content": turn["output"]}] if turn["output"] else []
    try:
        chat = conversation_content(messages) if messages else None
    except CellError:  # longer than a conversation holds: the first input and last output
        chat = None
    said = next((t["input"] for t in turns if t["input"]), "")
    answered = next((t["output"] for t in reversed(turns) if t["output"]), "")
    snapshot = {"input": said, "output": answered, "conversation": chat, "turns": len(turns)}
    return SourceItem(ItemSource.SESSION, session, snapshot_capped(snapshot))


def sessions_named(*, workspace: Workspace, session_ids: list[str]) -> dict:
    """{"items"} of the named sessions, or {"errors"} naming each the workspace has none of."""
    known = set(
        TraceSummary.objects.filter(workspace=workspace, session_id__in=session_ids)
        .values_list("session_id", flat=True)
        .distinct()
    )
    errors = unknown_named("sessions", session_ids, known, _("No such session in this workspace."))
    if errors:
        return {"errors": errors}
    return {"items": session_items(workspace=workspace, session_ids=session_ids)}


def spans_by_filter(*, workspace: Workspace, filters: dict, limit: int) -> list[str]:
    """The refs of the newest `limit` spans the traces app's span filters select."""
    spans = spans_filtered(workspace=workspace, filters=filters)[:limit]
    return [f"{t}:{s}" for t, s in spans.values_list("trace_id", "span_id")]


# ----------------------------------------------------------------------------- who reviews


def queue_reviewer_is(*, queue: AnnotationQueue, user, membership) -> bool:
    """Whether the member may review the queue's items: viewers never; else as the queue is
    open (editors and owners, owners only, or only its assigned members)."""
    if membership is None or membership.role == membership.Role.VIEWER:
        return False
    if queue.open_to == QueueAccess.ASSIGNED:
        return queue.assignees.filter(pk=user.pk).exists()
    if queue.open_to == QueueAccess.OWNERS:
        return membership.role == membership.Role.OWNER
    return True
