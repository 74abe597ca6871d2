"""`{% load span_rendering %}` … `{% with v=span|span_view %}`: a span as the trace page draws
it (`traces.views.rendering`)."""

from django import template

from traces.views.rendering import span_view as view_of

register = template.Library()


@register.filter
def span_view(span):
    return view_of(span)
