"""The new-pairwise-run form: one evalset, its finished experiments with target outputs (the
baseline and the others to judge against it), a pairwise judge. Only compatible choices are
offered; the service still checks everything."""

from __future__ import annotations

from django import forms
from django.utils.translation import gettext_lazy as _

from .services import MAX_REPETITIONS


class NewPairwiseRunForm(forms.Form):
    name = forms.CharField(label=_("Name"), max_length=160)
    evalset = forms.ChoiceField(
        label=_("Evalset"),
        help_text=_("Only experiments on one evalset can be paired (any versions of it)."),
        widget=forms.Select(attrs={"data-autosubmit": ""}),
    )
    baseline = forms.ChoiceField(label=_("Baseline (A)"))
    others = forms.MultipleChoiceField(
        label=_("Judge against the baseline (B)"),
        required=False,  # too few is the service's to say, in its words
        widget=forms.CheckboxSelectMultiple,
        help_text=_(
            "With three or more experiments every pair is judged and a leaderboard ranks them."
        ),
    )
    evaluator_version = forms.ChoiceField(label=_("Pairwise judge"))
    repetitions = forms.IntegerField(
        label=_("Repetitions"),
        initial=1,
        min_value=1,
        max_value=MAX_REPETITIONS,
        help_text=_("How many times the judge sees each pair (both orders each time)."),
    )

    def __init__(self, *args, groups, judges, evalset: str, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["evalset"].choices = [
            (str(g["evalset"].public_id), g["evalset"].name) for g in groups
        ]
        chosen = next((g for g in groups if str(g["evalset"].public_id) == evalset), None)
        experiments = [
            (str(e.public_id), _label(e)) for e in (chosen or {"experiments": []})["experiments"]
        ]
        self.fields["baseline"].choices = experiments
        self.fields["others"].choices = experiments
        self.fields["evaluator_version"].choices = [(str(v.public_id), str(v)) for v in judges]

    def experiment_ids(self) -> list[str]:
        """The run's experiments in order: the baseline, then the others as listed."""
        baseline = self.cleaned_data["baseline"]
        return [baseline, *(e for e in self.cleaned_data["others"])]


def _label(experiment) -> str:
    version = experiment.evalset_version.version
    return f"{experiment.name} · {version} · {experiment.get_status_display()}"


def field_for(path: str) -> str | None:
    """The form field a service error is about (experiments[0] is the baseline)."""
    if path == "experiments[0]":
        return "baseline"
    if path.startswith("experiments"):
        return "others"
    return path
