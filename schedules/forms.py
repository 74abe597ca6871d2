"""The template and schedule forms: they only shape the request; the services check it."""

from __future__ import annotations

from django import forms
from django.utils.translation import gettext_lazy as _

from .models import DEFAULT_NAME_PATTERN

PATTERN_HELP = _("A run's name: {template}, {date} and {time} are filled in at launch.")


class TemplateForm(forms.Form):
    """A template made on its own page: an evalset version, evaluator versions (mapped by
    name), the numbers; a target and mappings come with "Save as template" or the API."""

    name = forms.CharField(label=_("Name"), max_length=160)
    evalset_version = forms.ChoiceField(label=_("Evalset version"))
    evalset_latest = forms.BooleanField(
        label=_("Use the latest committed version at each launch"), required=False
    )
    evaluator_versions = forms.MultipleChoiceField(label=_("Evaluator versions"))
    evaluators_latest = forms.BooleanField(
        label=_("Use each evaluator's latest version at each launch"), required=False
    )
    repetitions = forms.IntegerField(label=_("Repetitions"), initial=1, min_value=1)
    concurrency = forms.IntegerField(label=_("Concurrency"), initial=8, min_value=1)
    name_pattern = forms.CharField(
        label=_("Run name"), max_length=160, initial=DEFAULT_NAME_PATTERN, help_text=PATTERN_HELP
    )

    def __init__(self, *args, evalset_versions, evaluator_versions, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["evalset_version"].choices = [
            (str(v.public_id), f"{v.evalset.name} {v.version}") for v in evalset_versions
        ]
        self.fields["evaluator_versions"].choices = [
            (str(v.public_id), f"{v.evaluator.name} {v.version}") for v in evaluator_versions
        ]


class TemplateSettingsForm(forms.Form):
    """What a template's page changes in place: its run name and its baseline."""

    name_pattern = forms.CharField(label=_("Run name"), max_length=160, help_text=PATTERN_HELP)
    baseline = forms.ChoiceField(
        label=_("Baseline"),
        required=False,
        help_text=_("Runs are compared with it; none: with the template's previous run."),
    )

    def __init__(self, *args, baselines, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["baseline"].choices = [("", _("the previous completed run"))] + [
            (str(e.public_id), e.name) for e in baselines
        ]


class FromExperimentForm(forms.Form):
    name = forms.CharField(label=_("Template name"), max_length=160)


class ScheduleForm(forms.Form):
    cron = forms.CharField(
        label=_("Cron"),
        max_length=120,
        initial="0 2 * * *",
        help_text=_("Five fields: minute hour day month weekday. 0 2 * * * is 02:00 every day."),
    )
    timezone = forms.CharField(
        label=_("Time zone"), max_length=64, initial="UTC", help_text=_("IANA, e.g. Asia/Shanghai.")
    )
