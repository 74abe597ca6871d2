"""The traces page's filter form (GET): its cleaned values are the selectors' filters."""

from django import forms
from django.utils.translation import gettext_lazy as _

from .models import SpanKind


class TraceFilterForm(forms.Form):
    service = forms.CharField(required=False, max_length=128, label=_("Service"))
    kind = forms.ChoiceField(
        required=False, choices=[("", _("Any kind")), *SpanKind.choices], label=_("Kind")
    )
    model = forms.CharField(required=False, max_length=200, label=_("Model"))
    session = forms.CharField(required=False, max_length=256, label=_("Session"))
    has_error = forms.ChoiceField(
        required=False,
        choices=[
            ("", _("With or without errors")),
            ("yes", _("With errors")),
            ("no", _("No errors")),
        ],
        label=_("Errors"),
    )

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        for field in self.fields.values():  # the labels are read by screen readers only
            if isinstance(field, forms.CharField):
                field.widget.attrs["placeholder"] = field.label

    def filters(self) -> dict:
        """The filled fields as `traces.selectors` filters (an invalid form filters nothing)."""
        if not self.is_valid():
            return {}
        values = {k: v for k, v in self.cleaned_data.items() if v not in ("", None)}
        if "has_error" in values:
            values["has_error"] = values["has_error"] == "yes"
        return values
