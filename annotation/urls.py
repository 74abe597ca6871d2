"""The annotation pages, under /w/<workspace>/annotation/."""

from django.urls import path

from .views import configs, feeds, gold, pairs, review

app_name = "annotation"

urlpatterns = [
    path("", review.queue_list, name="list"),
    path("new/", pairs.queue_new, name="new"),
    path("configs/", configs.config_list, name="configs"),
    path("configs/new/", configs.config_new, name="config_new"),
    path("configs/<uuid:config_id>/", configs.config_edit, name="config"),
    path("configs/<uuid:config_id>/delete/", configs.config_delete, name="config_delete"),
    path("<uuid:queue_id>/add/", pairs.items_add, name="items_add"),
    path("<uuid:queue_id>/", review.queue_detail, name="queue"),
    path("<uuid:queue_id>/review/", review.review, name="review"),
    path("<uuid:queue_id>/feeds/", feeds.feed_add, name="feed_add"),
    path("<uuid:queue_id>/feeds/<uuid:feed_id>/", feeds.feed_change, name="feed_change"),
    path("<uuid:queue_id>/assignment/", feeds.assignment_set, name="assignment"),
    path("<uuid:queue_id>/adjudicate/", gold.adjudicate, name="adjudicate"),
    path("<uuid:queue_id>/calibration/", gold.calibration, name="calibration"),
    path("<uuid:queue_id>/gold-evalset/", gold.gold_evalset, name="gold_evalset"),
    path(
        "<uuid:queue_id>/items/<uuid:queue_item_id>/test-case/",
        gold.test_case,
        name="test_case",
    ),
]
