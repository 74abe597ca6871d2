from django.apps import AppConfig


class EvaluatorsConfig(AppConfig):
    name = "evaluators"
