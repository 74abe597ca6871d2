"""The traces pages, under /w/<workspace>/traces/ (the OTLP receiver's route is wired in
`assay/urls.py`: exporters post to /otlp/v1/traces, outside any workspace)."""

from django.urls import path

from .views import to_evalset as to_evalset_views
from .views import traces as views

app_name = "traces"

urlpatterns = [
    path("", views.trace_list, name="list"),
    # before the trace page: "sessions" is not a trace id
    path("sessions/", views.session_list, name="sessions"),
    path("sessions/<path:session_id>/", views.session_detail, name="session"),
    path("to-evalset/", to_evalset_views.to_evalset, name="to_evalset"),
    path("to-evalset/mapping/", to_evalset_views.to_evalset_mapping, name="to_evalset_mapping"),
    path("<str:trace_id>/", views.trace_detail, name="detail"),
]
