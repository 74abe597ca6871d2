from django.apps import AppConfig


class OnlineConfig(AppConfig):
    name = "online"
    verbose_name = "Online evaluation"

    def ready(self) -> None:
        from traces.reading.scores import outcome_reader_register, score_source_register
        from traces.views.panels import session_panel_register, trace_panel_register

        from . import kind  # noqa: F401  (registers the online kind of run)
        from .panels import session_scores_panel, trace_scores_panel
        from .selectors import scored_trace_ids, span_outcomes

        trace_panel_register(trace_scores_panel)
        session_panel_register(session_scores_panel)
        score_source_register(scored_trace_ids)
        outcome_reader_register(span_outcomes)
