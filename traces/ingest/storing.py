"""From a queued batch to stored spans: OTLP spans decoded, normalised and capped into rows,
then inserted in one statement per batch (COPY into a staging table and one INSERT … ON
CONFLICT DO NOTHING on PostgreSQL, bulk_create elsewhere), and the day partitions of the
spans table made and dropped (PostgreSQL)."""

from __future__ import annotations

import base64
from datetime import UTC, date, datetime, timedelta
from typing import Any

from django.db import connection, transaction
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

from assay.models import ModelProvider, Workspace
from assay.pricing import token_cost
from assay.safety.caps import (
    ANSWER_BYTES,
    ERROR_BYTES,
    SPAN_ATTRIBUTE_BYTES,
    SPAN_ATTRIBUTES_MAX,
    UsageOutOfBounds,
    cap_json,
    cap_text,
    usage_bounded,
)

from ..models import Span, SpanStatus
from ..normalise import span_fields
from ..normalise.base import SpanSource
from . import summaries

STATUS_CODES = {0: SpanStatus.UNSET, 1: SpanStatus.OK, 2: SpanStatus.ERROR}
ENVIRONMENT_KEYS = ("deployment.environment.name", "deployment.environment")
USER_KEYS = ("user.id", "enduser.id")
COLUMNS = [
    f.column for f in Span._meta.concrete_fields if f.column != "id"
]  # the COPY's column list, in the model's order


def any_value(value) -> Any:
    """An OTLP AnyValue as plain JSON (bytes as base64)."""
    which = value.WhichOneof("value")
    if which == "array_value":
        return [any_value(item) for item in value.array_value.values]
    if which == "kvlist_value":
        return {kv.key: any_value(kv.value) for kv in value.kvlist_value.values}
    if which == "bytes_value":
        return base64.b64encode(value.bytes_value).decode()
    return getattr(value, which) if which else None


def attributes_of(key_values) -> dict[str, Any]:
    return {kv.key: any_value(kv.value) for kv in key_values}


def batch_rows(*, workspace: Workspace, payload: bytes, received_at: datetime) -> list[Span]:
    """The batch's spans as unsaved rows, normalised, capped and priced."""
    message = ExportTraceServiceRequest.FromString(payload)
    prices = workspace_prices(workspace=workspace)
    rows = []
    for resource_spans in message.resource_spans:
        resource = attributes_of(resource_spans.resource.attributes)
        for scope_spans in resource_spans.scope_spans:
            for span in scope_spans.spans:
                row = span_row(span, resource, prices)
                row.workspace_id, row.received_at = workspace.pk, received_at
                rows.append(row)
    return rows


def span_row(span, resource: dict, prices: dict) -> Span:
    """One OTLP span as a row: OTLP's own fields, then what the conventions say."""
    attributes = attributes_of(span.attributes)
    events = [(event.name, attributes_of(event.attributes)) for event in span.events]
    source = SpanSource(span.name, attributes, events, resource)
    fields = span_fields(source)
    start, end = _time(span.start_time_unix_nano), _time(span.end_time_unix_nano)
    status = STATUS_CODES.get(span.status.code, SpanStatus.UNSET)
    return Span(
        trace_id=span.trace_id.hex(),
        span_id=span.span_id.hex(),
        parent_span_id=span.parent_span_id.hex(),
        name=cap_text(span.name, 200)[:256],
        service=str(resource.get("service.name") or "")[:128],
        kind=fields["kind"],
        model=str(fields.get("model", ""))[:200],
        input_text=cap_text(fields.get("input_text", ""), ANSWER_BYTES),
        output_text=cap_text(fields.get("output_text", ""), ANSWER_BYTES),
        input_messages=fields.get("input_messages"),
        output_messages=fields.get("output_messages"),
        tokens_in=_usage("tokens_in", fields.get("tokens_in")),
        tokens_out=_usage("tokens_out", fields.get("tokens_out")),
        cost=_usage("cost", fields.get("cost")) if "cost" in fields else _priced(fields, prices),
        session_id=str(fields.get("session_id", ""))[:256],
        user_id=_first(fields.get("user_id"), attributes, USER_KEYS)[:256],
        environment=_first(None, {**resource, **attributes}, ENVIRONMENT_KEYS)[:64],
        status=status,
        error=cap_text(_error(span, status, events, fields), ERROR_BYTES),
        start_time=start,
        end_time=end,
        duration_ms=(span.end_time_unix_nano - span.start_time_unix_nano) / 1e6,
        attributes=raw_attributes(attributes, span.dropped_attributes_count, fields),
    )


def raw_attributes(attributes: dict, dropped: int, fields: dict) -> dict:
    """The attributes kept for filters and the raw view: at most SPAN_ATTRIBUTES_MAX keys,
    each string cut (and marked) at SPAN_ATTRIBUTE_BYTES; what was left out is counted."""
    kept = dict(list(attributes.items())[:SPAN_ATTRIBUTES_MAX])
    dropped += len(attributes) - len(kept)
    kept = {cap_text(k, 256): cap_json(v, SPAN_ATTRIBUTE_BYTES) for k, v in kept.items()}
    if dropped:
        kept["assay.dropped_attributes"] = dropped
    if fields.get("messages_problem"):
        kept["assay.messages_problem"] = fields["messages_problem"]
    return kept


