"""Settings → Webhooks pages (under a workspace's settings/)."""

from django.urls import path

from . import views

urlpatterns = [
    path("", views.settings_webhooks, name="settings_webhooks"),
    path("<uuid:webhook_id>/", views.settings_webhook, name="settings_webhook"),
    path(
        "<uuid:webhook_id>/rotate-secret/",
        views.settings_webhook_rotate,
        name="settings_webhook_rotate",
    ),
    path("<uuid:webhook_id>/test/", views.settings_webhook_test, name="settings_webhook_test"),
    path(
        "<uuid:webhook_id>/deliveries/<uuid:delivery_id>/redeliver/",
        views.settings_webhook_redeliver,
        name="settings_webhook_redeliver",
    ),
    path(
        "<uuid:webhook_id>/delete/", views.settings_webhook_delete, name="settings_webhook_delete"
    ),
]
