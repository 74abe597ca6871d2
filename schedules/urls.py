"""The templates' pages, under /w/<workspace>/templates/."""

from django.urls import path

from . import views

app_name = "schedules"

urlpatterns = [
    path("", views.template_list, name="list"),
    path("new/", views.template_new, name="new"),
    path("from-experiment/<uuid:id>/", views.template_from_experiment, name="from_experiment"),
    path("<uuid:id>/", views.template_detail, name="detail"),
    path("<uuid:id>/settings/", views.template_settings, name="settings"),
    path("<uuid:id>/launch/", views.template_launch, name="launch"),
    path("<uuid:id>/delete/", views.template_delete, name="delete"),
    path("<uuid:id>/schedules/", views.schedule_add, name="schedule_add"),
    path(
        "<uuid:id>/schedules/<uuid:schedule_id>/toggle/",
        views.schedule_toggle,
        name="schedule_toggle",
    ),
    path(
        "<uuid:id>/schedules/<uuid:schedule_id>/delete/",
        views.schedule_delete,
        name="schedule_delete",
    ),
]
