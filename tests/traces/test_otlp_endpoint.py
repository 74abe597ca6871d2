"""POST /otlp/v1/traces as OTLP/HTTP says: protobuf and JSON, gzip, partial success, the
caps (a gzip bomb refused without being inflated whole), and the errors' Status bodies."""

import gzip
import json
import time
import tracemalloc
import zlib

import pytest
from google.protobuf import json_format
from google.rpc import status_pb2
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)

from traces.models import SpanBatch
from traces.services import ingest_key_issue

from .support import TRACE, export, post, span

pytestmark = pytest.mark.django_db


@pytest.fixture
def key(workspace):
    return ingest_key_issue(workspace=workspace, name="tests").key


def queued_spans() -> list:
    spans = []
    for batch in SpanBatch.objects.order_by("pk"):
        message = ExportTraceServiceRequest.FromString(bytes(batch.payload))
        spans += [s for rs in message.resource_spans for ss in rs.scope_spans for s in ss.spans]
    return spans


def test_a_protobuf_export_is_queued_and_answered_with_an_empty_response(client, key):
    answer = post(client, export(span(1), span(2, parent=1)).SerializeToString(), key)
    assert answer.status_code == 200
    assert answer["Content-Type"] == "application/x-protobuf"
    parsed = ExportTraceServiceResponse.FromString(answer.content)
    assert not parsed.HasField("partial_success")
    assert [s.span_id for s in queued_spans()] == [(1).to_bytes(8, "big"), (2).to_bytes(8, "big")]
    assert SpanBatch.objects.get().span_count == 2


def test_json_with_hex_ids_and_gzip(client, key):
    body = {
        "resourceSpans": [
            {
                "resource": {
                    "attributes": [{"key": "service.name", "value": {"stringValue": "a"}}]
                },
                "scopeSpans": [
                    {
                        "spans": [
                            {
                                "traceId": TRACE.hex(),
                                "spanId": "00000000000000aa",
                                "parentSpanId": "00000000000000bb",
                                "name": "json span",
                                "kind": 1,
                                "startTimeUnixNano": str(time.time_ns() - 10**9),
                                "endTimeUnixNano": str(time.time_ns()),
                            }
                        ]
                    }
                ],
            }
        ]
    }
    packed = gzip.compress(json.dumps(body).encode())
    answer = post(client, packed, key, "application/json", HTTP_CONTENT_ENCODING="gzip")
    assert answer.status_code == 200, answer.content
    assert answer["Content-Type"] == "application/json"
    assert json.loads(answer.content) == {}
    (stored,) = queued_spans()
    assert (stored.trace_id, stored.span_id.hex()) == (TRACE, "00000000000000aa")
    assert stored.parent_span_id.hex() == "00000000000000bb" and stored.name == "json span"


def test_bad_spans_are_refused_in_partial_success_and_the_rest_kept(client, key, settings):
    settings.ASSAY_OTLP_MAX_SPANS = 3
    old = span(5)
    old.start_time_unix_nano = time.time_ns() - 40 * 86400 * 10**9  # past 30 days' retention
    old.end_time_unix_nano = old.start_time_unix_nano + 1
    no_id = span(6)
    no_id.span_id = b"\x00" * 8
    spans = [span(1), old, no_id, span(2), span(3), span(4)]
    answer = post(client, export(*spans).SerializeToString(), key)
    assert answer.status_code == 200
    partial = ExportTraceServiceResponse.FromString(answer.content).partial_success
    assert partial.rejected_spans == 3
    assert "retention" in partial.error_message and "span_id" in partial.error_message
    assert "over 3 spans" in partial.error_message
    assert [int.from_bytes(s.span_id, "big") for s in queued_spans()] == [1, 2, 3]


