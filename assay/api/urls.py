"""Routes under /api/v1/ for platform objects; apps add their own routers to `router`."""

from rest_framework.routers import DefaultRouter

from . import views

router = DefaultRouter(trailing_slash="/?")
router.register("workspaces", views.WorkspaceViewSet, basename="workspace")
router.register("members", views.MemberViewSet, basename="member")
router.register("tokens", views.TokenViewSet, basename="token")
router.register("providers", views.ProviderViewSet, basename="provider")
