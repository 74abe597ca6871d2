"""The OTLP/HTTP protocol of `POST /otlp/v1/traces`: the body read under caps (before and after
gzip), decoded with the official `opentelemetry-proto` messages (protobuf or JSON), spans
screened, and the spec's answers (an ExportTraceServiceResponse with `partial_success`, or a
google.rpc.Status for an error) in the encoding of the request.

No models here: the view authenticates and hands the screened message to a service.
"""

from __future__ import annotations

import base64
import json
import zlib
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.http import HttpResponse
from google.protobuf import json_format
from google.protobuf.message import DecodeError
from google.rpc import status_pb2
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)

PROTOBUF = "application/x-protobuf"
JSON = "application/json"
READ_PIECE = 64 * 1024
# gRPC codes in the Status body (the HTTP status says the same to plain clients)
GRPC_CODES = {400: 3, 401: 16, 403: 7, 413: 8, 415: 3, 429: 8, 503: 14}
# OTLP/JSON writes these bytes fields as hex, not protobuf JSON's base64
HEX_FIELDS = ("traceId", "spanId", "parentSpanId", "trace_id", "span_id", "parent_span_id")
FUTURE_SLACK = timedelta(days=1)  # clocks drift; a span from tomorrow is a wrong clock


class OtlpError(Exception):
    """An answer other than success: its HTTP status, a message, and Retry-After if any."""

    def __init__(self, status: int, message: str, retry_after: int | None = None) -> None:
        super().__init__(message)
        self.status, self.message, self.retry_after = status, message, retry_after


@dataclass
class Screened:
    """What screening left: the message with only acceptable spans, and what it took out."""

    message: ExportTraceServiceRequest
    accepted: int
    rejected: int
    reasons: list[str]


def is_json(request) -> bool:
    """Whether the request speaks OTLP/JSON (answers then are JSON too)."""
    return request.content_type == JSON


def body_read(request) -> bytes:
    """The body, decompressed, within the caps: 413 when the sent body is over
    ASSAY_OTLP_MAX_BODY_BYTES (said by Content-Length, or found reading) or inflates past
    ASSAY_OTLP_MAX_DECODED_BYTES (found while inflating: a gzip bomb stops at the cap)."""
    sent_cap, decoded_cap = (
        settings.ASSAY_OTLP_MAX_BODY_BYTES,
        settings.ASSAY_OTLP_MAX_DECODED_BYTES,
    )
    if int(request.META.get("CONTENT_LENGTH") or 0) > sent_cap:
        raise OtlpError(413, f"the body is over {sent_cap:,} bytes; send smaller batches")
    raw = request.read(sent_cap + 1)
    if len(raw) > sent_cap:
        raise OtlpError(413, f"the body is over {sent_cap:,} bytes; send smaller batches")
    encoding = request.headers.get("Content-Encoding", "identity").strip().lower()
    if encoding in ("", "identity"):
        return raw
    if encoding != "gzip":
        raise OtlpError(415, f"Content-Encoding {encoding[:20]!r} is not accepted: use gzip")
    return gunzipped(raw, decoded_cap)


def gunzipped(raw: bytes, cap: int) -> bytes:
    """`raw` inflated piece by piece, refused as soon as the output passes `cap`."""
    inflater = zlib.decompressobj(wbits=16 + zlib.MAX_WBITS)
    out, size, pending = [], 0, raw
    try:
        while pending and not inflater.eof:
            piece = inflater.decompress(pending, READ_PIECE)
            pending = inflater.unconsumed_tail
            size += len(piece)
            if size > cap:
                raise OtlpError(413, f"the body inflates past {cap:,} bytes; send smaller batches")
            out.append(piece)
    except zlib.error:
        raise OtlpError(400, "the body is not readable gzip") from None
    if not inflater.eof:
        raise OtlpError(400, "the gzip body ends early")
    return b"".join(out)


