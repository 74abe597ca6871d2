"""The API of a queue's sources by filter, its feeds and who reviews it, under
`/api/v1/annotation-queues/<id>/`: `sources/` (add items by a filter, or spans and sessions by
id), `feeds/` (follow an online rule or an experiment) and `assignment/`."""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy as _lazy
from drf_spectacular.utils import extend_schema, extend_schema_view
from rest_framework import mixins, status
from rest_framework.response import Response

from assay.api.base import validated
from assay.models import Membership
from experiments.selectors.runs import experiment_find
from traces.selectors import traces_filtered

from .. import selectors
from ..models import AnnotationQueue, FeedKind, QueueFeed
from ..selectors import filtered
from ..services import queue_items_add
from ..services.assignment import queue_assign
from ..services.feeds import (
    Added,
    queue_add_outcomes,
    queue_add_results,
    queue_feed_create,
    queue_feed_delete,
    queue_feed_update,
)
from . import feed_serializers as s
from .nested import QueueNested

PAGING = ("cursor", "limit")


class QueueSourceViewSet(QueueNested):
    """Items added by a filter: an experiment's results, what an online rule judged, spans
    and traces by the traces lists' filters; or spans and sessions by id."""

    queryset = AnnotationQueue.objects.all()
    serializer_class = s.SourceAddSerializer

    @extend_schema(
        summary=_lazy("Add items to a queue by a filter"),
        description=_lazy(
            "One source: an experiment's results the results grid's `filter` selects whose "
            "verdict is one of `verdicts` (`experiment`), what an online rule judged with one "
            "of `verdicts` (`rule`: spans, traces or sessions by its scope), `sessions` or "
            "`spans` by id, or the span or trace list's filters (`span_filter`, "
            "`trace_filter`). `sampling_rate` keeps that share of them (by a hash of each "
            "item's key, the same at every call). At most 1,000 new items a call; `more` says "
            "when another call adds the next ones. An item already in the queue stays as it "
            "is, so adding the same twice adds nothing. Ids not the workspace's are named. "
            "Editors."
        ),
        request=s.SourceAddSerializer,
        responses={201: dict},
    )
    def create(self, request, queue_id=None):
        queue = self.queue()
        body = validated(s.SourceAddSerializer, request)
        done = _source_add(queue, request.workspace, body)
        data = {"added": done.added, "more": done.more, "items": queue.items.count()}
        return Response(data, status=status.HTTP_201_CREATED)


def _source_add(queue: AnnotationQueue, workspace, body: dict) -> Added:
    verdicts, rate = body.get("verdicts") or [], body["sampling_rate"]
    if body.get("experiment"):
        experiment = _found(experiment_find, workspace, body["experiment"], "experiment")
        filters = body.get("filter") or {}
        return queue_add_results(
            queue=queue, experiment=experiment, verdicts=verdicts, filters=filters, rate=rate
        )
    if body.get("rule"):
        rule = _found(filtered.online_rule_find, workspace, body["rule"], "rule")
        _no_problems(filtered.verdicts_problems(verdicts))
        return queue_add_outcomes(queue=queue, rule=rule, verdicts=verdicts, rate=rate)
    found = _items_by_id_or_filter(workspace, body)
    _no_problems(found.get("errors"))
    return Added(queue_items_add(queue=queue, items=found["items"]), False)


def _items_by_id_or_filter(workspace, body: dict) -> dict:
    if body.get("sessions"):
        return filtered.sessions_named(workspace=workspace, session_ids=body["sessions"])
    if body.get("spans"):
        return filtered.span_items(workspace=workspace, refs=body["spans"])
    if body.get("span_filter"):
        query = dict(body["span_filter"])
        limit = query.pop("limit")
        query = {k: v for k, v in query.items() if k not in PAGING}
        refs = filtered.spans_by_filter(workspace=workspace, filters=query, limit=limit)
        return filtered.span_items(workspace=workspace, refs=refs, lenient=True)
    query = dict(body["trace_filter"])
    limit = query.pop("limit")
    query = {k: v for k, v in query.items() if k not in (*PAGING, "sort")}
    traces = traces_filtered(workspace=workspace, filters=query).order_by("-start_time")
    ids = list(traces.values_list("trace_id", flat=True)[:limit])
    return selectors.trace_items(workspace=workspace, trace_ids=ids) if ids else {"items": []}


def _found(finder, workspace, public_id, field: str):
    found = finder(workspace=workspace, public_id=public_id)
    if found is None:
        raise ValidationError({field: [_("Not one of this workspace's.")]})
    return found


def _no_problems(errors: dict | None) -> None:
    if errors:
        raise ValidationError(errors)


