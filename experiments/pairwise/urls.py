from django.urls import path

from . import views

app_name = "pairwise"
urlpatterns = [
    path("", views.index, name="list"),
    path("new/", views.new, name="new"),
    path("<uuid:id>/", views.detail, name="detail"),
    path("<uuid:id>/progress/", views.progress, name="progress"),
    path("<uuid:id>/rows/", views.rows, name="rows"),
    path("<uuid:id>/rows/<int:result_id>/", views.row, name="row"),
    path("<uuid:id>/cancel/", views.cancel, name="cancel"),
    path("<uuid:id>/retry/", views.retry, name="retry"),
    path("<uuid:id>/export/<str:fmt>/", views.export, name="export"),
]
