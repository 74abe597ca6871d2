"""The HTTP target's fields on the new-experiment page: the same config the API takes, as form
fields (headers and the body template as JSON text)."""

from __future__ import annotations

import json

from django import forms
from django.utils.translation import gettext as _t
from django.utils.translation import gettext_lazy as _

METHODS = [(m, m) for m in ("POST", "GET", "PUT", "PATCH")]
JSON_FIELDS = {"http_headers": dict, "http_body": None}
EXTRACT_FIELDS = ("output", "trajectory", "tokens_in", "tokens_out", "cost")


def http_fields() -> dict:
    """Form fields, each named `http_<config key>`."""
    fields = {
        "http_url": forms.CharField(
            label=_("Endpoint URL"),
            required=False,
            max_length=2000,
            help_text=_("Placeholders such as {{item_id}} may be used in the path and query."),
        ),
        "http_method": forms.ChoiceField(label=_("Method"), choices=METHODS, required=False),
        "http_headers": _json_field(
            _("Headers (JSON object)"),
            _('e.g. {"Authorization": "Bearer {{secrets.APP_TOKEN}}"} — secrets from Settings.'),
        ),
        "http_body": _json_field(
            _("Body template (JSON)"),
            _('e.g. {"question": "{{input}}", "n": "{{n | number}}"}; empty for no body.'),
        ),
        "http_output": forms.CharField(
            label=_("Output (JMESPath)"),
            required=False,
            max_length=500,
            help_text=_(
                "Where actual_output is in the answer, e.g. answer; empty: the whole body."
            ),
        ),
    }
    for key, label in (
        ("trajectory", _("Trajectory (JMESPath, optional)")),
        ("tokens_in", _("Input tokens (JMESPath, optional)")),
        ("tokens_out", _("Output tokens (JMESPath, optional)")),
        ("cost", _("Cost in USD (JMESPath, optional)")),
    ):
        fields[f"http_{key}"] = forms.CharField(label=label, required=False, max_length=500)
    fields["http_timeout_s"] = forms.FloatField(
        label=_("Timeout (s)"), required=False, initial=30, min_value=1, max_value=600
    )
    fields["http_max_retries"] = forms.IntegerField(
        label=_("Retries"), required=False, initial=3, min_value=0, max_value=10
    )
    fields["http_rpm_limit"] = forms.IntegerField(
        label=_("Requests per minute (optional)"), required=False, min_value=1
    )
    return fields


def _json_field(label, help_text) -> forms.CharField:
    return forms.CharField(
        label=label,
        required=False,
        help_text=help_text,
        widget=forms.Textarea(attrs={"rows": 3, "class": "mono", "spellcheck": "false"}),
    )


def http_form_problems(data: dict) -> dict[str, str]:
    problems = {}
    if not (data.get("http_url") or "").strip():
        problems["http_url"] = _t("Give the URL of your application's endpoint.")
    for field, kind in JSON_FIELDS.items():
        text = (data.get(field) or "").strip()
        if not text:
            continue
        try:
            value = json.loads(text)
        except ValueError as exc:
            problems[field] = _t("Not valid JSON: %(error)s") % {"error": exc}
            continue
        if kind is dict and not isinstance(value, dict):
            problems[field] = _t("Give a JSON object of header names and values.")
    return problems


def http_config(data: dict) -> dict:
    """The API's config from the form's cleaned data (after http_form_problems passed)."""
    config = {
        "url": data["http_url"].strip(),
        "method": data.get("http_method") or "POST",
        "headers": json.loads(data.get("http_headers") or "{}"),
        "body": json.loads(data["http_body"]) if (data.get("http_body") or "").strip() else None,
        "output": (data.get("http_output") or "").strip(),
    }
    for key in EXTRACT_FIELDS[1:]:
        if (data.get(f"http_{key}") or "").strip():
            config[key] = data[f"http_{key}"].strip()
    for key in ("timeout_s", "max_retries", "rpm_limit"):
        if data.get(f"http_{key}") is not None:
            config[key] = data[f"http_{key}"]
    return config
