from django.apps import AppConfig


class SchedulesConfig(AppConfig):
    name = "schedules"
    verbose_name = "Experiment templates and schedules"

    def ready(self) -> None:
        from experiments.panels import action_register

        from .panels import save_as_template

        action_register(save_as_template)