@extend_schema_view(
    list=extend_schema(
        summary=_lazy("List a queue's feeds"),
        description=_lazy("The online rules and experiments the queue follows."),
    ),
    retrieve=extend_schema(
        summary=_lazy("Get a queue's feed"),
        description=_lazy("What it takes, its sampling rate, the items it added, its last sweep."),
    ),
)
class QueueFeedViewSet(QueueNested, mixins.ListModelMixin, mixins.RetrieveModelMixin):
    """A queue following an online rule or an experiment: a sweep every minute adds the
    new outcomes or results that match (verdicts, and an experiment's grid filters), in its
    sample."""

    queryset = QueueFeed.objects.all()
    serializer_class = s.FeedSerializer

    def scoped_queryset(self):
        return self.queue().feeds.select_related("rule", "experiment")

    @extend_schema(
        summary=_lazy("Follow an online rule or an experiment"),
        description=_lazy(
            "`kind` online_rule with `rule` (what it judges: spans, traces or sessions by its "
            "scope) or experiment with `experiment` (its results once it has finished, by the "
            "results grid's `filter`); `verdicts` taken (none: any) and `sampling_rate` (the "
            "share kept, by a hash of each item's key). Sweeps go on from where the last one "
            "stopped: nothing is added twice. Editors."
        ),
        request=s.FeedWriteSerializer,
        responses={201: s.FeedSerializer},
    )
    def create(self, request, queue_id=None):
        queue = self.queue()
        body = validated(s.FeedWriteSerializer, request)
        kind = body.pop("kind")
        feed = queue_feed_create(
            queue=queue,
            user=request.user,
            kind=kind,
            source=_feed_source(request.workspace, kind, body),
            fields=body,
        )
        return Response(s.FeedSerializer(feed).data, status=status.HTTP_201_CREATED)

    @extend_schema(
        summary=_lazy("Change a feed"),
        description=_lazy(
            "Its verdicts, filter, sampling rate, or pause it (`active`). Not what it follows."
        ),
        request=s.FeedWriteSerializer,
        responses=s.FeedSerializer,
    )
    def partial_update(self, request, queue_id=None, id=None):
        feed = self.get_object()
        body = validated(s.FeedWriteSerializer, request, partial=True)
        if {"kind", "rule", "experiment"} & set(body):
            raise ValidationError({"kind": [_("A feed follows what it was made for.")]})
        return Response(s.FeedSerializer(queue_feed_update(feed=feed, fields=body)).data)

    @extend_schema(
        summary=_lazy("Stop following"),
        description=_lazy("The queue stops following it; the items it added stay. Editors."),
    )
    def destroy(self, request, queue_id=None, id=None):
        queue_feed_delete(feed=self.get_object())
        return Response(status=status.HTTP_204_NO_CONTENT)


def _feed_source(workspace, kind: str, body: dict):
    """The rule or experiment the body names, of the workspace (None when it is not one)."""
    if kind == FeedKind.ONLINE_RULE:
        ref = body.pop("rule", None)
        body.pop("experiment", None)
        return ref and filtered.online_rule_find(workspace=workspace, public_id=ref)
    ref = body.pop("experiment", None)
    body.pop("rule", None)
    return ref and experiment_find(workspace=workspace, public_id=ref)


class QueueAssignmentViewSet(QueueNested):
    """Who reviews the queue: a role, or only named members."""

    queryset = AnnotationQueue.objects.all()
    serializer_class = s.AssignmentSerializer
    write_role = Membership.Role.OWNER

    @extend_schema(
        summary=_lazy("Read who reviews a queue"),
        description=_lazy(
            "`open_to`: reviewers (editors and owners), owners, or assigned (only the "
            "`assignees`); `reviewer`: whether the caller may reserve its items."
        ),
        responses={200: dict},
    )
    def list(self, request, queue_id=None):
        return Response(assignment_data(self.queue(), request))

    @extend_schema(
        summary=_lazy("Set who reviews a queue"),
        description=_lazy(
            "Open it to a role (`open_to` reviewers or owners) or assign it to named editors "
            "or owners (`open_to` assigned with `assignees`: usernames). Anyone else gets "
            "nothing from `next/` (403). Owners."
        ),
        request=s.AssignmentSerializer,
        responses={200: dict},
    )
    def create(self, request, queue_id=None):
        queue = self.queue()
        body = validated(s.AssignmentSerializer, request)
        queue_assign(queue=queue, open_to=body["open_to"], assignees=body["assignees"])
        return Response(assignment_data(queue, request))


def assignment_data(queue: AnnotationQueue, request) -> dict:
    return {
        "open_to": queue.open_to,
        "assignees": sorted(queue.assignees.values_list("username", flat=True)),
        "reviewer": filtered.queue_reviewer_is(
            queue=queue, user=request.user, membership=request.membership
        ),
    }
