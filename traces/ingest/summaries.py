"""Per-trace summaries (`TraceSummary`), kept by the worker in the transaction that stores the
spans: only the spans actually inserted count, so an exporter's retry (a span stored before)
adds nothing, and spans of one trace arriving in any order and in any number of batches add up
to the same row.

PostgreSQL: the staging table's `INSERT … ON CONFLICT DO NOTHING RETURNING` feeds one
aggregate per trace into `INSERT … ON CONFLICT DO UPDATE`, which combines it with the row
there (sums add, first start and last end widen, the root's name and service come with the
root, the distinct models and kinds merge). SQLite (one writer at a time): the new spans are
told from the stored ones by a read first, then the same combination is made in Python."""

from __future__ import annotations

from ..models import Span, SpanStatus, TraceSummary

SUMMARY_COLUMNS = (
    "workspace_id, trace_id, has_root, root_name, service, environment, session_id, user_id, "
    "start_time, end_time, duration_ms, span_count, error_count, tokens_in, tokens_out, "
    "tokens_total, cost, models_seen, kinds_seen"
)


def _merged(column: str) -> str:
    """The distinct "|a|b|" values of the stored row and the new aggregate, sorted."""
    return (
        f"(SELECT coalesce('|' || string_agg(DISTINCT v, '|' ORDER BY v) || '|', '') "
        f"FROM unnest(string_to_array(s.{column} || EXCLUDED.{column}, '|')) v WHERE v <> '')"
    )


def _kept(column: str) -> str:
    return f"coalesce(nullif(s.{column}, ''), EXCLUDED.{column})"


# The spans inserted from the staging table (their `RETURNING`), one aggregate per trace,
# merged into the summaries. Sorted by trace id so two workers lock summaries in one order.
INSERT_AND_SUMMARISE = f"""
WITH new AS (
    INSERT INTO traces_span ({{columns}}) SELECT {{columns}} FROM traces_span_incoming
    ON CONFLICT DO NOTHING
    RETURNING workspace_id, trace_id, parent_span_id, name, service, environment, session_id,
        user_id, start_time, end_time, status, tokens_in, tokens_out, cost, model, kind
), per_trace AS (
    SELECT workspace_id, trace_id,
        bool_or(parent_span_id = '') AS has_root,
        coalesce((array_agg(name ORDER BY start_time) FILTER (WHERE parent_span_id = ''))[1], '')
            AS root_name,
        coalesce((array_agg(service ORDER BY start_time) FILTER (WHERE parent_span_id = ''))[1],
            max(service)) AS service,
        max(environment) AS environment, max(session_id) AS session_id, max(user_id) AS user_id,
        min(start_time) AS start_time, max(end_time) AS end_time,
        count(*) AS span_count, count(*) FILTER (WHERE status = '{SpanStatus.ERROR}') AS errors,
        coalesce(sum(tokens_in), 0) AS tokens_in, coalesce(sum(tokens_out), 0) AS tokens_out,
        coalesce(sum(cost), 0) AS cost,
        coalesce('|' || string_agg(DISTINCT model, '|') FILTER (WHERE model <> '') || '|', '')
            AS models_seen,
        '|' || string_agg(DISTINCT kind, '|') || '|' AS kinds_seen
    FROM new GROUP BY workspace_id, trace_id
)
INSERT INTO traces_tracesummary ({SUMMARY_COLUMNS})
SELECT workspace_id, trace_id, has_root, root_name, service, environment, session_id, user_id,
    start_time, end_time, extract(epoch FROM end_time - start_time) * 1000, span_count, errors,
    tokens_in, tokens_out, tokens_in + tokens_out, cost, models_seen, kinds_seen
FROM per_trace ORDER BY workspace_id, trace_id
ON CONFLICT (workspace_id, trace_id) DO UPDATE SET
    has_root = s.has_root OR EXCLUDED.has_root,
    root_name = CASE WHEN s.has_root THEN s.root_name ELSE EXCLUDED.root_name END,
    service = CASE WHEN EXCLUDED.has_root AND NOT s.has_root AND EXCLUDED.service <> ''
        THEN EXCLUDED.service ELSE {_kept("service")} END,
    environment = {_kept("environment")},
    session_id = {_kept("session_id")},
    user_id = {_kept("user_id")},
    start_time = least(s.start_time, EXCLUDED.start_time),
    end_time = greatest(s.end_time, EXCLUDED.end_time),
    duration_ms = extract(epoch FROM greatest(s.end_time, EXCLUDED.end_time)
        - least(s.start_time, EXCLUDED.start_time)) * 1000,
    span_count = s.span_count + EXCLUDED.span_count,
    error_count = s.error_count + EXCLUDED.error_count,
    tokens_in = s.tokens_in + EXCLUDED.tokens_in,
    tokens_out = s.tokens_out + EXCLUDED.tokens_out,
    tokens_total = s.tokens_total + EXCLUDED.tokens_total,
    cost = s.cost + EXCLUDED.cost,
    models_seen = {_merged("models_seen")},
    kinds_seen = {_merged("kinds_seen")}
"""


