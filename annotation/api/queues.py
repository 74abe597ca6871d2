"""The API of human review: `/api/v1/score-configs/` and `/api/v1/annotation-queues/` with
their items, reservations, labels, skips, progress and agreement."""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy as _lazy
from drf_spectacular.utils import extend_schema, extend_schema_view
from rest_framework import exceptions, mixins, status
from rest_framework.decorators import action
from rest_framework.response import Response

from assay.api.base import WorkspaceScopedViewSet, validated

from .. import selectors, services
from ..models import AnnotationQueue, QueueItem, ScoreConfig
from ..selectors import pairs as pair_sources
from ..selectors.filtered import queue_reviewer_is
from ..services.pairwise import pairwise_orders
from . import serializers as s
from .nested import QueueNested


class SlotConflict(exceptions.APIException):
    status_code = status.HTTP_409_CONFLICT
    default_code = "conflict"


@extend_schema_view(
    list=extend_schema(
        summary=_lazy("List score configs"),
        description=_lazy("What reviewers may be asked for in this workspace, by name."),
    ),
    retrieve=extend_schema(
        summary=_lazy("Get a score config"),
        description=_lazy("Its kind, labels or range, rubric and which labels mean pass or fail."),
    ),
)
class ScoreConfigViewSet(WorkspaceScopedViewSet, mixins.ListModelMixin, mixins.RetrieveModelMixin):
    """What reviewers give: boolean, categorical, numeric or free text, with a rubric."""

    serializer_class = s.ScoreConfigSerializer
    queryset = ScoreConfig.objects.all()

    def scoped_queryset(self):
        return selectors.score_configs_list(workspace=self.request.workspace)

    @extend_schema(
        summary=_lazy("Create a score config"),
        description=_lazy(
            "A kind (boolean, categorical with its labels, ordered or not, numeric with a "
            "minimum, maximum and step, or free text), a rubric shown to reviewers and, for "
            "boolean and categorical ones, the labels that mean pass and fail (so a human "
            "label and an evaluator's verdict are comparable). Every problem is named by its "
            "field; nothing is saved when there is one. Editors."
        ),
        request=s.ScoreConfigWriteSerializer,
        responses={201: s.ScoreConfigSerializer},
    )
    def create(self, request):
        body = validated(s.ScoreConfigWriteSerializer, request)
        config = services.score_config_create(
            workspace=request.workspace, user=request.user, fields=body
        )
        return Response(s.ScoreConfigSerializer(config).data, status=status.HTTP_201_CREATED)

    @extend_schema(
        summary=_lazy("Change a score config"),
        description=_lazy("Send only what changes; the kind cannot change. Editors."),
        request=s.ScoreConfigWriteSerializer,
        responses=s.ScoreConfigSerializer,
    )
    def partial_update(self, request, id=None):
        config = self.get_object()
        body = validated(s.ScoreConfigWriteSerializer, request, partial=True)
        config = services.score_config_update(config=config, fields=body)
        return Response(s.ScoreConfigSerializer(config).data)

    @extend_schema(
        summary=_lazy("Delete a score config"),
        description=_lazy("Refused while a queue asks for it. Editors."),
    )
    def destroy(self, request, id=None):
        services.score_config_delete(config=self.get_object())
        return Response(status=status.HTTP_204_NO_CONTENT)


