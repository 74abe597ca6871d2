"""The API of traces: the workspace's ingest keys (Settings), and reading its traces and spans."""

from __future__ import annotations

from django.utils.text import format_lazy
from django.utils.translation import gettext_lazy as _
from drf_spectacular.utils import extend_schema, extend_schema_view
from rest_framework import exceptions, mixins, status, viewsets
from rest_framework.decorators import action
from rest_framework.response import Response

from assay.api.base import WorkspaceMixin, WorkspaceScopedViewSet, validated
from assay.models import Membership

from .. import selectors, services
from ..models import IngestKey, Span
from ..reading import scores
from ..reading.keyset import BadCursor
from . import serializers as s


@extend_schema_view(
    list=extend_schema(
        summary=_("List ingest keys"),
        description=_(
            "The workspace's ingest keys (revoked ones too), newest first; keys themselves "
            "are never returned. Any member may list them."
        ),
    ),
    retrieve=extend_schema(
        summary=_("Get an ingest key"),
        description=_("One ingest key's name, prefix and dates; the key itself is never returned."),
    ),
)
class IngestKeyViewSet(WorkspaceScopedViewSet, mixins.ListModelMixin, mixins.RetrieveModelMixin):
    """Write-only keys for `POST /otlp/v1/traces`: they send spans to this workspace and can do
    nothing else (the rest of the API refuses them). Owners create and revoke them."""

    serializer_class = s.IngestKeySerializer
    queryset = IngestKey.objects.all()
    write_role = Membership.Role.OWNER

    def scoped_queryset(self):
        return selectors.ingest_keys_list(workspace=self.request.workspace)

    @extend_schema(
        summary=_("Create an ingest key"),
        description=_(
            "Issues a key for OpenTelemetry exporters (`OTEL_EXPORTER_OTLP_ENDPOINT=<assay>/otlp`"
            ", header `Authorization: Bearer <key>`). The key is in this answer only. Owners."
        ),
        request=s.IngestKeyCreateSerializer,
        responses={201: s.IssuedIngestKeySerializer},
    )
    def create(self, request):
        body = validated(s.IngestKeyCreateSerializer, request)
        issued = services.ingest_key_issue(
            workspace=request.workspace, user=request.user, name=body["name"]
        )
        issued.ingest_key.key = issued.key
        data = s.IssuedIngestKeySerializer(issued.ingest_key).data
        return Response(data, status=status.HTTP_201_CREATED)

    @extend_schema(
        summary=_("Revoke an ingest key"),
        description=_("From now on the endpoint answers 403 to it. Owners."),
        request=None,
        responses=s.IngestKeySerializer,
    )
    @action(detail=True, methods=["post"])
    def revoke(self, request, id=None):
        ingest_key = services.ingest_key_revoke(ingest_key=self.get_object())
        return Response(s.IngestKeySerializer(ingest_key).data)


def _query(serializer_class, request) -> dict:
    """The list query as filters; 400 naming a malformed one (unknown names are ignored:
    `workspace` shares the query string)."""
    query = serializer_class(data=request.query_params)
    query.is_valid(raise_exception=True)
    return {k: v for k, v in query.validated_data.items() if v is not None}


def _paged(request, found: list, following: str | None, serializer_class) -> Response:
    """A keyset page: its rows and the link to the next page (null on the last)."""
    link = None
    if following:
        query = request.query_params.copy()
        query["cursor"] = following
        link = request.build_absolute_uri(f"{request.path}?{query.urlencode()}")
    return Response({"next": link, "results": serializer_class(found, many=True).data})


def _listed(request, select, filter_class, *, apart: tuple[str, ...] = ()):
    """One keyset page of `select` under the list's query: its rows and the next cursor. The
    query's fields named in `apart` (as `sort`) go to the selector beside the filters."""
    query = _query(filter_class, request)
    cursor, size = query.pop("cursor", None), query.pop("limit")
    options = {name: query.pop(name, "") for name in apart}
    return _page_of(
        select, workspace=request.workspace, filters=query, cursor=cursor, size=size, **options
    )


def _list_schema(*, summary, description, filters, page):
    """A keyset list's documentation: what it holds, then how its pages are followed."""
    return extend_schema(
        summary=summary,
        description=format_lazy("{}{}", description, PAGING),
        parameters=[filters],
        responses=page,
    )


def _page_of(select, **kwargs):
    """Run a keyset selector; a cursor that is not the list's is a 400 naming it."""
    try:
        return select(**kwargs)
    except BadCursor as exc:
        raise exceptions.ValidationError(
            {"cursor": [_("This cursor is not one of this list's.")]}
        ) from exc


class _SpanReadViewSet(WorkspaceMixin, viewsets.GenericViewSet):
    queryset = Span.objects.none()  # reads go through the selectors
    pagination_class = None  # keyset pages, made by the selectors

    def initial(self, request, *args, **kwargs):
        super().initial(request, *args, **kwargs)
        if request.workspace is None:
            raise exceptions.NotFound(_("No workspace selected."))


