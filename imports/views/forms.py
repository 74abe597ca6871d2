"""The upload form of an importer kind: one file field per FileSpec, and JSON options."""

from __future__ import annotations

import json

from django import forms
from django.utils.translation import gettext_lazy as _


class ImportForm(forms.Form):
    options = forms.CharField(
        label=_("Options (JSON)"),
        required=False,
        widget=forms.Textarea(attrs={"rows": 2, "placeholder": "{}"}),
        help_text=_("Optional settings for this importer, as a JSON object."),
    )

    def __init__(self, *args, importer, **kwargs):
        super().__init__(*args, **kwargs)
        self.importer = importer
        self.prefix = importer.name
        files = {
            spec.name: forms.FileField(label=spec.name, required=spec.required, help_text=spec.help)
            for spec in importer.files
        }
        self.fields = {**files, "options": self.fields["options"]}

    def clean_options(self) -> dict:
        text = (self.cleaned_data.get("options") or "").strip() or "{}"
        try:
            options = json.loads(text)
        except ValueError:
            raise forms.ValidationError(_("Not JSON.")) from None
        if not isinstance(options, dict):
            raise forms.ValidationError(_("Give a JSON object."))
        return options

    def uploads(self) -> dict:
        return {spec.name: self.cleaned_data.get(spec.name) for spec in self.importer.files}
