from django.apps import AppConfig


class EvalsetsConfig(AppConfig):
    name = "evalsets"
