from django.urls import path

from .views import pages as views

app_name = "evalsets"
urlpatterns = [
    path("", views.index, name="list"),
    path("new/", views.new, name="new"),
    path("media/<path:path>", views.media, name="media"),
    path("<uuid:id>/", views.detail, name="detail"),
    path("<uuid:id>/columns/", views.columns, name="columns"),
    path("<uuid:id>/items/<uuid:item_id>/", views.item_locate, name="item"),
    path("<uuid:id>/rows/new/", views.row_edit, name="row_new"),
    path("<uuid:id>/rows/<uuid:item_id>/", views.row_edit, name="row_edit"),
    path("<uuid:id>/rows/<uuid:item_id>/delete/", views.row_delete, name="row_delete"),
    path("<uuid:id>/versions/", views.versions, name="versions"),
    path("<uuid:id>/commit/", views.commit, name="commit"),
    path(
        "<uuid:id>/versions/<uuid:version_id>/progress/",
        views.commit_progress,
        name="commit_progress",
    ),
    path("<uuid:id>/export/", views.export, name="export"),
    path("<uuid:id>/delete/", views.delete, name="delete"),
    path("<uuid:id>/import/", views.import_upload, name="import"),
    path("<uuid:id>/import/<uuid:job_id>/", views.import_job, name="import_job"),
    path("<uuid:id>/import/<uuid:job_id>/progress/", views.import_progress, name="import_progress"),
    path("<uuid:id>/import/<uuid:job_id>/errors.csv", views.import_errors, name="import_errors"),
    path("<uuid:id>/import/<uuid:job_id>/retry/", views.import_retry, name="import_retry"),
]