@extend_schema_view(
    list=extend_schema(
        summary=_lazy("List annotation queues"),
        description=_lazy("The workspace's queues of items for human review, by name."),
    ),
    destroy=extend_schema(
        summary=_lazy("Delete an annotation queue"),
        description=_lazy("The queue goes, with its items, reservations and labels. Editors."),
    ),
)
class AnnotationQueueViewSet(
    WorkspaceScopedViewSet,
    mixins.ListModelMixin,
    mixins.DestroyModelMixin,
):
    """Items waiting for N reviewers each, scored with the queue's score configs."""

    serializer_class = s.AnnotationQueueSerializer
    queryset = AnnotationQueue.objects.all()

    def scoped_queryset(self):
        return selectors.annotation_queues_list(workspace=self.request.workspace)

    @extend_schema(
        summary=_lazy("Get an annotation queue"),
        description=_lazy(
            "Its settings and progress: items, items done (labelled by as many reviewers as "
            "it asks), labels given and needed, and each reviewer's reserved, labelled and "
            "skipped items."
        ),
        responses=s.AnnotationQueueSerializer,
    )
    def retrieve(self, request, id=None):
        queue = self.get_object()
        data = s.AnnotationQueueSerializer(queue).data
        return Response({**data, "progress": selectors.queue_progress(queue=queue)})

    @extend_schema(
        summary=_lazy("Create an annotation queue"),
        description=_lazy(
            "A name, the score configs reviewers answer, reviewers per item (1-10), how long "
            "a reservation lasts (15 minutes by default) and blind mode (reviewers see neither "
            "the judges' verdicts nor others' labels). Editors."
        ),
        request=s.AnnotationQueueWriteSerializer,
        responses={201: s.AnnotationQueueSerializer},
    )
    def create(self, request):
        body = validated(s.AnnotationQueueWriteSerializer, request)
        configs = self._configs(body.pop("score_configs"))
        queue = services.annotation_queue_create(
            workspace=request.workspace,
            user=request.user,
            fields=body,
            score_configs=configs,
            adjudicators=self._adjudicators(body),
        )
        return Response(s.AnnotationQueueSerializer(queue).data, status=status.HTTP_201_CREATED)

    @extend_schema(
        summary=_lazy("Change an annotation queue"),
        description=_lazy("Send only what changes; `score_configs`, when sent, replaces the list."),
        request=s.AnnotationQueueWriteSerializer,
        responses=s.AnnotationQueueSerializer,
    )
    def partial_update(self, request, id=None):
        queue = self.get_object()
        body = validated(s.AnnotationQueueWriteSerializer, request, partial=True)
        configs = body.pop("score_configs", None)
        configs = None if configs is None else self._configs(configs)
        queue = services.annotation_queue_update(
            queue=queue, fields=body, score_configs=configs, adjudicators=self._adjudicators(body)
        )
        return Response(s.AnnotationQueueSerializer(queue).data)

    @extend_schema(
        summary=_lazy("Reserve the next item"),
        description=_lazy(
            "The item the caller reviews now, held for them until the queue's reservation "
            "expires: the one they hold, else the first with a free slot they have not "
            "reviewed (the server never lets an item take more reviewers than the queue asks). "
            "204 when there is none. Editors."
        ),
        request=None,
        responses={200: s.QueueItemSerializer, 204: None},
    )
    @action(detail=True, methods=["post"])
    def next(self, request, id=None):
        queue = self.get_object()
        reviewer_or_403(queue, request)
        item = services.review_next(queue=queue, reviewer=request.user)
        if item is None:
            return Response(status=status.HTTP_204_NO_CONTENT)
        return Response(item_data(queue, [item], request.user)[0])

    @extend_schema(
        summary=_lazy("Read the reviewers' agreement"),
        description=_lazy(
            "Per score config: Krippendorff's alpha (nominal, ordinal for ordered labels, "
            "interval for numbers) with a bootstrap interval over items (at 95 %), Cohen's "
            "kappa for every pair of reviewers and alpha with each reviewer left out. Unknown "
            "labels and skips are not counted; free text has no agreement."
        ),
        responses={200: dict},
    )
    @action(detail=True, methods=["get"])
    def agreement(self, request, id=None):
        return Response({"score_configs": selectors.queue_agreement(queue=self.get_object())})

    @extend_schema(
        summary=_lazy("List the items waiting for adjudication"),
        description=_lazy(
            "Items whose reviewers have all labelled and disagree (two labels, or an unknown "
            "among them) on a score config no adjudicator has settled, with those configs. "
            "An adjudicator (an owner, or a member the queue names) sees every label and the "
            "judges' verdicts, blind mode or not; other members see what the items list shows "
            "them."
        ),
        responses=s.DisagreementsSerializer,
    )
    @action(detail=True, methods=["get"])
    def disagreements(self, request, id=None):
        queue = self.get_object()
        found = selectors.queue_disagreements(queue=queue)
        judge = selectors.queue_adjudicator_is(
            queue=queue, user=request.user, membership=request.membership
        )
        items = item_data(queue, [item for item, _c in found], request.user, adjudicator=judge)
        for entry, (_item, configs) in zip(items, found, strict=True):
            entry["disagree_on"] = [str(c.public_id) for c in configs]
        return Response({"count": len(items), "results": items})

    @extend_schema(
        summary=_lazy("Read the judges' calibration from this queue's gold labels"),
        description=_lazy(
            "Per evaluator version whose results the queue's gold labels (adjudicated, or "
            "unanimous once every reviewer has labelled) judge, and per score config mapping "
            "labels to pass and fail: the confusion counts, sensitivity, specificity and "
            "judge-versus-human kappa, beside the reviewers' own alpha (the ceiling)."
        ),
        responses={200: dict},
    )
    @action(detail=True, methods=["get"])
    def calibration(self, request, id=None):
        found = selectors.queue_calibrations(queue=self.get_object())
        return Response({"calibrations": found})

    def perform_destroy(self, instance):
        services.annotation_queue_delete(queue=instance)

    def _adjudicators(self, body: dict) -> list[str] | None:
        """The named adjudicators, when sent: owners choose who settles disagreements."""
        names = body.pop("adjudicators", None)
        if names is not None and not _owner(self.request):
            raise exceptions.PermissionDenied(_("Only owners name a queue's adjudicators."))
        return names

    def _configs(self, refs: list[str]) -> list[ScoreConfig | None]:
        workspace = self.request.workspace
        return [selectors.score_config_for(workspace=workspace, public_id=r) for r in refs]


