from django.apps import AppConfig
from django.db.models.signals import post_migrate


def _sync_templates(sender, **kwargs):
    """Templates ship as data in the repo; every migrate brings the table in line with it."""
    from .presets.sync import templates_sync

    templates_sync()


class EvaluatorsConfig(AppConfig):
    name = "evaluators"

    def ready(self) -> None:
        post_migrate.connect(_sync_templates, sender=self, dispatch_uid="evaluators-templates")
