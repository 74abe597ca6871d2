"""The annotation pages, under /w/<workspace>/annotation/."""

from django.urls import path

from . import views

app_name = "annotation"

urlpatterns = [
    path("", views.queue_list, name="list"),
    path("<uuid:queue_id>/", views.queue_detail, name="queue"),
    path("<uuid:queue_id>/review/", views.review, name="review"),
]
