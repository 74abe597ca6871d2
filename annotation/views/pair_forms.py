"""The forms of the new-queue page (a kind: single outputs or pairwise) and the add-items page
(a source: an evalset version's rows; for pairwise queues a pairwise run's pairs or two
experiments' outputs). They only translate the posted text into what the services and the
sources' selectors take; those check everything (names, ranges, ids of the workspace)."""

from __future__ import annotations

from django import forms
from django.utils.translation import gettext_lazy as _

from ..models import DEFAULT_RESERVATION_MINUTES, QueueKind

ROWS_SEPARATORS = ",; \t\r\n"
# what each source needs chosen, and where a source's problem (by the API's key) is shown
NEEDED = {
    "evalset_version": ("evalset_version",),
    "pairwise_run": ("pairwise_run",),
    "experiments": ("experiment_a", "experiment_b"),
}
PROBLEM_FIELDS = {
    "rows": "rows",
    "all": "rows",
    "pairs": "pairwise_run",
    "experiments[0]": "experiment_a",
    "experiments[1]": "experiment_b",
    "evalset_version": "evalset_version",
    "pairwise_run": "pairwise_run",
}


def problems_shown(form: forms.Form, errors: dict, fields: dict | None = None) -> None:
    """A service's or selector's problems (by the API's keys: `rows[2]`) on the form's fields
    (anything else above the form)."""
    for key, messages in errors.items():
        name = (fields or {}).get(key) or (fields or {}).get(key.split("[")[0]) or key.split("[")[0]
        for message in messages:
            form.add_error(name if name in form.fields else None, message)


class QueueCreateForm(forms.Form):
    """A queue's name, kind, score configs (the workspace's, by id) and settings."""

    name = forms.CharField(label=_("Name"), max_length=160)
    kind = forms.ChoiceField(
        label=_("Kind"),
        choices=QueueKind.choices,
        initial=QueueKind.SINGLE,
        widget=forms.RadioSelect,
    )
    score_configs = forms.MultipleChoiceField(
        label=_("Score configs"), widget=forms.CheckboxSelectMultiple
    )
    reviewers_per_item = forms.IntegerField(label=_("Reviewers per item"), initial=1)
    reservation_minutes = forms.IntegerField(
        label=_("Minutes an item is held"), initial=DEFAULT_RESERVATION_MINUTES
    )
    blind = forms.BooleanField(label=_("Blind"), required=False)

    def __init__(self, *args, configs: list, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["score_configs"].choices = [
            (str(c.public_id), f"{c.name} · {c.get_kind_display()}") for c in configs
        ]

    def settings(self) -> dict:
        """The queue's fields as the services take them (without its configs)."""
        data = self.cleaned_data
        names = ("name", "kind", "reviewers_per_item", "reservation_minutes", "blind")
        return {name: data[name] for name in names}


class ItemsAddForm(forms.Form):
    """One source and what of it: every row or pair, or the row ids pasted."""

    source = forms.ChoiceField(label=_("Source"), widget=forms.RadioSelect)
    evalset_version = forms.ChoiceField(label=_("Evalset version"), required=False)
    pairwise_run = forms.ChoiceField(label=_("Pairwise run"), required=False)
    experiment_a = forms.ChoiceField(label=_("Experiment A"), required=False)
    experiment_b = forms.ChoiceField(label=_("Experiment B"), required=False)
    rows = forms.CharField(
        label=_("Row ids"),
        required=False,
        widget=forms.Textarea({"rows": 3}),
        help_text=_("One per line; empty: every row (at most 1,000)."),
    )

    def __init__(self, *args, sources: list, choices: dict, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["source"].choices = sources
        self.fields["source"].initial = sources[0][0]
        for name, options in choices.items():
            self.fields[name].choices = [("", "—"), *options]

    def clean(self):
        data = super().clean()
        for name in NEEDED.get(data.get("source"), ()):
            if not data.get(name):
                self.add_error(name, _("Choose one."))
        return data

    def body(self) -> dict:
        """The body the sources' selectors take (as the API's items body)."""
        data = self.cleaned_data
        rows = [r for r in _split(data["rows"]) if r]
        every = {"rows": rows} if rows else {"all": True}
        if data["source"] == "evalset_version":
            return {"evalset_version": data["evalset_version"] or None, **every}
        if data["source"] == "pairwise_run":
            return {"pairwise_run": data["pairwise_run"] or None, "all": True}
        pair = [data["experiment_a"] or None, data["experiment_b"] or None]
        return {"experiments": pair, **every}


def _split(text: str) -> list[str]:
    for separator in ROWS_SEPARATORS[1:]:
        text = text.replace(separator, ROWS_SEPARATORS[0])
    return [part.strip() for part in text.split(ROWS_SEPARATORS[0])]