def reviewer_or_403(queue: AnnotationQueue, request) -> None:
    """Only the members a queue is open to (a role, or its assignees) review its items."""
    membership, user = request.membership, request.user
    if not queue_reviewer_is(queue=queue, user=user, membership=membership):
        raise exceptions.PermissionDenied(_("This queue is assigned to other reviewers."))


def _owner(request) -> bool:
    membership = request.membership
    return membership is not None and membership.role == membership.Role.OWNER


def item_data(
    queue: AnnotationQueue, items: list[QueueItem], reader, *, adjudicator: bool = False
) -> list[dict]:
    """Items as `reader` may see them: in a blind queue, no judge and only their own labels
    (an adjudicator settling disagreements sees everything)."""
    blind = queue.blind and not adjudicator
    labels = selectors.items_labels(items=list(items), reviewer=reader if blind else None)
    orders = pairwise_orders(queue=queue, items=list(items), reader=reader)
    context = {"blind": blind, "shown_labels": labels, "orders": orders}
    return s.QueueItemSerializer(items, many=True, context=context).data


class QueueItemViewSet(QueueNested):
    """A queue's items: added from experiment results or traces, labelled, skipped."""

    serializer_class = s.QueueItemSerializer
    queryset = QueueItem.objects.all()

    def item(self, queue: AnnotationQueue) -> QueueItem:
        found = selectors.queue_item_get(queue=queue, public_id=self.kwargs["id"])
        if found is None:
            raise exceptions.NotFound(_("No such item in this queue."))
        return found

    @extend_schema(
        summary=_lazy("List a queue's items"),
        description=_lazy(
            "What reviewers see of each item (input, output, reference or conversation; "
            "untrusted text, capped), where it came from and, outside blind mode, the judges' "
            "verdicts and the labels given."
        ),
        responses=s.QueueItemSerializer(many=True),
    )
    def list(self, request, queue_id=None):
        queue = self.queue()
        page = self.paginate_queryset(selectors.queue_items(queue=queue))
        return self.get_paginated_response(item_data(queue, page, request.user))

    @extend_schema(
        summary=_lazy("Get a queue's item"),
        description=_lazy("One item, as the list shows it (blind mode hides the same things)."),
        responses=s.QueueItemSerializer,
    )
    def retrieve(self, request, queue_id=None, id=None):
        queue = self.queue()
        return Response(item_data(queue, [self.item(queue)], request.user)[0])

    @extend_schema(
        summary=_lazy("Add items to a queue"),
        description=_lazy(
            "One source: selected results of one experiment of the workspace (`experiment` "
            "and `results`: result ids), traces (`traces`: trace ids, with the online rules' "
            "verdicts on them) or rows of an evalset version (`evalset_version` with `rows`: "
            "row ids, or `all`); for a pairwise queue, pairs: judged pairs of a pairwise run "
            "(`pairwise_run` and `pairs`: their ids) or two finished experiments' outputs on "
            "the same rows (`experiments`: A's and B's ids, and `rows`). An item already in "
            "the queue stays as it is. Every id that is not the workspace's is named; nothing "
            "is added when there is one. Editors."
        ),
        request=s.ItemsAddSerializer,
        responses={201: dict},
    )
    def create(self, request, queue_id=None):
        queue = self.queue()
        body = validated(s.ItemsAddSerializer, request)
        found = pair_sources.items_from_body(workspace=request.workspace, body=body)
        if "errors" in found:
            raise ValidationError(found["errors"])
        added = services.queue_items_add(queue=queue, items=found["items"])
        return Response({"added": added, "items": queue.items.count()}, status=201)

    @extend_schema(
        summary=_lazy("Label an item"),
        description=_lazy(
            "The caller's labels for an item they hold a reservation of: one value per score "
            "config of the queue (null: unknown), checked against the config. 409 when they "
            "hold none (or it expired and the item went to another reviewer). Editors."
        ),
        request=s.LabelsWriteSerializer,
        responses={201: s.LabelSerializer(many=True)},
    )
    @action(detail=True, methods=["post"])
    def labels(self, request, queue_id=None, id=None):
        queue = self.queue()
        reviewer_or_403(queue, request)
        item = self.item(queue)
        body = validated(s.LabelsWriteSerializer, request)
        values = _config_values(request, body["values"])
        try:
            labels = services.review_label(
                item=item, reviewer=request.user, values=values, note=body["note"]
            )
        except services.SlotRefused as refused:
            raise SlotConflict(str(refused)) from None
        return Response(s.LabelSerializer(labels, many=True).data, status=201)

    @extend_schema(
        summary=_lazy("Adjudicate an item"),
        description=_lazy(
            "The final label of score configs on an item whose reviewers have all labelled "
            "(score config id → a known label), with a note; it becomes the item's gold label "
            "and replaces an earlier adjudication. Owners, and members the queue names as "
            "adjudicators. 409 while labels are missing."
        ),
        request=s.AdjudicateSerializer,
        responses={201: s.AdjudicationSerializer(many=True)},
    )
    @action(detail=True, methods=["post"])
    def adjudicate(self, request, queue_id=None, id=None):
        queue = self.queue()
        item = self.item(queue)
        if not selectors.queue_adjudicator_is(
            queue=queue, user=request.user, membership=request.membership
        ):
            raise exceptions.PermissionDenied(
                _("Only owners and the queue's adjudicators adjudicate.")
            )
        body = validated(s.AdjudicateSerializer, request)
        values = _config_values(request, body["values"])
        try:
            settled = services.item_adjudicate(
                item=item, adjudicator=request.user, values=values, note=body["note"]
            )
        except services.SlotRefused as refused:
            raise SlotConflict(str(refused)) from None
        return Response(s.AdjudicationSerializer(settled, many=True).data, status=201)

    @extend_schema(
        summary=_lazy("Skip an item"),
        description=_lazy(
            "The caller passes on an item they hold, saying why: the slot goes to another "
            "reviewer and the item never comes back to them. Editors."
        ),
        request=s.SkipSerializer,
        responses={204: None},
    )
    @action(detail=True, methods=["post"])
    def skip(self, request, queue_id=None, id=None):
        queue = self.queue()
        reviewer_or_403(queue, request)
        item = self.item(queue)
        body = validated(s.SkipSerializer, request)
        try:
            services.review_skip(item=item, reviewer=request.user, reason=body["reason"])
        except services.SlotRefused as refused:
            raise SlotConflict(str(refused)) from None
        return Response(status=status.HTTP_204_NO_CONTENT)


def _config_values(request, values: dict) -> dict:
    """A labels body's `values` by score config (config id → value)."""
    return {
        selectors.score_config_for(workspace=request.workspace, public_id=key): value
        for key, value in values.items()
    }
