"""`{% load span_rendering %}` … `{% with v=span|span_view %}`: a span as the trace page draws
it (`traces.rendering`)."""

from django import template

from traces.rendering import span_view as view_of

register = template.Library()


@register.filter
def span_view(span):
    return view_of(span)
