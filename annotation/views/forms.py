"""The review page's forms: one field per score config of the queue (its value, or unknown),
a note, and a skip's reason. They only translate the posted text into the values the review
services take; the services check the labels against their configs."""

from __future__ import annotations

from django import forms
from django.utils.translation import gettext_lazy as _

from ..models import ScoreConfig, ScoreKind
from ..services.pairwise import LEFT, RIGHT, pairwise_winner
from ..services.reviews import MAX_NOTE, MAX_SKIP_REASON

UNKNOWN = "unknown"  # the choice that labels "unknown" (a null label)


def field_name(config: ScoreConfig) -> str:
    return f"config-{config.public_id}"


def config_choices(config: ScoreConfig) -> list[tuple[str, str]]:
    """A boolean or categorical config's choices, in the order keys 1-9 pick them."""
    if config.kind == ScoreKind.BOOLEAN:
        labels = [("true", _("Yes")), ("false", _("No"))]
    elif config.kind == ScoreKind.PAIRWISE:  # by place: keys 1 left, 2 right, 3 tie
        labels = [(LEFT, _("Left is better")), (RIGHT, _("Right is better")), ("tie", _("Tie"))]
    else:
        labels = [(label, label) for label in config.labels]
    return [*labels, (UNKNOWN, _("Unknown"))]


class ReviewForm(forms.Form):
    """The labels of one item: a field per config (choices, a number, or a text), and a note."""

    item = forms.UUIDField(widget=forms.HiddenInput)
    note = forms.CharField(
        label=_("Note"), required=False, max_length=MAX_NOTE, widget=forms.Textarea({"rows": 2})
    )

    def __init__(self, *args, configs: list[ScoreConfig], swapped: bool = False, **kwargs):
        """`swapped`: the reviewer's slot shows B on the left (a pairwise item)."""
        super().__init__(*args, **kwargs)
        self.configs, self.swapped = configs, swapped
        for config in configs:
            self.fields[field_name(config)] = self._field(config)

    @staticmethod
    def _field(config: ScoreConfig) -> forms.Field:
        if config.kind in (ScoreKind.BOOLEAN, ScoreKind.CATEGORICAL, ScoreKind.PAIRWISE):
            return forms.ChoiceField(choices=config_choices(config), widget=forms.RadioSelect)
        if config.kind == ScoreKind.NUMERIC:  # empty: unknown
            return forms.FloatField(required=False)
        return forms.CharField(required=False, widget=forms.Textarea({"rows": 3}))

    def values(self) -> dict[ScoreConfig, object]:
        """The cleaned form as the services take it: config → value (None: unknown)."""
        return {config: self._value(config) for config in self.configs}

    def _value(self, config: ScoreConfig):
        raw = self.cleaned_data.get(field_name(config))
        if config.kind == ScoreKind.BOOLEAN:
            return {"true": True, "false": False}.get(raw)
        if config.kind == ScoreKind.CATEGORICAL:
            return None if raw == UNKNOWN else raw
        if config.kind == ScoreKind.PAIRWISE:  # the side shown there, never the place
            return pairwise_winner(shown=raw, swapped=self.swapped)
        return raw if raw != "" else None  # an empty number or text: unknown

    def add_service_errors(self, errors: dict[str, list[str]]) -> None:
        """The services' problems (named `values.<config id>`) on the configs' fields."""
        by_id = {f"values.{c.public_id}": field_name(c) for c in self.configs}
        for key, messages in errors.items():
            for message in messages:
                self.add_error(by_id.get(key, "note" if key == "note" else None), message)


class SkipForm(forms.Form):
    """Passing on an item, saying why."""

    item = forms.UUIDField(widget=forms.HiddenInput)
    reason = forms.CharField(label=_("Why skip it?"), max_length=MAX_SKIP_REASON)
