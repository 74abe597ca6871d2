"""The annotation pages, under /w/<workspace>/annotation/."""

from django.urls import path

from . import config_views, gold_views, pair_pages, views
from .feed_views import assignment_set, feed_add, feed_change

app_name = "annotation"

urlpatterns = [
    path("", views.queue_list, name="list"),
    path("new/", pair_pages.queue_new, name="new"),
    path("configs/", config_views.config_list, name="configs"),
    path("configs/new/", config_views.config_new, name="config_new"),
    path("configs/<uuid:config_id>/", config_views.config_edit, name="config"),
    path("configs/<uuid:config_id>/delete/", config_views.config_delete, name="config_delete"),
    path("<uuid:queue_id>/add/", pair_pages.items_add, name="items_add"),
    path("<uuid:queue_id>/", views.queue_detail, name="queue"),
    path("<uuid:queue_id>/review/", views.review, name="review"),
    path("<uuid:queue_id>/feeds/", feed_add, name="feed_add"),
    path("<uuid:queue_id>/feeds/<uuid:feed_id>/", feed_change, name="feed_change"),
    path("<uuid:queue_id>/assignment/", assignment_set, name="assignment"),
    path("<uuid:queue_id>/adjudicate/", gold_views.adjudicate, name="adjudicate"),
    path("<uuid:queue_id>/calibration/", gold_views.calibration, name="calibration"),
    path("<uuid:queue_id>/gold-evalset/", gold_views.gold_evalset, name="gold_evalset"),
    path(
        "<uuid:queue_id>/items/<uuid:queue_item_id>/test-case/",
        gold_views.test_case,
        name="test_case",
    ),
]
