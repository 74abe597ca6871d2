"""`{% trace_panels trace_id rows %}` and `{% session_panels session_id traces %}`: what other
apps registered for a trace's page and a session's (`traces.views.panels`)."""

from django import template
from django.utils.html import format_html_join

from traces.views.panels import session_panels_render, trace_panels_render

register = template.Library()


@register.simple_tag(takes_context=True)
def trace_panels(context, trace_id: str, rows: list[dict]):
    spans = [row["span"] for row in rows]
    panels = trace_panels_render(request=context["request"], trace_id=trace_id, spans=spans)
    return format_html_join("", "{}", ((html,) for html in panels))


@register.simple_tag(takes_context=True)
def session_panels(context, session_id: str, traces: list):
    panels = session_panels_render(request=context["request"], session_id=session_id, traces=traces)
    return format_html_join("", "{}", ((html,) for html in panels))
