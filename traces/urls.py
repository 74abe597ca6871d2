"""The traces pages, under /w/<workspace>/traces/ (the OTLP receiver's route is wired in
`assay/urls.py`: exporters post to /otlp/v1/traces, outside any workspace)."""

from django.urls import path

from . import views

app_name = "traces"

urlpatterns = [
    path("", views.trace_list, name="list"),
    path("<str:trace_id>/", views.trace_detail, name="detail"),
]
