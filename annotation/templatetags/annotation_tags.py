"""`{% load annotation_tags %}`: numbers of labels and scores as people write them."""

from django import template

from annotation.services.configs import number_shown

register = template.Library()


@register.filter
def number(value):
    """5.0 as 5; 2.5, a text, yes/no and None as they are."""
    return number_shown(value)
