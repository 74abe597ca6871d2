"""The score config form: one form for every kind, the fields a kind does not use ignored.
It only translates posted text (labels one a line, "true"/"false") into the fields the
services take; `services/configs.py` checks everything and names each problem's field."""

from __future__ import annotations

from django import forms
from django.utils.translation import gettext_lazy as _

from ..models import ScoreConfig, ScoreKind
from ..services.configs import MAX_LABELS, MAX_RUBRIC_CHARS, number_shown

# the fields each kind uses besides name, kind and rubric
KIND_FIELDS = {
    ScoreKind.BOOLEAN: ("pass_labels", "fail_labels"),
    ScoreKind.CATEGORICAL: ("labels", "ordered", "pass_labels", "fail_labels"),
    ScoreKind.NUMERIC: ("minimum", "maximum", "step"),
    ScoreKind.TEXT: (),
    ScoreKind.PAIRWISE: (),
}
LINES_CHARS = (MAX_LABELS + 1) * 101  # 50 labels of 100 characters, and one too many
BOOLEAN_TEXT = {"true": True, "false": False}


def lines(text: str) -> list[str]:
    """One label a line, blank lines left out."""
    return [line.strip() for line in (text or "").splitlines() if line.strip()]


def shown_lines(values) -> str:
    """Labels as the form writes them: one a line, true and false in lower case."""
    return "\n".join(str(v).lower() if isinstance(v, bool) else str(v) for v in values or [])


class ScoreConfigForm(forms.Form):
    name = forms.CharField(label=_("Name"), max_length=160, required=False)
    kind = forms.ChoiceField(label=_("Kind"), choices=ScoreKind.choices, initial=ScoreKind.BOOLEAN)
    labels = forms.CharField(
        label=_("Labels"),
        required=False,
        max_length=LINES_CHARS,
        widget=forms.Textarea({"rows": 5}),
        help_text=_("One a line, 2 to 50, in their order."),
    )
    ordered = forms.BooleanField(
        label=_("The labels' order means something (worst to best)"), required=False
    )
    minimum = forms.FloatField(label=_("Minimum"), required=False)
    maximum = forms.FloatField(label=_("Maximum"), required=False)
    step = forms.FloatField(
        label=_("Step"), required=False, help_text=_("Empty: any number in the range.")
    )
    pass_labels = forms.CharField(
        label=_("Labels that mean pass"),
        required=False,
        max_length=LINES_CHARS,
        widget=forms.Textarea({"rows": 2}),
    )
    fail_labels = forms.CharField(
        label=_("Labels that mean fail"),
        required=False,
        max_length=LINES_CHARS,
        widget=forms.Textarea({"rows": 2}),
    )
    rubric = forms.CharField(
        label=_("Rubric"),
        required=False,
        max_length=MAX_RUBRIC_CHARS,
        widget=forms.Textarea({"rows": 6}),
        help_text=_("Shown to reviewers beside the item."),
    )

    @classmethod
    def initial_of(cls, config: ScoreConfig) -> dict:
        """A config's settings as the form shows them."""
        initial = {name: getattr(config, name) for name in ScoreConfig.SETTINGS}
        for name in ("labels", "pass_labels", "fail_labels"):
            initial[name] = shown_lines(initial[name])
        for name in ("minimum", "maximum", "step"):  # 5, not 5.0
            initial[name] = number_shown(initial[name])
        return initial

    def fields_for_services(self) -> dict:
        """The settings the posted kind uses, as `score_config_create/update` take them."""
        data = self.cleaned_data
        kind = data["kind"]
        fields = {"name": data["name"], "kind": kind, "rubric": data["rubric"]}
        for name in KIND_FIELDS[kind]:
            fields[name] = data[name]
        if "labels" in fields:
            fields["labels"] = lines(fields["labels"])
        for name in {"pass_labels", "fail_labels"} & set(fields):
            chosen = lines(fields[name])
            if kind == ScoreKind.BOOLEAN:  # "true"/"false"; any other text is named unknown
                chosen = [BOOLEAN_TEXT.get(x.lower(), x) for x in chosen]
            fields[name] = chosen
        return fields
