"""`POST /otlp/v1/traces` (authenticate the ingest key, read and screen the body, queue it,
answer as OTLP/HTTP says: `traces.otlp`), and the pages: the traces list and a trace."""

from __future__ import annotations

from django.core.paginator import Paginator
from django.shortcuts import render
from django.utils import timezone
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_POST

from assay.web.decorators import workspace_view

from . import otlp, selectors, services
from .forms import TraceFilterForm

TRACES_PER_PAGE = 50

RETRY_AFTER_S = 5


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
        return otlp.error_response(otlp.OtlpError(429, str(exc), RETRY_AFTER_S), as_json=as_json)
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


@workspace_view()
def trace_list(request):
    form = TraceFilterForm(request.GET or None)
    rows = selectors.traces_list(workspace=request.workspace, filters=form.filters())
    page = Paginator(rows, TRACES_PER_PAGE).get_page(request.GET.get("page"))
    return render(request, "traces/list.html", {"form": form, "page": page})


@workspace_view()
def trace_detail(request, trace_id: str):
    spans = selectors.trace_spans(workspace=request.workspace, trace_id=trace_id)
    context = {"trace_id": spans[0].trace_id, "rows": selectors.span_rows(spans)}
    return render(request, "traces/detail.html", context)
