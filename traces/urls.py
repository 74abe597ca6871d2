"""The OTLP/HTTP receiver's route (mounted at the root: exporters append /v1/traces to
OTEL_EXPORTER_OTLP_ENDPOINT=<assay>/otlp)."""

from django.urls import path

from . import views

urlpatterns = [
    path("otlp/v1/traces", views.otlp_traces, name="otlp_traces"),
]
