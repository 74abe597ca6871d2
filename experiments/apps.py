from django.apps import AppConfig


class ExperimentsConfig(AppConfig):
    name = "experiments"

    def ready(self) -> None:
        # evalsets may not import experiments: the trends reach the evalset page this way
        from evalsets.panels import panel_register

        from .views.trends import evalset_trends_panel

        panel_register(evalset_trends_panel)
