"""`POST /otlp/v1/traces`: authenticate the ingest key, read and screen the body, queue it,
answer as OTLP/HTTP says (`traces.ingest.otlp`)."""

from __future__ import annotations

from django.db import DatabaseError
from django.utils import timezone
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_POST

from .. import services
from . import otlp

STORE_DOWN_RETRY_AFTER_S = 30


@csrf_exempt
@require_POST
def otlp_traces(request):
    as_json = otlp.is_json(request)
    try:
        workspace = _ingest_workspace(request)
        if request.content_type not in (otlp.PROTOBUF, otlp.JSON):
            raise otlp.OtlpError(415, "send application/x-protobuf or application/json")
        message = otlp.request_decoded(otlp.body_read(request), as_json=as_json)
        screened = otlp.spans_screened(message, now=timezone.now())
        services.span_batch_accept(
            workspace=workspace, message=screened.message, span_count=screened.accepted
        )
    except services.IngestBusy as exc:
        return otlp.error_response(otlp.OtlpError(429, str(exc), exc.retry_after), as_json=as_json)
    except DatabaseError:
        # nothing was kept (the key or the batch could not be read or written): the exporter
        # keeps the spans and sends them again
        down = otlp.OtlpError(503, "the trace store is unavailable", STORE_DOWN_RETRY_AFTER_S)
        return otlp.error_response(down, as_json=as_json)
    except otlp.OtlpError as exc:
        return otlp.error_response(exc, as_json=as_json)
    return otlp.success_response(screened, as_json=as_json)


def _ingest_workspace(request):
    """The workspace of the request's ingest key: 401 without a known key, 403 when revoked."""
    scheme, _, key = request.headers.get("Authorization", "").partition(" ")
    if scheme.lower() != "bearer" or not key.strip():
        raise otlp.OtlpError(401, "send Authorization: Bearer <ingest key>")
    ingest_key = services.ingest_key_authenticate(key=key.strip())
    if ingest_key is None:
        raise otlp.OtlpError(401, "unknown ingest key")
    if not ingest_key.is_active:
        raise otlp.OtlpError(403, "this ingest key was revoked")
    return ingest_key.workspace
