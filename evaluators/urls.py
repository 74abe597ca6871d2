from django.urls import path

from .views import debug as debug_views
from .views import library as views

app_name = "evaluators"
urlpatterns = [
    path("", views.index, name="list"),
    path("new/", views.new, name="new"),
    path("<uuid:id>/", views.detail, name="detail"),
    path("<uuid:id>/submit/", views.submit, name="submit"),
    path("<uuid:id>/versions/", views.versions, name="versions"),
    path("<uuid:id>/versions/<str:version>/", views.version_detail, name="version"),
    path(
        "<uuid:id>/versions/<str:version>/restore/", views.version_restore, name="version_restore"
    ),
    path("<uuid:id>/copy/", views.copy, name="copy"),
    path("<uuid:id>/delete/", views.delete, name="delete"),
    path("<uuid:id>/restore/", views.restore, name="restore"),
    path("<uuid:id>/debug/", debug_views.debug_run, name="debug"),
    path("<uuid:id>/debug/upload/", debug_views.debug_upload, name="debug_upload"),
    path("<uuid:id>/debug/rows/", debug_views.debug_rows, name="debug_rows"),
    path("<uuid:id>/debug/evalsets/", debug_views.debug_evalsets, name="debug_evalsets"),
    path("<uuid:id>/tests/", debug_views.testcase_save, name="testcase_save"),
    path("<uuid:id>/tests/run/", debug_views.tests_run, name="tests_run"),
    path(
        "<uuid:id>/tests/<uuid:case_id>/delete/",
        debug_views.testcase_delete,
        name="testcase_delete",
    ),
]
