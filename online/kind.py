"""The online kind of run (`ONLINE`, registered with `experiments.runs`): a sweep's sampled
spans, scored by one of the rule's evaluator versions per chunk through the one batch runner,
under the engine's leases, dispatch, run-wide slots, cancel and exactly-once writes. This
module says only what a chunk does and what a finished run computes."""

from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import dataclass
from datetime import datetime
from functools import partial

from django.db.models import F

from assay.safety.caps import ANSWER_BYTES, ERROR_BYTES, REASON_BYTES, cap_json, cap_text
from assay.vocabulary import RETRYABLE_STATUSES, ContentType, ResultStatus
from evaluators.runner import RunOutcome, version_run_batch
from experiments.mapping import build_turn
from experiments.runs import chunks as _chunks
from experiments.runs.chunks import ChunkStopped, batch_commit
from experiments.runs.inline import run_inline
from experiments.runs.kinds import RetryPlan, RunKind, run_kind_register
from experiments.scoring import MINI_BATCH as EXPERIMENT_MINI_BATCH
from experiments.scoring.writes import instances_upsert
from traces.models import Span, TraceSummary
from traces.services.to_evalset_rows import session_sources, trace_root_fields

from .mapping import ATTRIBUTE_PREFIX
from .models import OnlineChunk, OnlineOutcome, OnlineRule, OnlineRun, RuleScope, SkipReason

# items between progress bumps and writes: an experiment's (a judge batch keeps `concurrency`
# calls in flight until its last items, so small batches leave the run's slots idle)
MINI_BATCH = EXPERIMENT_MINI_BATCH
# the failure kind of a judge call the provider refused (a 4xx other than 429: a content
# policy, a model it will not serve), as `evaluators.llm.retry` names it
PROVIDER_REFUSED = "rejected"
OUTCOME_FIELDS = (
    "run status skip_reason verdict score reason error rendered_request raw_answer latency_ms "
    "tokens_in tokens_out cost cached"
).split()


class OnlineRuns(RunKind):
    name = "online"
    noun = "online run"
    run_model = OnlineRun
    chunk_model = OnlineChunk
    run_field = "run"
    queues = {"code": ("code",), "llm": ("llm",)}
    kept = "the scored items"
    claim_related = ("run__rule", "run__workspace", "rule_evaluator__evaluator_version")
    messages = {
        "cannot_cancel": "A %(status)s online run cannot be cancelled.",
        "not_finished": "Retry once the online run has finished.",
        "nothing_to_retry": "There are no failed items to retry.",
        "changed": "The online run changed meanwhile; reload it.",
    }

    def work(self, chunk, lease, **options) -> None:
        todo = _missing(chunk)
        for start in range(0, len(todo), MINI_BATCH):
            if not lease.check():
                raise ChunkStopped(lease.reason)
            rows = scored_rows(
                chunk=chunk, items=todo[start : start + MINI_BATCH], cancel=lease.stop
            )
            batch_commit(lease, len(rows), lambda rows=rows: _upsert(rows))

    def settle(self, run_id: int) -> None:
        """The exact count of what the run wrote (concurrent chunks bumped the counter)."""
        count = OnlineOutcome.objects.filter(run_id=run_id).count()
        OnlineRun.objects.filter(pk=run_id).update(results_done=count)

    def retry_plan(self, run) -> RetryPlan:
        """Items whose evaluator errored or timed out are scored again, and any a failed chunk
        never wrote."""
        outcomes = OnlineOutcome.objects.filter(run=run)
        failed = outcomes.filter(status__in=RETRYABLE_STATUSES).count()
        missing = max(run.results_total - outcomes.count(), 0)
        fields = {"results_done": F("results_done") - failed}
        return RetryPlan(count=failed + missing, fields=fields, answer=failed + missing)


ONLINE = run_kind_register(OnlineRuns())
online_run_inline = partial(run_inline, ONLINE)
online_chunk_claim = partial(_chunks.chunk_claim, ONLINE)


def _missing(chunk: OnlineChunk) -> list[dict]:
    """The chunk's items without an outcome of its evaluator (in a retry round: without a
    successful one)."""
    traces = {item["trace_id"] for item in chunk.items}
    have = OnlineOutcome.objects.filter(rule_evaluator=chunk.rule_evaluator_id, trace_id__in=traces)
    if chunk.run.retry_round:
        have = have.exclude(status__in=RETRYABLE_STATUSES)
    done = set(have.values_list("trace_id", "span_id"))
    return [item for item in chunk.items if (item["trace_id"], item["span_id"]) not in done]