def test_all_spans_refused_queues_nothing(client, key):
    bad = span(1)
    bad.trace_id = b"short"
    answer = post(client, export(bad).SerializeToString(), key, "application/x-protobuf")
    assert ExportTraceServiceResponse.FromString(answer.content).partial_success.rejected_spans == 1
    assert not SpanBatch.objects.exists()


def status_of(answer) -> status_pb2.Status:
    return status_pb2.Status.FromString(answer.content)


def test_an_unreadable_body_is_400_with_a_status(client, key):
    answer = post(client, b"\xff\xff\xff not protobuf", key)
    assert answer.status_code == 400
    assert "not an OTLP trace export" in status_of(answer).message
    as_json = post(client, b"{not json", key, "application/json")
    assert as_json.status_code == 400 and "message" in json.loads(as_json.content)
    broken_gzip = post(client, b"\x1f\x8b garbage", key, HTTP_CONTENT_ENCODING="gzip")
    assert broken_gzip.status_code == 400


def test_other_content_types_and_encodings_are_refused(client, key):
    assert post(client, b"x", key, "text/plain").status_code == 415
    body = zlib.compress(export(span(1)).SerializeToString())
    assert post(client, body, key, HTTP_CONTENT_ENCODING="br").status_code == 415


def test_a_body_over_the_cap_is_413(client, key, settings):
    settings.ASSAY_OTLP_MAX_BODY_BYTES = 1000
    body = export(*[span(i, name="x" * 100) for i in range(1, 40)]).SerializeToString()
    answer = post(client, body, key)
    assert answer.status_code == 413
    assert "over 1,000 bytes" in status_of(answer).message
    assert not SpanBatch.objects.exists()


def gzip_bomb(inflated_bytes: int) -> bytes:
    """`inflated_bytes` of zeros, gzipped (about a thousandth of the size)."""
    packer = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    zeros, out = bytes(1024 * 1024), []
    for _ in range(inflated_bytes // len(zeros)):
        out.append(packer.compress(zeros))
    out.append(packer.flush())
    return b"".join(out)


def test_a_gzip_bomb_is_refused_without_being_inflated_whole(client, key):
    bomb = gzip_bomb(1024 * 1024 * 1024)  # 1 GiB inflated, about 1 MB sent
    assert len(bomb) < 2 * 1024 * 1024
    tracemalloc.start()
    try:
        answer = post(client, bomb, key, HTTP_CONTENT_ENCODING="gzip")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert answer.status_code == 413
    assert "inflates past" in status_of(answer).message
    # the cap is 32 MiB: inflating stopped there, far from the bomb's 1 GiB
    assert peak < 100 * 1024 * 1024
    assert not SpanBatch.objects.exists()


def test_a_full_queue_answers_429_with_retry_after(client, key, settings):
    settings.ASSAY_OTLP_MAX_QUEUED_BATCHES = 2
    for number in (1, 2):
        assert post(client, export(span(number)).SerializeToString(), key).status_code == 200
    busy = post(client, export(span(3)).SerializeToString(), key)
    assert busy.status_code == 429 and busy["Retry-After"] == "5"


def test_no_key_is_401_and_another_workspaces_key_sends_to_its_own(client, key, outsider):
    from assay.models import Workspace

    assert post(client, export(span(1)).SerializeToString(), "").status_code == 401
    theirs = ingest_key_issue(workspace=Workspace.objects.get(slug="other"), name="k").key
    assert post(client, export(span(1)).SerializeToString(), theirs).status_code == 200
    assert SpanBatch.objects.get().workspace.slug == "other"


def test_json_responses_carry_partial_success_in_json(client, key):
    bad = json_format.MessageToDict(export(span(1)))
    bad["resourceSpans"][0]["scopeSpans"][0]["spans"][0]["traceId"] = "zz"
    answer = post(client, json.dumps(bad).encode(), key, "application/json")
    assert json.loads(answer.content) == {
        "partialSuccess": {
            "rejectedSpans": "1",
            "errorMessage": "a trace_id is not 16 non-zero bytes",
        }
    }
