from django.apps import AppConfig


class ExperimentsConfig(AppConfig):
    name = "experiments"

    def ready(self) -> None:
        # evalsets may not import experiments: the trends reach the evalset page this way
        from evalsets.panels import panel_register

        from .views.trends import evalset_trends_panel

        panel_register(evalset_trends_panel)
        # nor may evaluators: a version's calibrations reach its page this way
        from evaluators.panels import version_panel_register

        from .views.calibrations import version_calibrations_panel

        version_panel_register(version_calibrations_panel)
        # the kinds of run register with the run engine, which imports none of them
        # (in this order: dispatch breaks ties between kinds by it)
        from .scoring import kind  # noqa: F401, I001
        from .pairwise import work  # noqa: F401