def request_decoded(body: bytes, *, as_json: bool) -> ExportTraceServiceRequest:
    """An ExportTraceServiceRequest from protobuf or OTLP/JSON bytes; 400 when unreadable."""
    message = ExportTraceServiceRequest()
    try:
        if as_json:
            json_format.ParseDict(_hex_ids_as_base64(json.loads(body)), message, True)
        else:
            message.ParseFromString(body)
    except (DecodeError, json_format.ParseError, ValueError, TypeError, RecursionError) as exc:
        raise OtlpError(400, f"the body is not an OTLP trace export: {str(exc)[:200]}") from None
    return message


def _hex_ids_as_base64(value):
    """OTLP/JSON's hex ids turned into the base64 protobuf JSON expects (recursively: links
    carry ids too). A bad hex id becomes a value screening rejects (wrong length)."""
    if isinstance(value, list):
        return [_hex_ids_as_base64(item) for item in value]
    if not isinstance(value, dict):
        return value
    converted = {}
    for key, item in value.items():
        if key in HEX_FIELDS and isinstance(item, str):
            item = base64.b64encode(_hex_bytes(item)).decode()
        converted[key] = _hex_ids_as_base64(item)
    return converted


def _hex_bytes(text: str) -> bytes:
    try:
        return bytes.fromhex(text)
    except ValueError:
        return b"\x00"


def spans_screened(message: ExportTraceServiceRequest, *, now: datetime) -> Screened:
    """The message with unacceptable spans taken out: bad ids, bad times, a start older than
    retention or more than a day ahead, and every span past ASSAY_OTLP_MAX_SPANS."""
    oldest = (now - timedelta(days=settings.ASSAY_TRACE_RETENTION_DAYS)).timestamp() * 1e9
    newest = (now + FUTURE_SLACK).timestamp() * 1e9
    room, reasons, accepted, rejected = settings.ASSAY_OTLP_MAX_SPANS, set(), 0, 0
    for resource_spans in message.resource_spans:
        for scope_spans in resource_spans.scope_spans:
            kept = []
            for span in scope_spans.spans:
                reason = span_problem(span, oldest, newest) or (
                    None if accepted < room else f"over {room:,} spans in one request"
                )
                if reason:
                    reasons.add(reason)
                    rejected += 1
                else:
                    kept.append(span)
                    accepted += 1
            del scope_spans.spans[:]
            scope_spans.spans.extend(kept)
    return Screened(message, accepted, rejected, sorted(reasons))


def span_problem(span, oldest: float, newest: float) -> str | None:
    """Why a span cannot be stored, or None."""
    if len(span.trace_id) != 16 or not any(span.trace_id):
        return "a trace_id is not 16 non-zero bytes"
    if len(span.span_id) != 8 or not any(span.span_id):
        return "a span_id is not 8 non-zero bytes"
    if span.parent_span_id and len(span.parent_span_id) != 8:
        return "a parent_span_id is not 8 bytes"
    if not span.start_time_unix_nano or span.end_time_unix_nano < span.start_time_unix_nano:
        return "a span has no start time or ends before it starts"
    if span.start_time_unix_nano < oldest:
        return "a span starts before the retention window"
    if span.start_time_unix_nano > newest:
        return "a span starts more than a day from now"
    return None


def success_response(screened: Screened, *, as_json: bool) -> HttpResponse:
    """200 with an ExportTraceServiceResponse; `partial_success` counts rejected spans."""
    answer = ExportTraceServiceResponse()
    if screened.rejected:
        answer.partial_success.rejected_spans = screened.rejected
        answer.partial_success.error_message = "; ".join(screened.reasons)[:1000]
    return _encoded(answer, 200, as_json)


def error_response(error: OtlpError, *, as_json: bool) -> HttpResponse:
    """The error's status with a google.rpc.Status body, as the spec asks."""
    status = status_pb2.Status(code=GRPC_CODES.get(error.status, 2), message=error.message)
    response = _encoded(status, error.status, as_json)
    if error.retry_after is not None:
        response["Retry-After"] = str(error.retry_after)
    if error.status == 401:
        response["WWW-Authenticate"] = "Bearer"
    return response


def _encoded(message, status: int, as_json: bool) -> HttpResponse:
    if as_json:
        return HttpResponse(json_format.MessageToJson(message), status=status, content_type=JSON)
    return HttpResponse(message.SerializeToString(), status=status, content_type=PROTOBUF)