def _time(nanos: int) -> datetime:
    return datetime.fromtimestamp(nanos / 1e9, tz=UTC)


def _usage(name: str, value) -> int | float | None:
    if value is None:
        return None
    try:
        return usage_bounded(name, value)
    except UsageOutOfBounds:
        return None


def _first(value, attributes: dict, keys: tuple[str, ...]) -> str:
    if value:
        return str(value)
    return next((str(attributes[k]) for k in keys if attributes.get(k)), "")


def _error(span, status: str, events: list, fields: dict) -> str:
    """An error span's message: its status message, else its exception event, else error.type."""
    if status != SpanStatus.ERROR:
        return ""
    for name, attributes in events:
        if name == "exception":
            kind, text = attributes.get("exception.type", ""), attributes.get("exception.message")
            return f"{kind}: {text}" if text else str(kind)
    return span.status.message or str(fields.get("error", "")) or "error"


def workspace_prices(*, workspace: Workspace) -> dict[str, dict]:
    """Model → price ({input, output} USD per million tokens) from the workspace's providers
    (the first provider by name that prices a model gives its price)."""
    prices: dict[str, dict] = {}
    for provider_prices in ModelProvider.objects.filter(workspace=workspace).values_list(
        "prices", flat=True
    ):
        for model, price in (provider_prices or {}).items():
            prices.setdefault(model, price)
    return prices


def _priced(fields: dict, prices: dict) -> float | None:
    """The span's cost at its model's price, when it has tokens and the model a price."""
    price = prices.get(fields.get("model"))
    tokens_in, tokens_out = fields.get("tokens_in"), fields.get("tokens_out")
    if not isinstance(price, dict) or (tokens_in is None and tokens_out is None):
        return None
    return _usage("cost", token_cost(price, tokens_in, tokens_out))


def rows_insert(rows: list[Span]) -> None:
    """Insert the rows and add the inserted ones to their traces' summaries; a span stored
    before (an exporter's retry) is skipped. In one transaction of its own (a savepoint inside
    the caller's): PostgreSQL's staging table empties at each commit, so in autocommit the rows
    copied into it were gone before they were inserted, and nothing was stored."""
    if not rows:
        return
    if connection.vendor != "postgresql":
        with transaction.atomic():
            new = summaries.rows_new(rows)
            Span.objects.bulk_create(new, batch_size=500, ignore_conflicts=True)
            summaries.summaries_add(new)
        return
    partitions_ensure(days={row.start_time.date() for row in rows})
    with transaction.atomic():
        _copy(rows)


def _copy(rows: list[Span]) -> None:
    from psycopg.types.json import Jsonb

    columns = ", ".join(COLUMNS)
    fields = [f for f in Span._meta.concrete_fields if f.column != "id"]
    with connection.cursor() as cursor:
        cursor.execute(
            "CREATE TEMP TABLE IF NOT EXISTS traces_span_incoming "
            f"ON COMMIT DELETE ROWS AS SELECT {columns} FROM traces_span WITH NO DATA"
        )
        with cursor.copy(f"COPY traces_span_incoming ({columns}) FROM STDIN") as copy:
            for row in rows:
                copy.write_row([_copy_value(f, row, Jsonb) for f in fields])
        cursor.execute(summaries.insert_and_summarise_sql(columns))
        cursor.execute("DELETE FROM traces_span_incoming")


def _copy_value(field, row: Span, jsonb):
    value = getattr(row, field.attname)
    if field.get_internal_type() == "JSONField":
        return None if value is None else jsonb(value)
    return value


def partitions_ensure(*, days: set[date]) -> None:
    """Make the day partitions the rows need. Most batches find them there (the hourly
    retention task makes tomorrow's ahead); only a missing one takes the advisory lock, so
    two workers never make the same partition at once and no batch waits on another."""
    with connection.cursor() as cursor:
        for day in sorted(days):
            cursor.execute("SELECT to_regclass(%s)", [partition_name(day)])
            if cursor.fetchone()[0] is not None:
                continue
            cursor.execute("SELECT pg_advisory_xact_lock(hashtext('traces_span_partitions'))")
            following = day + timedelta(days=1)
            cursor.execute(
                f"CREATE TABLE IF NOT EXISTS {partition_name(day)} PARTITION OF traces_span "
                f"FOR VALUES FROM ('{day.isoformat()} 00:00+00') "
                f"TO ('{following.isoformat()} 00:00+00')"
            )


def partition_name(day: date) -> str:
    return f"traces_span_p{day:%Y%m%d}"


def partitions_drop(*, before: date) -> list[str]:
    """Drop every day partition of days before `before`, and the summaries of traces that
    started before it; the partitions' names."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid "
            "JOIN pg_class p ON p.oid = i.inhparent WHERE p.relname = 'traces_span'"
        )
        names = [name for (name,) in cursor.fetchall() if name < partition_name(before)]
        for name in names:
            cursor.execute(f"DROP TABLE IF EXISTS {name}")
    summaries.summaries_drop(before=datetime.combine(before, datetime.min.time(), tzinfo=UTC))
    return names
