"""`{% trace_panels trace_id rows %}`: what other apps registered for a trace's page
(`traces.panels`), below its span tree."""

from django import template
from django.utils.html import format_html_join

from traces.panels import trace_panels_render

register = template.Library()


@register.simple_tag(takes_context=True)
def trace_panels(context, trace_id: str, rows: list[dict]):
    spans = [row["span"] for row in rows]
    panels = trace_panels_render(request=context["request"], trace_id=trace_id, spans=spans)
    return format_html_join("", "{}", ((html,) for html in panels))
