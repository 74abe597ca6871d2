from django.apps import AppConfig


class OnlineConfig(AppConfig):
    name = "online"
    verbose_name = "Online evaluation"

    def ready(self) -> None:
        from . import kind  # noqa: F401  (registers the online kind of run)
