from django.urls import path

from . import views

app_name = "experiments"
urlpatterns = [
    path("", views.index, name="list"),
    path("rows/", views.list_rows, name="list_rows"),
    path("new/", views.new, name="new"),
    path("new/plan/", views.new_plan, name="new_plan"),
    path("<uuid:id>/", views.detail, name="detail"),
    path("<uuid:id>/progress/", views.progress, name="progress"),
    path("<uuid:id>/launch/", views.launch, name="launch"),
    path("<uuid:id>/cancel/", views.cancel, name="cancel"),
    path("<uuid:id>/retry/", views.retry, name="retry"),
    path("<uuid:id>/clone/", views.clone, name="clone"),
]
