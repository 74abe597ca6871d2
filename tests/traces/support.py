"""OTLP requests built with the official proto messages (the endpoint tests' own sender; the
real SDK exporter is in test_real_clients.py)."""

from __future__ import annotations

import time

from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.common.v1.common_pb2 import AnyValue, KeyValue
from opentelemetry.proto.trace.v1.trace_pb2 import Span

TRACE = bytes.fromhex("0af7651916cd43dd8448eb211c80319c")


def kv(key: str, value) -> KeyValue:
    if isinstance(value, bool):
        return KeyValue(key=key, value=AnyValue(bool_value=value))
    if isinstance(value, int):
        return KeyValue(key=key, value=AnyValue(int_value=value))
    if isinstance(value, float):
        return KeyValue(key=key, value=AnyValue(double_value=value))
    return KeyValue(key=key, value=AnyValue(string_value=value))


def span(span_id: int, *, parent: int = 0, name: str = "step", trace: bytes = TRACE, **attrs):
    start = time.time_ns() - 2_000_000_000
    return Span(
        trace_id=trace,
        span_id=span_id.to_bytes(8, "big"),
        parent_span_id=parent.to_bytes(8, "big") if parent else b"",
        name=name,
        start_time_unix_nano=start,
        end_time_unix_nano=start + 1_500_000,
        attributes=[kv(k.replace("__", "."), v) for k, v in attrs.items()],
    )


def export(*spans: Span, service: str = "shop-agent") -> ExportTraceServiceRequest:
    message = ExportTraceServiceRequest()
    resource_spans = message.resource_spans.add()
    resource_spans.resource.attributes.append(kv("service.name", service))
    resource_spans.scope_spans.add().spans.extend(spans)
    return message


def post(client, body: bytes, key: str, content_type="application/x-protobuf", **headers):
    return client.post(
        "/otlp/v1/traces",
        data=body,
        content_type=content_type,
        HTTP_AUTHORIZATION=f"Bearer {key}",
        **headers,
    )
