"""URL configuration: pages under /w/<workspace>/, the API under /api/v1/.

URL wiring is the one place of `assay` that may import every app (their views and URLs);
`tests/test_architecture.py` allows exactly this module and `assay/api/urls.py` to."""

from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path
from django.views.generic import TemplateView
from django.views.i18n import JavaScriptCatalog
from drf_spectacular.views import SpectacularAPIView

from experiments.views.compare import CompareApi
from experiments.views.compare_detail import CompareItemApi
from traces.ingest.receiver import otlp_traces
from traces.views import ingest_keys as ingest_key_pages

from .api.urls import router
from .web import views
from .web.health import healthz
from .web.language import language_set

handler400 = "assay.api.errors.json_bad_request"
handler404 = "assay.api.errors.json_not_found"
handler500 = "assay.api.errors.json_server_error"

settings_urls = [
    path("", views.settings_home, name="settings"),
    path("members/", views.settings_members, name="settings_members"),
    path("members/<int:member_id>/", views.settings_member_change, name="settings_member_change"),
    path("members/invite/", views.settings_invite, name="settings_invite"),
    path("members/new/", views.settings_member_create, name="settings_member_create"),
    path(
        "members/invitations/<uuid:invitation_id>/withdraw/",
        views.settings_invitation_revoke,
        name="settings_invitation_revoke",
    ),
    path("secrets/", views.settings_secrets, name="settings_secrets"),
    path(
        "secrets/<uuid:secret_id>/delete/",
        views.settings_secret_delete,
        name="settings_secret_delete",
    ),
    path("providers/", views.settings_providers, name="settings_providers"),
    path("providers/new/", views.settings_provider_edit, name="settings_provider_new"),
    path("providers/test/", views.settings_provider_test, name="settings_provider_try"),
    path("providers/<uuid:provider_id>/", views.settings_provider_edit, name="settings_provider"),
    path(
        "providers/<uuid:provider_id>/test/",
        views.settings_provider_test,
        name="settings_provider_test",
    ),
    path(
        "providers/<uuid:provider_id>/delete/",
        views.settings_provider_delete,
        name="settings_provider_delete",
    ),
    path("tokens/", views.settings_tokens, name="settings_tokens"),
    path(
        "tokens/<uuid:token_id>/revoke/", views.settings_token_revoke, name="settings_token_revoke"
    ),
    path("ingest-keys/", ingest_key_pages.settings_ingest_keys, name="settings_ingest_keys"),
    path(
        "ingest-keys/<uuid:ingest_key_id>/revoke/",
        ingest_key_pages.settings_ingest_key_revoke,
        name="settings_ingest_key_revoke",
    ),
    path("webhooks/", include("notifications.urls")),
]

workspace_urls = [
    path("settings/", include(settings_urls)),
    path("evaluators/", include("evaluators.urls")),
    path("evalsets/", include("evalsets.urls")),
    path("experiments/", include("experiments.urls")),
    path("templates/", include("schedules.urls")),
    path("compare/", include("experiments.compare_urls")),
    path("pairwise/", include("experiments.pairwise.urls")),
    path("traces/", include("traces.urls")),
    path("online/", include("online.urls")),
    path("annotation/", include("annotation.urls")),
    path("imports/", include("imports.urls")),
]

urlpatterns = [
    path("", views.home, name="home"),
    path("healthz", healthz, name="healthz"),
    path("i18n/setlang/", language_set, name="set_language"),
    # the JavaScript catalogue of the request's language (static/js/* call gettext())
    path("i18n/js/", JavaScriptCatalog.as_view(), name="javascript-catalog"),
    path(
        "accounts/login/",
        views.SignInView.as_view(),
        name="login",
    ),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path(
        "accounts/password/",
        views.PasswordChangeFirstView.as_view(),
        name="password_change_first",
    ),
    path("workspaces/new/", views.workspace_new, name="workspace_new"),
    path("invite/<str:key>/", views.invitation_open, name="invitation"),
    path("w/<slug:ws>/", include(workspace_urls)),
    path("api/v1/compare", CompareApi.as_view(), name="api-compare"),
    path(
        "api/v1/compare/<uuid:id>/vs/<uuid:candidate>/items/<uuid:item>",
        CompareItemApi.as_view(),
        name="api-compare-item",
    ),
    path("api/v1/", include(router.urls)),
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
    path("api/docs/", TemplateView.as_view(template_name="assay/api_docs.html"), name="api-docs"),
    path("admin/", admin.site.urls),
    path("otlp/v1/traces", otlp_traces, name="otlp_traces"),  # where exporters send spans
]