PAGING = _(
    " Paged by cursor: follow `next` (no total is counted, so a page costs the same at any "
    "depth); `limit` sets the page size (50, at most 500)."
)


@extend_schema_view(
    list=_list_schema(
        summary=_("List traces"),
        description=_(
            "One row per trace from the summaries the worker keeps as spans are stored: its "
            "first start and last end, duration, span and error counts, tokens and cost over "
            "all its spans, the models and span kinds it used, and its root span's name and "
            "service (the root's once it arrives). Filters: time (`range` 1h/24h/7d/30d, or "
            "`since`/`until` on its start), service, `name` (the root's), `kind` and `model` "
            "(any span's), environment, session, user, `status` or `has_error` (a trace with "
            "an error span), duration, tokens and cost bounds, and one raw span attribute "
            "(`attribute=key=value`, looked for in the next 1,000 traces of the order: a page "
            "may come back short, with `next` to look further). `sort`: start, duration, "
            "tokens, cost or spans, `-` first for descending."
        ),
        filters=s.TraceFilterSerializer,
        page=s.TracePageSerializer,
    ),
    retrieve=extend_schema(
        summary=_("Get a trace"),
        description=_(
            "A trace's spans as a tree by parent span id: each node holds its span and its "
            "children. A span whose parent has not arrived is a root with `parent_missing`. "
            "Each span lists its online outcomes (rule, evaluator version, status, verdict, "
            "score, skip reason); `online_outcomes` beside the tree holds those of trace and "
            "session rules. 404 when the workspace has no span of that trace id (32 hex "
            "digits)."
        ),
        responses=s.TraceSerializer,
    ),
)
class TraceViewSet(_SpanReadViewSet):
    """Traces: listed from their summaries, each read as its spans' tree."""

    serializer_class = s.TraceSummarySerializer
    lookup_field = lookup_url_kwarg = "trace_id"
    lookup_value_converter = "str"

    def list(self, request):
        found, following = _listed(
            request, selectors.traces_page, s.TraceFilterSerializer, apart=("sort",)
        )
        return _paged(request, found, following, s.TraceSummarySerializer)

    def retrieve(self, request, trace_id=None):
        spans = selectors.trace_spans(workspace=request.workspace, trace_id=trace_id)
        found = scores.spans_outcomes_attach(workspace=request.workspace, spans=spans)
        tree = {
            "trace_id": spans[0].trace_id,
            "spans": selectors.span_tree(spans),
            "online_outcomes": found.get((spans[0].trace_id, ""), []),
        }
        return Response(s.TraceSerializer(tree).data)


@extend_schema_view(
    list=_list_schema(
        summary=_("List spans"),
        description=_(
            "The workspace's spans, newest first, filtered by trace id, service, name, kind, "
            "model, environment, status, session, user, time (`range` 1h/24h/7d/30d, or "
            "`since`/`until` on the start), duration, tokens and cost bounds, errors "
            "(`has_error`) and one raw attribute (`attribute=key=value`). Each span lists "
            "its online outcomes: each rule's evaluator version, status, verdict, score and "
            "skip reason."
        ),
        filters=s.SpanFilterSerializer,
        page=s.SpanPageSerializer,
    ),
)
class SpanViewSet(_SpanReadViewSet):
    """Stored spans, flat."""

    serializer_class = s.SpanSerializer

    def list(self, request):
        found, following = _listed(request, selectors.spans_page, s.SpanFilterSerializer)
        scores.spans_outcomes_attach(workspace=request.workspace, spans=found)
        return _paged(request, found, following, s.SpanSerializer)


@extend_schema_view(
    list=_list_schema(
        summary=_("List sessions"),
        description=_(
            "Traces grouped by session id (OpenInference's `session.id`, GenAI's "
            "`gen_ai.conversation.id`), the most recently active first: each session's trace "
            "count, first and last start, spans, errors, tokens and cost over its traces in "
            "the time range (`range` or `since`/`until`), filtered by user, service and "
            "environment."
        ),
        filters=s.SessionFilterSerializer,
        page=s.SessionPageSerializer,
    ),
    retrieve=extend_schema(
        summary=_("Get a session"),
        description=_(
            "A session's traces in start order (its first 200), each with the user's input "
            "and the answer (the root span's, else the first span's input and the last "
            "span's output). 404 when the workspace has no trace in that session."
        ),
        responses=s.SessionDetailSerializer,
    ),
)
class SessionViewSet(_SpanReadViewSet):
    """Sessions: traces sharing a session id, read as one conversation."""

    serializer_class = s.SessionSerializer
    lookup_field = lookup_url_kwarg = "session_id"
    lookup_value_converter = "path"  # a session id may hold slashes

    def list(self, request):
        found, following = _listed(request, selectors.sessions_page, s.SessionFilterSerializer)
        return _paged(request, found, following, s.SessionSerializer)

    def retrieve(self, request, session_id=None):
        traces = selectors.session_traces(workspace=request.workspace, session_id=session_id)
        turns = selectors.session_turns(workspace=request.workspace, traces=traces)
        return Response(s.SessionDetailSerializer({"session_id": session_id, "turns": turns}).data)
