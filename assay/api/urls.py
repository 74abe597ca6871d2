"""Routes under /api/v1/: the URL wiring of every app's API (so this module may import them
all). Ids are matched by path converters (`<uuid:…>`), so a malformed id is a 404 before any
view runs."""

from django.urls import URLPattern, path
from rest_framework.routers import DefaultRouter

from evaluators.api.library import (
    EvaluatorViewSet,
    TemplateViewSet,
    TestCaseViewSet,
    VersionViewSet,
)

from . import views


class Router(DefaultRouter):
    """path() routes with converters; every route answers with or without its trailing slash
    (a POST cannot be redirected). Downloads choose their format with ?format=, so there are no
    `.json` suffix routes."""

    include_format_suffixes = False

    def __init__(self) -> None:
        super().__init__(use_regex_path=False)

    def get_urls(self):
        urls = super().get_urls()
        bare = [
            path(str(u.pattern)[:-1], u.callback)
            for u in urls
            if isinstance(u, URLPattern) and str(u.pattern).endswith("/")
        ]
        return urls + bare


router = Router()
router.register("workspaces", views.WorkspaceViewSet, basename="workspace")
router.register("members", views.MemberViewSet, basename="member")
router.register("invitations", views.InvitationViewSet, basename="invitation")
router.register("tokens", views.TokenViewSet, basename="token")
router.register("providers", views.ProviderViewSet, basename="provider")
router.register("secrets", views.SecretViewSet, basename="secret")
router.register("evaluators", EvaluatorViewSet, basename="evaluator")
router.register(
    "evaluators/<uuid:evaluator_id>/versions",
    VersionViewSet,
    basename="evaluator-version",
)
router.register(
    "evaluators/<uuid:evaluator_id>/test-cases",
    TestCaseViewSet,
    basename="evaluator-test-case",
)
router.register("evaluator-templates", TemplateViewSet, basename="evaluator-template")

from evalsets.api.imports import ImportViewSet  # noqa: E402
from evalsets.api.items import ItemViewSet  # noqa: E402
from evalsets.api.sets import EvalSetViewSet  # noqa: E402
from evalsets.api.versions import VersionViewSet as EvalSetVersionViewSet  # noqa: E402

router.register("evalsets", EvalSetViewSet, basename="evalset")
router.register("evalsets/<uuid:evalset_id>/items", ItemViewSet, basename="evalset-item")
router.register(
    "evalsets/<uuid:evalset_id>/versions",
    EvalSetVersionViewSet,
    basename="evalset-version",
)
router.register("evalsets/<uuid:evalset_id>/imports", ImportViewSet, basename="evalset-import")

from experiments.api import ExperimentViewSet, GarakImportViewSet  # noqa: E402

router.register("experiments/import-garak", GarakImportViewSet, basename="garak-import")
router.register("experiments", ExperimentViewSet, basename="experiment")

from experiments.api.calibrations import EvaluatorCalibrationViewSet  # noqa: E402

router.register(
    "evaluators/<uuid:evaluator_id>/calibrations",
    EvaluatorCalibrationViewSet,
    basename="evaluator-calibration",
)

from experiments.pairwise.api import PairwiseRunViewSet  # noqa: E402

router.register("pairwise-runs", PairwiseRunViewSet, basename="pairwise-run")

from traces.api.to_evalset import TraceToEvalsetViewSet  # noqa: E402
from traces.api.traces import IngestKeyViewSet, SessionViewSet, SpanViewSet, TraceViewSet  # noqa: E402

router.register("ingest-keys", IngestKeyViewSet, basename="ingest-key")
# before "traces": its detail route would take "to-evalset" for a trace id
router.register("traces/to-evalset", TraceToEvalsetViewSet, basename="trace-to-evalset")
router.register("traces", TraceViewSet, basename="trace")
router.register("spans", SpanViewSet, basename="span")
router.register("sessions", SessionViewSet, basename="session")

from online.api.rules import OnlineRuleViewSet  # noqa: E402

router.register("online-rules", OnlineRuleViewSet, basename="online-rule")

from annotation.api.queues import AnnotationQueueViewSet, QueueItemViewSet, ScoreConfigViewSet  # noqa: E402

router.register("score-configs", ScoreConfigViewSet, basename="score-config")
router.register("annotation-queues", AnnotationQueueViewSet, basename="annotation-queue")
router.register(
    "annotation-queues/<uuid:queue_id>/items", QueueItemViewSet, basename="annotation-queue-item"
)

from annotation.api.gold import QueueGoldViewSet  # noqa: E402

router.register(
    "annotation-queues/<uuid:queue_id>/gold", QueueGoldViewSet, basename="annotation-queue-gold"
)

from annotation.api.feeds import QueueAssignmentViewSet, QueueFeedViewSet, QueueSourceViewSet  # noqa: E402

router.register(
    "annotation-queues/<uuid:queue_id>/sources",
    QueueSourceViewSet,
    basename="annotation-queue-source",
)
router.register(
    "annotation-queues/<uuid:queue_id>/feeds", QueueFeedViewSet, basename="annotation-queue-feed"
)
router.register(
    "annotation-queues/<uuid:queue_id>/assignment",
    QueueAssignmentViewSet,
    basename="annotation-queue-assignment",
)

from schedules.api import ExperimentTemplateViewSet, ScheduleViewSet  # noqa: E402

router.register("experiment-templates", ExperimentTemplateViewSet, basename="experiment-template")
router.register(
    "experiment-templates/<uuid:template_id>/schedules",
    ScheduleViewSet,
    basename="experiment-template-schedule",
)

from online.api.rules import RuleAlertViewSet  # noqa: E402

router.register(
    "online-rules/<uuid:rule_id>/alerts", RuleAlertViewSet, basename="online-rule-alert"
)

from notifications.api import WebhookViewSet  # noqa: E402

router.register("webhooks", WebhookViewSet, basename="webhook")

from imports.api.runs import ImportKindViewSet, ImportRunViewSet  # noqa: E402

router.register("imports", ImportRunViewSet, basename="import")
router.register("imports/<slug:kind>", ImportKindViewSet, basename="import-kind")
