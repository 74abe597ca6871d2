from django.urls import path

from .views import compare as compare_views
from .views import compare_detail

app_name = "compare"
urlpatterns = [
    path("", compare_views.compare, name="page"),
    path("export/", compare_views.compare_export, name="export"),
    path(
        "<uuid:id>/vs/<uuid:candidate>/items/<uuid:item>/",
        compare_detail.compare_item,
        name="item",
    ),
]
