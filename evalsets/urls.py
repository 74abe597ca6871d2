from django.urls import path

from . import views

app_name = "evalsets"
urlpatterns = [path("", views.index, name="list")]
