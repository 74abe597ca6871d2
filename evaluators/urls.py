from django.urls import path

from . import views

app_name = "evaluators"
urlpatterns = [path("", views.index, name="list")]
