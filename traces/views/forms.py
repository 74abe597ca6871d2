"""The traces and sessions pages' filter forms (GET): their cleaned values are the selectors'
filters; the checks shared with the API are `traces.reading.filters`."""

from django import forms
from django.core.exceptions import ValidationError
from django.utils.translation import gettext_lazy as _

from ..models import SpanKind
from ..reading.filters import filters_checked
from ..selectors import TRACE_SORTS

RANGE_CHOICES = [
    ("1h", _("Last hour")),
    ("24h", _("Last 24 hours")),
    ("7d", _("Last 7 days")),
    ("30d", _("Last 30 days")),
    ("", _("Custom range")),
]
DEFAULT_RANGE = "24h"


class _FilterForm(forms.Form):
    MAIN: tuple[str, ...] = ()  # the fields in the toolbar (the others under "More filters")
    range = forms.ChoiceField(required=False, choices=RANGE_CHOICES, label=_("Time range"))
    since = forms.DateTimeField(
        required=False,
        label=_("From"),
        widget=forms.DateTimeInput(attrs={"type": "datetime-local"}),
    )
    until = forms.DateTimeField(
        required=False,
        label=_("To"),
        widget=forms.DateTimeInput(attrs={"type": "datetime-local"}),
    )

    def __init__(self, data=None, *args, **kwargs) -> None:
        if data is not None and "range" not in data and not data.get("since"):
            data = data.copy()  # no range and no start: the default range
            data["range"] = DEFAULT_RANGE
        super().__init__(data if data is not None else {"range": DEFAULT_RANGE}, *args, **kwargs)
        for name in self.MAIN:  # their labels are read by screen readers only
            field = self.fields[name]
            if isinstance(field, forms.CharField | forms.FloatField | forms.IntegerField):
                field.widget.attrs["placeholder"] = field.label

    def clean(self) -> dict:
        cleaned = super().clean()
        if cleaned.get("since") and cleaned.get("range"):
            cleaned["range"] = ""  # a start given: the custom range
        try:
            self.filters_cache = filters_checked(
                _filled(cleaned), ValidationError, lambda name: self.fields[name].label
            )
        except ValidationError as exc:
            raise ValidationError(exc.message_dict) from exc
        return cleaned

    def main_fields(self) -> list:
        return [self[name] for name in self.MAIN]

    def more_fields(self) -> list:
        return [f for f in self.visible_fields() if f.name not in self.MAIN]

    def more_filled(self) -> bool:
        return any(self.data.get(f.name) for f in self.more_fields() if f.name != "range")

    def filters(self) -> dict:
        """The filled fields as `traces.selectors` filters (an invalid form filters nothing)."""
        return dict(self.filters_cache) if self.is_valid() else {}


class TraceFilterForm(_FilterForm):
    service = forms.CharField(required=False, max_length=128, label=_("Service"))
    name = forms.CharField(required=False, max_length=256, label=_("Root span name"))
    kind = forms.ChoiceField(
        required=False, choices=[("", _("Any kind")), *SpanKind.choices], label=_("Kind")
    )
    model = forms.CharField(required=False, max_length=200, label=_("Model"))
    has_error = forms.ChoiceField(
        required=False,
        choices=[
            ("", _("With or without errors")),
            ("yes", _("With errors")),
            ("no", _("No errors")),
        ],
        label=_("Errors"),
    )
    environment = forms.CharField(required=False, max_length=64, label=_("Environment"))
    session = forms.CharField(required=False, max_length=256, label=_("Session"))
    user = forms.CharField(required=False, max_length=256, label=_("User"))
    min_duration_ms = forms.FloatField(required=False, min_value=0, label=_("Min duration (ms)"))
    max_duration_ms = forms.FloatField(required=False, min_value=0, label=_("Max duration (ms)"))
    min_tokens = forms.IntegerField(required=False, min_value=0, label=_("Min tokens"))
    max_tokens = forms.IntegerField(required=False, min_value=0, label=_("Max tokens"))
    min_cost = forms.FloatField(required=False, min_value=0, label=_("Min cost (USD)"))
    max_cost = forms.FloatField(required=False, min_value=0, label=_("Max cost (USD)"))
    attribute = forms.CharField(required=False, max_length=600, label=_("Attribute key=value"))
    score = forms.ChoiceField(
        required=False,
        choices=[
            ("", _("Scored or not")),
            ("scored", _("Scored online")),
            ("pass", _("Judged pass")),
            ("fail", _("Judged fail")),
            ("unknown", _("Judged unknown")),
        ],
        label=_("Online score"),
    )
    sort = forms.ChoiceField(
        required=False,
        choices=[(k, k) for k in TRACE_SORTS] + [(f"-{k}", k) for k in TRACE_SORTS],
        widget=forms.HiddenInput,
    )

    MAIN = ("range", "service", "kind", "model", "has_error")

    def clean_attribute(self) -> tuple[str, str] | str:
        value = self.cleaned_data["attribute"]
        if not value:
            return ""
        key, equals, wanted = value.partition("=")
        if not equals or not key.strip():
            raise ValidationError(_("Give key=value."))
        return key.strip(), wanted


class SessionFilterForm(_FilterForm):
    MAIN = ("range", "user", "service")
    user = forms.CharField(required=False, max_length=256, label=_("User"))
    service = forms.CharField(required=False, max_length=128, label=_("Service"))


def _filled(cleaned: dict) -> dict:
    values = {k: v for k, v in cleaned.items() if v not in ("", None)}
    if "has_error" in values:
        values["has_error"] = values["has_error"] == "yes"
    values.pop("sort", None)
    return values