def insert_and_summarise_sql(columns: str) -> str:
    """The statement for PostgreSQL (the summary table aliased `s` for its update)."""
    return INSERT_AND_SUMMARISE.replace("{columns}", columns).replace(
        "INSERT INTO traces_tracesummary", "INSERT INTO traces_tracesummary AS s"
    )


# ----------------------------------------------------------------------------- SQLite


def rows_new(rows: list[Span]) -> list[Span]:
    """The rows not stored yet (nor twice in the batch): the ones an insert will keep."""
    if not rows:
        return []
    workspace_id = rows[0].workspace_id
    stored = set(
        Span.objects.filter(
            workspace_id=workspace_id, trace_id__in={row.trace_id for row in rows}
        ).values_list("trace_id", "span_id", "start_time")
    )
    new = []
    for row in rows:
        key = (row.trace_id, row.span_id, row.start_time)
        if key not in stored:
            stored.add(key)
            new.append(row)
    return new


def summaries_add(rows: list[Span]) -> None:
    """Add the newly inserted rows to their traces' summaries (SQLite)."""
    by_trace: dict[tuple[int, str], list[Span]] = {}
    for row in rows:
        by_trace.setdefault((row.workspace_id, row.trace_id), []).append(row)
    for (workspace_id, trace_id), spans in sorted(by_trace.items()):
        summary = TraceSummary.objects.filter(workspace_id=workspace_id, trace_id=trace_id).first()
        summary_merge(summary or TraceSummary(workspace_id=workspace_id, trace_id=trace_id), spans)


def summary_merge(summary: TraceSummary, spans: list[Span]) -> None:
    """Combine `spans` into `summary` the way the PostgreSQL statement does, and save it."""
    roots = sorted((s for s in spans if not s.parent_span_id), key=lambda s: s.start_time)
    if roots and not summary.has_root:
        summary.has_root, summary.root_name = True, roots[0].name
        summary.service = roots[0].service or summary.service
    for field in ("service", "environment", "session_id", "user_id"):
        if not getattr(summary, field):
            setattr(summary, field, max(getattr(s, field) for s in spans))
    starts = [s.start_time for s in spans] + ([summary.start_time] if summary.pk else [])
    ends = [s.end_time for s in spans] + ([summary.end_time] if summary.pk else [])
    summary.start_time, summary.end_time = min(starts), max(ends)
    summary.duration_ms = (summary.end_time - summary.start_time).total_seconds() * 1000
    summary.span_count += len(spans)
    summary.error_count += sum(s.status == SpanStatus.ERROR for s in spans)
    summary.tokens_in += sum(s.tokens_in or 0 for s in spans)
    summary.tokens_out += sum(s.tokens_out or 0 for s in spans)
    summary.tokens_total = summary.tokens_in + summary.tokens_out
    summary.cost += sum(s.cost or 0 for s in spans)
    summary.models_seen = _seen(summary.models_seen, (s.model for s in spans))
    summary.kinds_seen = _seen(summary.kinds_seen, (s.kind for s in spans))
    summary.save()


def _seen(stored: str, values) -> str:
    merged = sorted({v for v in stored.split("|") if v} | {v for v in values if v})
    return f"|{'|'.join(merged)}|" if merged else ""


def summaries_drop(*, before) -> int:
    """Forget the summaries of traces that started before `before` (retention: their spans,
    or the first of them, are gone)."""
    deleted, _counts = TraceSummary.objects.filter(start_time__lt=before).delete()
    return deleted
