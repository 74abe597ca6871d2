"""The new-pairwise-run form: one evalset, its finished experiments with target outputs (the
baseline and the others to judge against it), a pairwise judge, and where the judge's other
variables (the request, a reference) come from. Only compatible choices are offered; the
service still checks everything."""

from __future__ import annotations

from django import forms
from django.utils.translation import gettext_lazy as _

from assay.vocabulary import column_label
from evaluators.pairing import SLOTS

from ..mapping import suggest_mapping
from .services import MAX_REPETITIONS


class NewPairwiseRunForm(forms.Form):
    name = forms.CharField(label=_("Name"), max_length=160)
    evalset = forms.ChoiceField(
        label=_("Evalset"),
        help_text=_("Only experiments on one evalset can be paired (any versions of it)."),
        widget=forms.Select(attrs={"data-autosubmit": ""}),
    )
    baseline = forms.ChoiceField(
        label=_("Baseline (A)"), widget=forms.Select(attrs={"data-pairwise-baseline": ""})
    )
    others = forms.MultipleChoiceField(
        label=_("Judge against the baseline (B)"),
        required=False,  # too few is the service's to say, in its words
        widget=forms.CheckboxSelectMultiple,
        help_text=_(
            "With three or more experiments every pair is judged and a leaderboard ranks them."
        ),
    )
    evaluator_version = forms.ChoiceField(
        label=_("Pairwise judge"), widget=forms.Select(attrs={"data-pairwise-judge": ""})
    )
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
        self.experiments = chosen_group(groups, evalset)
        experiments = [(str(e.public_id), _label(e)) for e in self.experiments]
        self.fields["baseline"].choices = experiments
        self.fields["others"].choices = experiments
        self.fields["evaluator_version"].choices = [(str(v.public_id), str(v)) for v in judges]

    def clean(self):
        data = super().clean()
        if data.get("baseline") and data.get("baseline") in data.get("others", []):
            self.add_error(
                "others", _("The baseline (A) is not judged against itself: untick it in B.")
            )
        return data

    def baseline_value(self) -> str:
        """The baseline as posted or prefilled (the first experiment when neither says)."""
        value = self["baseline"].value()
        if value:
            return str(value)
        return str(self.experiments[0].public_id) if self.experiments else ""

    def experiment_ids(self) -> list[str]:
        """The run's experiments in order: the baseline, then the others as listed."""
        baseline = self.cleaned_data["baseline"]
        return [baseline, *(e for e in self.cleaned_data["others"])]


def chosen_group(groups: list[dict], evalset: str) -> list:
    """The experiments of the chosen evalset's group ([] when it has none)."""
    chosen = next((g for g in groups if str(g["evalset"].public_id) == evalset), None)
    return chosen["experiments"] if chosen else []


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


# ----------------------------------------------------------------------------- the mapping


def mapping_field(variable: str) -> str:
    return f"map__{variable}"


def mapping_columns(experiments: list) -> list[dict]:
    """The columns a judge's variables can read: those of the experiments' evalset versions,
    each name once, the newest version's first."""
    columns: dict[str, dict] = {}
    for experiment in experiments:
        for column in experiment.evalset_version.columns:
            columns.setdefault(column["name"], column)
    return list(columns.values())


def mapping_rows(*, judges: list, columns: list[dict], data, remembered: dict) -> list[dict]:
    """One dropdown per variable of the judges other than the two outputs (a variable several
    judges share is one row, shown for each of them): the posted column, or the suggestion
    (what the experiments' own mappings said, else a column of that name or a synonym)."""
    options = [("", _("— not mapped —"))] + [
        (f"column:{c['name']}", column_label(c)) for c in columns
    ]
    valid = {value for value, _label in options}
    rows: dict[str, dict] = {}
    for judge in judges:
        for variable in _others(judge):
            row = rows.get(variable["name"]) or _row(variable, columns, data, remembered, valid)
            row["options"], row["judges"] = options, [*row.get("judges", []), str(judge.public_id)]
            rows[variable["name"]] = row
    return list(rows.values())


def _others(judge) -> list[dict]:
    variables = judge.config.get("input_variables") or []
    return [v for v in variables if v["name"] not in SLOTS]


def _row(variable: dict, columns, data, remembered: dict, valid: set) -> dict:
    name = mapping_field(variable["name"])
    posted = data.get(name) if data is not None else None
    if posted is not None and posted in valid:
        selected = posted
    else:
        suggested = suggest_mapping(variables=[variable], columns=columns, remembered=remembered)
        selected = suggested.get(variable["name"], "")
    return {**variable, "field": name, "selected": selected}


def posted_mapping(*, judge, rows: list[dict]) -> dict:
    """The chosen judge's variables → their chosen columns (unmapped ones left out, for the
    service to name when they are required)."""
    wanted = {v["name"] for v in _others(judge)} if judge is not None else set()
    return {r["name"]: r["selected"] for r in rows if r["name"] in wanted and r["selected"]}
