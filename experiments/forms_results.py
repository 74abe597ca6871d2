"""The correction form of the result drawer."""

from __future__ import annotations

from django import forms
from django.utils.translation import gettext_lazy as _

from assay.vocabulary import Verdict


class CorrectionForm(forms.Form):
    verdict = forms.ChoiceField(
        label=_("Human verdict"),
        choices=[*Verdict.choices, ("", _("— undo the correction"))],
        required=False,
    )
    score = forms.FloatField(label=_("Score (optional)"), min_value=0, max_value=1, required=False)
    note = forms.CharField(
        label=_("Why"), required=False, max_length=2000, widget=forms.Textarea(attrs={"rows": 2})
    )
