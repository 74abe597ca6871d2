"""The webhook form of Settings → Webhooks."""

from __future__ import annotations

from django import forms
from django.utils.translation import gettext_lazy as _

from assay.vocabulary import SUBSCRIBABLE_EVENTS, EventType

from .models import WebhookFormat


class WebhookForm(forms.Form):
    url = forms.CharField(
        label=_("URL"),
        max_length=500,
        help_text=_("Where events are sent (POST). Slack and Feishu give one per bot."),
        widget=forms.URLInput(attrs={"placeholder": "https://"}),
    )
    format = forms.ChoiceField(
        label=_("Format"),
        choices=WebhookFormat.choices,
        help_text=_("Generic JSON for your own receiver; Slack or Feishu for a chat bot."),
    )
    events = forms.MultipleChoiceField(
        label=_("Events"),
        choices=[(value, EventType(value).label) for value in SUBSCRIBABLE_EVENTS],
        widget=forms.CheckboxSelectMultiple,
    )
    description = forms.CharField(label=_("Description"), max_length=200, required=False)


class WebhookEditForm(WebhookForm):
    enabled = forms.BooleanField(label=_("Enabled"), required=False)