def scored_rows(*, chunk: OnlineChunk, items: list[dict], cancel) -> list[OnlineOutcome]:
    """Outcomes of `items` by the chunk's evaluator version: spans found are scored, a span
    retention dropped meanwhile is skipped as not ready (it can no longer be)."""
    subjects = _subjects(chunk.run, items)
    found = [item for item in items if _key(item) in subjects]
    turns = [subject_turn(chunk.rule_evaluator.mapping, subjects[_key(item)]) for item in found]
    outcomes = _judged(chunk, turns, cancel) if turns else []
    rows = [
        _row(chunk, item, subjects[_key(item)].span, outcome)
        for item, outcome in zip(found, outcomes, strict=True)
    ]
    gone = RunOutcome(status=ResultStatus.SKIPPED, error="the span is no longer stored")
    rows += [_row(chunk, item, None, gone) for item in items if _key(item) not in subjects]
    return rows


@dataclass(frozen=True)
class Subject:
    """What an item scores: a span; or a trace, through its root `span` and the fields it holds
    (`traces.services.to_evalset_rows.trace_root_fields`); or a session, through its first
    trace's root and the session's fields (`to_evalset_rows.session_sources`)."""

    span: Span
    fields: dict | None = None


def _key(item: dict) -> tuple[str, str]:
    return item["trace_id"], item["span_id"]


def _subjects(run: OnlineRun | OnlineRule, items: list[dict]) -> dict[tuple[str, str], Subject]:
    """The items' spans (span items) and traces (items with no span id) still stored, in the
    workspace of `run` (a run, or its rule)."""
    wanted = {_key(item) for item in items if item["span_id"]}
    traces = {trace_id for trace_id, _span in wanted}
    spans = Span.objects.filter(workspace_id=run.workspace_id, trace_id__in=traces)
    spans = [s for s in spans if (s.trace_id, s.span_id) in wanted] if traces else []
    found = {(s.trace_id, s.span_id): Subject(s) for s in spans}
    traces = [item["trace_id"] for item in items if not item["span_id"] and not _session(item)]
    by_session = _sessions(run, [_session(item) for item in items if _session(item)])
    sessions = {_key(i): by_session[_session(i)] for i in items if _session(i) in by_session}
    return found | _traces(run, traces) | sessions


def _session(item: dict) -> str:
    return item.get("session_id", "")


def _sessions(run: OnlineRun, session_ids: list[str]) -> dict[str, Subject]:
    """The sessions still stored, by id: each through its first trace's root."""
    if not session_ids:
        return {}
    summaries = TraceSummary.objects.filter(
        workspace_id=run.workspace_id, session_id__in=session_ids
    )
    trace_ids = list(summaries.values_list("trace_id", flat=True))
    sources = session_sources(workspace=run.workspace, session_ids=session_ids, trace_ids=trace_ids)
    return {source.group: Subject(source.root, source.fields) for source in sources}


def _traces(run: OnlineRun, trace_ids: list[str]) -> dict[tuple[str, str], Subject]:
    by_trace: dict[str, list[Span]] = defaultdict(list)
    if trace_ids:
        spans = Span.objects.filter(workspace_id=run.workspace_id, trace_id__in=trace_ids)
        for span in spans.order_by("start_time", "span_id"):
            by_trace[span.trace_id].append(span)
    return {
        (trace_id, ""): Subject(_root(spans), trace_root_fields(spans))
        for trace_id, spans in by_trace.items()
    }


def _root(spans: list[Span]) -> Span:
    return next((s for s in spans if not s.parent_span_id), spans[0])


def outcome_turn(*, outcome: OnlineOutcome) -> dict | None:
    """The turn the rule's evaluator received for this outcome's item, rebuilt from the stored
    spans as its run built it; None when retention dropped them."""
    item = {"trace_id": outcome.trace_id, "span_id": outcome.span_id}
    if outcome.rule.scope == RuleScope.SESSION:
        item["session_id"] = outcome.session_id
    subject = _subjects(outcome.rule, [item]).get(_key(item))
    return None if subject is None else subject_turn(outcome.rule_evaluator.mapping, subject)


def subject_turn(mapping: dict, subject: Subject) -> dict:
    """The evaluator's turn for one item: each variable's source as a content object (a source
    the item lacks is left out, so a required variable skips the turn)."""
    data = {s: content for s in mapping.values() if (content := _content(subject, s))}
    columns = {variable: f"column:{source}" for variable, source in mapping.items()}
    return build_turn(mapping=columns, data=data, target_outputs=None, ext={})


