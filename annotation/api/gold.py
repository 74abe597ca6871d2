"""The API of what a queue's gold labels teach, under /api/v1/annotation-queues/{queue_id}/gold/:
the items where the judge and the gold label disagree, one of them as a test case of the
evaluator, and a score config's gold items as an evaluation set version."""

from __future__ import annotations

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy as _lazy
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import exceptions, serializers, status
from rest_framework.decorators import action
from rest_framework.response import Response

from assay.api.base import validated
from assay.api.serializers import StrictSerializer

from .. import selectors
from ..models import AnnotationQueue, QueueItem, ScoreConfig
from ..selectors import gold as gold_selectors
from ..services.teach import gold_evalset_export, judge_miss_test_case
from .nested import QueueNested


class GoldConfigSerializer(StrictSerializer):
    score_config = serializers.CharField(
        required=False, help_text="a score config of the queue (default: its only one)"
    )


def miss_data(miss) -> dict:
    version, outcome = miss.version, miss.outcome
    return {
        "item": str(miss.item.public_id),
        "result": None if miss.result is None else miss.result.pk,
        "online_rule": None if outcome is None else str(outcome.rule.public_id),
        "row_number": miss.item.snapshot.get("row_number"),
        "gold": miss.gold,
        "human_verdict": miss.human,
        "judge_verdict": miss.judge,
        "evaluator": version.evaluator.name,
        "evaluator_id": str(version.evaluator.public_id),
        "version": version.version,
    }


class QueueGoldViewSet(QueueNested):
    """A queue's gold labels put to work: judge misses, test cases, an evaluation set."""

    queryset = QueueItem.objects.all()

    def config(self, queue: AnnotationQueue, raw: str | None, *, verdicts: bool) -> ScoreConfig:
        """The named config of the queue (its only one when none is named)."""
        configs = (
            gold_selectors.verdict_configs(queue=queue)
            if verdicts
            else selectors.comparable_configs(queue=queue)
        )
        if raw is None and len(configs) == 1:
            return configs[0]
        found = [c for c in configs if str(c.public_id) == (raw or "")]
        if not found:
            problem = _("Name a score config of this queue whose labels can be gold.")
            if verdicts:
                problem = _("Name a score config of this queue that maps labels to pass and fail.")
            raise exceptions.ValidationError({"score_config": [problem]})
        return found[0]

    @extend_schema(
        summary=_lazy("List the items where the judge and the gold label disagree"),
        description=_lazy(
            "For a score config mapping labels to pass and fail (`score_config`, default: "
            "the queue's only one): the items whose gold label (adjudicated, or unanimous) "
            "means a pass or a fail a judge's verdict does not match: an evaluator's on an "
            "experiment's result (`result`), or an online rule's on a span, trace or session "
            "of live traffic (`online_rule`); each may become a test case of the evaluator."
        ),
        parameters=[OpenApiParameter("score_config", str, required=False)],
        responses={200: dict},
    )
    @action(detail=False, methods=["get"])
    def misses(self, request, queue_id=None):
        queue = self.queue()
        config = self.config(queue, request.query_params.get("score_config"), verdicts=True)
        found = gold_selectors.judge_misses(queue=queue, config=config)
        return Response({"count": len(found), "results": [miss_data(m) for m in found]})

    @extend_schema(
        summary=_lazy("Make an item a test case of its evaluator"),
        description=_lazy(
            "An item where the judge and the gold label disagree becomes a test case of the "
            "evaluator that judged it (its result, or the live traffic an online rule scored; "
            "the first judge by version when several missed): the turn the evaluator received, "
            "rebuilt from the stored spans for live traffic, and the gold "
            "label's verdict as the expected one (the evaluator's test-gated submit runs it). "
            "201 with the case, 200 with the case made before for the same item; 400 when "
            "they do not disagree. Editors."
        ),
        request=GoldConfigSerializer,
        responses={201: dict, 200: dict},
    )
    @action(detail=True, methods=["post"], url_path="test-case")
    def test_case(self, request, queue_id=None, id=None):
        queue = self.queue()
        item = selectors.queue_item_get(queue=queue, public_id=id)
        if item is None:
            raise exceptions.NotFound(_("No such item in this queue."))
        body = validated(GoldConfigSerializer, request)
        config = self.config(queue, body.get("score_config"), verdicts=True)
        case, created = judge_miss_test_case(item=item, config=config, user=request.user)
        data = {
            "test_case": str(case.public_id),
            "name": case.name,
            "expected_verdict": case.expected_verdict,
            "evaluator_id": str(case.evaluator.public_id),
            "created": created,
        }
        return Response(data, status=status.HTTP_201_CREATED if created else status.HTTP_200_OK)

    @extend_schema(
        summary=_lazy("Export the gold items to an evaluation set version"),
        description=_lazy(
            "A score config's gold items (`score_config`, default: the queue's only one) as "
            'rows of the set "<queue> · <config> · gold" (made when missing), committed as '
            "its next version: the items' input, output and reference fields as columns, "
            "the gold label as each row's `label` and, when the config maps it, its "
            "`human_verdict`. 201 with a new version, 200 with the version made before from "
            "the same gold items. Editors."
        ),
        request=GoldConfigSerializer,
        responses={201: dict, 200: dict},
    )
    @action(detail=False, methods=["post"])
    def evalset(self, request, queue_id=None):
        queue = self.queue()
        body = validated(GoldConfigSerializer, request)
        config = self.config(queue, body.get("score_config"), verdicts=False)
        version, created = gold_evalset_export(queue=queue, config=config, user=request.user)
        data = {
            "evalset": str(version.evalset.public_id),
            "evalset_name": version.evalset.name,
            "version": version.version,
            "rows": version.item_count,
            "created": created,
        }
        return Response(data, status=status.HTTP_201_CREATED if created else status.HTTP_200_OK)
