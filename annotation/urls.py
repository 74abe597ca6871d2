"""The annotation pages, under /w/<workspace>/annotation/."""

from django.urls import path

from . import views

app_name = "annotation"

urlpatterns = [
    path("", views.queue_list, name="list"),
]