def _content(subject: Subject, source: str) -> dict | None:
    span = subject.span
    if source.startswith(ATTRIBUTE_PREFIX):
        value = (span.attributes or {}).get(source.removeprefix(ATTRIBUTE_PREFIX))
        return (
            None if value is None else _text(value if isinstance(value, str) else json.dumps(value))
        )
    if subject.fields is not None:
        return _trace_content(subject, source)
    field = source.removeprefix("span:")
    if field in ("input_messages", "output_messages"):
        return getattr(span, field) or None
    value = {"input": span.input_text, "output": span.output_text}.get(field)
    return _text(value if value is not None else getattr(span, field, ""))


def _trace_content(subject: Subject, source: str) -> dict | None:
    """A trace's source: its root's fields, falling back to the LLM spans under the root."""
    fields = subject.fields
    if source == "span:input_messages":
        return _conversation(fields.get("input_messages"))
    if source == "span:output_messages":
        return subject.span.output_messages or None
    if source == "session:conversation":
        return _conversation(fields.get("messages"))
    name = FIELD_OF.get(source, source.removeprefix("span:"))
    return _text(fields.get(name) or "")


# a trace's or session's source → its field (`span:<field>` reads the field of that name)
FIELD_OF = {
    "trace:trajectory": "trajectory",
    "session:first_input": "first_input",
    "session:last_output": "last_output",
}


def _conversation(messages: list[dict] | None) -> dict | None:
    return (
        {"content_type": ContentType.CONVERSATION.value, "messages": messages} if messages else None
    )


def _text(value: str) -> dict | None:
    return {"content_type": ContentType.TEXT.value, "text": value} if value else None


def _judged(chunk: OnlineChunk, turns: list[dict], cancel) -> list[RunOutcome]:
    version, run = chunk.rule_evaluator.evaluator_version, chunk.run
    return version_run_batch(
        version=version,
        workspace=run.workspace,
        turns=turns,
        concurrency=run.concurrency,
        cancel=cancel,
        run_key=f"online:{run.rule.public_id}:{version.public_id}",
    )


def _row(chunk: OnlineChunk, item: dict, span: Span | None, outcome: RunOutcome) -> OnlineOutcome:
    return OnlineOutcome(
        rule_id=chunk.run.rule_id,
        rule_evaluator_id=chunk.rule_evaluator_id,
        run_id=chunk.run_id,
        trace_id=item["trace_id"],
        span_id=item["span_id"],
        session_id=_session(item) or (span.session_id if span else ""),
        # a session counts at its first start (its stratum's hour), as the sweep counted it
        item_time=span.start_time
        if span and not _session(item)
        else datetime.fromisoformat(item["start"]),
        rate=item["rate"],
        status=outcome.status,
        skip_reason=_skip_reason(outcome, span),
        verdict=outcome.verdict,
        score=outcome.score,
        reason=cap_text(outcome.reason, REASON_BYTES),
        error=cap_text(outcome.error, ERROR_BYTES),
        rendered_request=cap_json(outcome.rendered_request),
        raw_answer=None
        if outcome.raw_answer is None
        else cap_text(outcome.raw_answer, ANSWER_BYTES),
        latency_ms=outcome.latency_ms,
        tokens_in=outcome.tokens_in,
        tokens_out=outcome.tokens_out,
        cost=outcome.cost,
        cached=outcome.cached,
    )


def _skip_reason(outcome: RunOutcome, span: Span | None) -> str:
    """Why a scored item has no verdict from its evaluator, in the rule's words."""
    if span is None:
        return SkipReason.NOT_READY
    if outcome.status == ResultStatus.SKIPPED:
        return SkipReason.MAPPING
    if outcome.extra.get("failure") == PROVIDER_REFUSED:
        return SkipReason.PROVIDER_BLOCKED  # its message, the provider's, is the error
    if outcome.status in RETRYABLE_STATUSES:
        return SkipReason.EVALUATOR_ERROR
    return ""


def _upsert(rows: list[OnlineOutcome]) -> None:
    """Insert outcomes, or update the one already there: two runners that both found an item
    missing leave exactly one row (COPY and one upsert on PostgreSQL, as experiments write)."""
    instances_upsert(
        rows=rows,
        unique_fields=["rule_evaluator", "trace_id", "span_id"],
        update_fields=OUTCOME_FIELDS,
    )
