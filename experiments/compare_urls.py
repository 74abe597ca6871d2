from django.urls import path

from .views import compare as compare_views

app_name = "compare"
urlpatterns = [
    path("", compare_views.compare, name="page"),
    path("export/", compare_views.compare_export, name="export"),
]
