"""The online rules' pages, under /w/<workspace>/online/."""

from django.urls import path

from .views import pages as views

app_name = "online"

urlpatterns = [
    path("", views.rule_list, name="list"),
    path("new/", views.rule_new, name="new"),
    path("<uuid:id>/", views.rule_detail, name="detail"),
    path("<uuid:id>/toggle/", views.rule_toggle, name="toggle"),
    path("<uuid:id>/backfill/", views.rule_backfill, name="backfill"),
    path("<uuid:id>/delete/", views.rule_delete, name="delete"),
    path("<uuid:id>/alerts/new/", views.alert_new, name="alert_new"),
    path("<uuid:id>/alerts/<uuid:alert_id>/", views.alert_detail, name="alert_detail"),
    path("<uuid:id>/alerts/<uuid:alert_id>/delete/", views.alert_delete, name="alert_delete"),
]
