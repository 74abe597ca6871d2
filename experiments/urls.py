from django.urls import path

from .views import garak as garak_views
from .views import results as result_views
from .views import run_page as page_views
from .views import runs as views

app_name = "experiments"
urlpatterns = [
    path("", views.index, name="list"),
    path("rows/", views.list_rows, name="list_rows"),
    path("first-run/", views.first_run, name="first_run"),
    path("new/", views.new, name="new"),
    path("new/plan/", views.new_plan, name="new_plan"),
    path("new/target-test/", views.target_test, name="target_test"),
    path("import-garak/", garak_views.import_garak, name="import_garak"),
    path("import-garak/<uuid:id>/", garak_views.import_garak_job, name="import_garak_job"),
    path(
        "import-garak/<uuid:id>/progress/",
        garak_views.import_garak_progress,
        name="import_garak_progress",
    ),
    path("<uuid:id>/", page_views.detail, name="detail"),
    path("<uuid:id>/progress/", page_views.progress, name="progress"),
    path("<uuid:id>/launch/", page_views.launch, name="launch"),
    path("<uuid:id>/cancel/", page_views.cancel, name="cancel"),
    path("<uuid:id>/retry/", page_views.retry, name="retry"),
    path("<uuid:id>/clone/", page_views.clone, name="clone"),
    path("<uuid:id>/rescore/", page_views.rescore, name="rescore"),
    path("<uuid:id>/baseline/", page_views.baseline, name="baseline"),
    path("<uuid:id>/target-test/", page_views.detail_target_test, name="detail_target_test"),
    path("<uuid:id>/dashboard/", result_views.dashboard, name="dashboard"),
    path("<uuid:id>/items/<uuid:item_id>/", result_views.item_drawer, name="item"),
    path("<uuid:id>/results/<int:result_id>/", result_views.result_drawer, name="result"),
    path(
        "<uuid:id>/results/<int:result_id>/correct/",
        result_views.result_correct,
        name="result_correct",
    ),
    path("<uuid:id>/export/<str:fmt>/", result_views.export, name="export"),
]
