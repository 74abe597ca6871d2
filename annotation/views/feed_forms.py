"""The queue page's forms: a feed (an online rule or an experiment to follow, the verdicts it
takes and its sampling rate in percent) and who reviews the queue. They only translate the
posted text into what `services.feeds` and `services.assignment` take."""

from __future__ import annotations

from django import forms
from django.utils.translation import gettext_lazy as _

from assay.vocabulary import Verdict

from ..models import FeedKind, QueueAccess

EXPERIMENTS_OFFERED = 50  # the newest experiments the form offers (the API takes any)


class FeedForm(forms.Form):
    """Follow a rule or an experiment: `source` is "online_rule:<id>" or "experiment:<id>"."""

    source = forms.ChoiceField(label=_("Follow"))
    verdicts = forms.MultipleChoiceField(
        label=_("Verdicts taken"),
        choices=Verdict.choices,
        widget=forms.CheckboxSelectMultiple,
        required=False,
        help_text=_("None ticked: every verdict."),
    )
    percent = forms.FloatField(
        label=_("Sampling rate (%)"),
        min_value=0.1,
        max_value=100,
        initial=100,
        help_text=_("The same items at every sweep: a hash of each item decides."),
    )

    def __init__(self, *args, rules=(), experiments=(), **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["source"].choices = [
            (_("Online rules"), [(f"{FeedKind.ONLINE_RULE}:{r.public_id}", r.name) for r in rules]),
            (
                _("Experiments"),
                [(f"{FeedKind.EXPERIMENT}:{e.public_id}", e.name) for e in experiments],
            ),
        ]

    def source_parts(self) -> tuple[str, str]:
        kind, _colon, ref = self.cleaned_data["source"].partition(":")
        return kind, ref


class AssignmentForm(forms.Form):
    open_to = forms.ChoiceField(label=_("Who reviews"), choices=QueueAccess.choices)
    assignees = forms.MultipleChoiceField(
        label=_("Assigned members"),
        widget=forms.CheckboxSelectMultiple,
        required=False,
        help_text=_("With 'the assigned members': only they reserve items."),
    )

    def __init__(self, *args, members=(), **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["assignees"].choices = [(name, name) for name in members]
