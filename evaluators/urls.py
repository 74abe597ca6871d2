from django.urls import path

from . import views

app_name = "evaluators"
urlpatterns = [
    path("", views.index, name="list"),
    path("new/", views.new, name="new"),
    path("<uuid:id>/", views.detail, name="detail"),
    path("<uuid:id>/submit/", views.submit, name="submit"),
    path("<uuid:id>/versions/", views.versions, name="versions"),
    path("<uuid:id>/copy/", views.copy, name="copy"),
    path("<uuid:id>/delete/", views.delete, name="delete"),
    path("<uuid:id>/restore/", views.restore, name="restore"),
]
