"""The imports pages, under /w/<workspace>/imports/ (`views.pages`)."""

from django.urls import path

from .views import pages as views

app_name = "imports"

urlpatterns = [
    path("", views.import_list, name="list"),
    path("<uuid:id>/", views.import_detail, name="detail"),
    path("<slug:kind>/", views.import_create, name="create"),
]
