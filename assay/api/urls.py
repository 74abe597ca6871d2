"""Routes under /api/v1/ for platform objects; apps add their own routers to `router`."""

from rest_framework.routers import DefaultRouter

from evaluators.api import EvaluatorViewSet, TemplateViewSet, TestCaseViewSet, VersionViewSet

from . import views


class Router(DefaultRouter):
    """Every route answers with or without its trailing slash (a POST cannot be redirected)."""

    def __init__(self) -> None:
        super().__init__()
        self.trailing_slash = "/?"


router = Router()
router.register("workspaces", views.WorkspaceViewSet, basename="workspace")
router.register("members", views.MemberViewSet, basename="member")
router.register("tokens", views.TokenViewSet, basename="token")
router.register("providers", views.ProviderViewSet, basename="provider")
router.register("evaluators", EvaluatorViewSet, basename="evaluator")
router.register(
    r"evaluators/(?P<evaluator_id>[0-9a-fA-F-]{36})/versions",
    VersionViewSet,
    basename="evaluator-version",
)
router.register(
    r"evaluators/(?P<evaluator_id>[0-9a-fA-F-]{36})/test-cases",
    TestCaseViewSet,
    basename="evaluator-test-case",
)
router.register("evaluator-templates", TemplateViewSet, basename="evaluator-template")

from evalsets.api import (  # noqa: E402
    EvalSetViewSet,
    ImportViewSet,
    ItemViewSet,
)
from evalsets.api import VersionViewSet as EvalSetVersionViewSet  # noqa: E402

router.register("evalsets", EvalSetViewSet, basename="evalset")
router.register(
    r"evalsets/(?P<evalset_id>[0-9a-fA-F-]{36})/items", ItemViewSet, basename="evalset-item"
)
router.register(
    r"evalsets/(?P<evalset_id>[0-9a-fA-F-]{36})/versions",
    EvalSetVersionViewSet,
    basename="evalset-version",
)
router.register(
    r"evalsets/(?P<evalset_id>[0-9a-fA-F-]{36})/imports", ImportViewSet, basename="evalset-import"
)

from experiments.api import ExperimentViewSet  # noqa: E402

router.register("experiments", ExperimentViewSet, basename="experiment")
