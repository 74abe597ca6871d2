"""The online rule form: what spans, how many, which evaluator versions; the mapping of each
chosen version's variables is a row of selects beside the form (`mapping_rows`). The service
checks everything again; the form only shapes the request."""

from __future__ import annotations

import json

from django import forms
from django.utils.translation import gettext_lazy as _

from ..mapping import ATTRIBUTE_PREFIX, sources_for, suggest_mapping
from ..models import (
    DEFAULT_ENVIRONMENT,
    DEFAULT_IDLE_SECONDS,
    AlertDirection,
    AlertMetric,
    AlertMode,
    AlertWindow,
    RuleScope,
)

MAX_ATTRIBUTE_CHOICES = 30


class OnlineRuleForm(forms.Form):
    name = forms.CharField(label=_("Name"), max_length=160)
    scope = forms.ChoiceField(
        label=_("Scores"),
        choices=[
            (RuleScope.SPAN, _("each matching span")),
            (RuleScope.TRACE, _("each trace with a matching span, once it is complete")),
            (
                RuleScope.SESSION,
                _("each session with a matching span, once, when it has gone idle"),
            ),
        ],
        initial=RuleScope.SPAN,
        required=False,  # a span rule when left out
    )
    filter = forms.CharField(
        label=_("Span filter"),
        required=False,
        widget=forms.Textarea(attrs={"rows": 4, "spellcheck": "false", "class": "mono"}),
        help_text=_(
            'JSON: {"all": [conditions]} or {"any": [...]}; a condition is {"field": "kind", '
            '"op": "eq", "value": "llm"} or {"attribute": "http.route", "op": "eq", "value": '
            '"/chat"}. Empty: every span.'
        ),
    )
    environment = forms.CharField(
        label=_("Environment"),
        max_length=64,
        required=False,
        initial=DEFAULT_ENVIRONMENT,
        help_text=_("Only spans of this environment; empty for every one."),
    )
    idle_seconds = forms.IntegerField(
        label=_("Idle time (seconds)"),
        required=False,
        min_value=1,
        initial=DEFAULT_IDLE_SECONDS,
        help_text=_("A trace or session is ready once no span of it has arrived for this long."),
    )
    sampling_percent = forms.FloatField(
        label=_("Sampling rate (%)"),
        initial=10,
        min_value=0.01,
        max_value=100,
        help_text=_(
            "The share of traces (of sessions, in a session rule) scored; every rule at one rate "
            "scores the same ones."
        ),
    )
    daily_item_budget = forms.IntegerField(
        label=_("Daily budget (items)"), required=False, min_value=1
    )
    daily_cost_budget = forms.DecimalField(
        label=_("Daily budget (USD)"), required=False, min_value=0, decimal_places=4
    )
    evaluator_versions = forms.MultipleChoiceField(
        label=_("Evaluator versions"), widget=forms.CheckboxSelectMultiple
    )

    def __init__(self, *args, versions, **kwargs):
        super().__init__(*args, **kwargs)
        self.versions = {str(v.public_id): v for v in versions}
        self.fields["evaluator_versions"].choices = [
            (key, f"{v.evaluator.name} {v.version}") for key, v in self.versions.items()
        ]

    def clean_filter(self):
        text = self.cleaned_data["filter"].strip()
        if not text:
            return {}
        try:
            return json.loads(text)
        except json.JSONDecodeError as exc:
            raise forms.ValidationError(_("This is not JSON: %(error)s") % {"error": exc}) from None

    def chosen_scope(self) -> str:
        value = self["scope"].value()
        return value if value in RuleScope.values else RuleScope.SPAN

    def chosen(self) -> list:
        return [
            self.versions[key]
            for key in self["evaluator_versions"].value() or []
            if key in self.versions
        ]

    def rule_fields(self) -> dict:
        data = self.cleaned_data
        return {
            "name": data["name"],
            "scope": data["scope"] or RuleScope.SPAN,
            "filter": data["filter"],
            "environment": data["environment"],
            "idle_seconds": data["idle_seconds"] or DEFAULT_IDLE_SECONDS,
            "sampling_rate": data["sampling_percent"] / 100,
            "daily_item_budget": data["daily_item_budget"],
            "daily_cost_budget": data["daily_cost_budget"],
        }


class BackfillForm(forms.Form):
    """A past window of span start times (UTC)."""

    since = forms.DateTimeField(
        label=_("From"), widget=forms.DateTimeInput(attrs={"type": "datetime-local"})
    )
    until = forms.DateTimeField(
        label=_("To"), widget=forms.DateTimeInput(attrs={"type": "datetime-local"})
    )


class AlertForm(forms.Form):
    """An alert on a rule: the metric of one of its evaluators, and how it decides. The
    service checks the values together (`online.services.alerts`)."""

    metric = forms.ChoiceField(label=_("Metric"), choices=AlertMetric.choices)
    evaluator_version = forms.ChoiceField(
        label=_("Evaluator"), required=False, help_text=_("Volume is the rule's own.")
    )
    direction = forms.ChoiceField(
        label=_("Alert when it"),
        required=False,
        choices=[("", _("goes the bad way (the metric's default)")), *AlertDirection.choices],
        help_text=_("Fail and unknown rates and cost rise, the mean score drops, volume either."),
    )
    mode = forms.ChoiceField(
        label=_("Decided by"),
        choices=[
            (AlertMode.STATISTICAL, _("statistics against the windows before (recommended)")),
            (AlertMode.THRESHOLD, _("a raw threshold")),
        ],
        initial=AlertMode.STATISTICAL,
    )
    threshold = forms.FloatField(
        label=_("Threshold"),
        required=False,
        help_text=_("Threshold mode only; a rate as a share (0.2 for one in five)."),
    )
    window = forms.ChoiceField(label=_("Window"), choices=AlertWindow.choices, initial="hour")
    min_n = forms.IntegerField(label=_("Minimum items a window"), initial=30)
    baseline_windows = forms.IntegerField(label=_("Baseline windows"), initial=24)
    cooldown = forms.IntegerField(label=_("Cooldown (windows)"), initial=3)
    false_alarms_percent = forms.FloatField(
        label=_("Quiet weeks with a false alert, in percent, at most"), initial=5
    )
    enabled = forms.BooleanField(label=_("Enabled"), required=False, initial=True)

    # the service's field → this form's
    ALIASES = {"false_alarms_per_week": "false_alarms_percent"}

    def __init__(self, *args, rule, **kwargs):
        super().__init__(*args, **kwargs)
        self.rule = rule
        self.fields["evaluator_version"].choices = [("", _("the rule's first"))] + [
            (str(e.evaluator_version.public_id), str(e.evaluator_version))
            for e in rule.evaluators.all()
        ]

    @classmethod
    def of(cls, alert, *, rule):
        """The form filled with an alert's settings."""
        initial = {name: getattr(alert, name) for name in alert.SETTINGS}
        initial["false_alarms_percent"] = round(alert.false_alarms_per_week * 100, 4)
        if alert.rule_evaluator is not None:
            initial["evaluator_version"] = str(alert.rule_evaluator.evaluator_version.public_id)
        return cls(initial=initial, rule=rule)

    def alert_fields(self) -> dict:
        """The service's fields from the cleaned form."""
        data = dict(self.cleaned_data)
        chosen = data.pop("evaluator_version")
        data["false_alarms_per_week"] = data.pop("false_alarms_percent") / 100
        evaluators = {str(e.evaluator_version.public_id): e for e in self.rule.evaluators.all()}
        return {**data, "rule_evaluator": evaluators.get(chosen)}


def mapping_rows(*, versions: list, scope: str, data, attribute_keys: list[str]) -> list[dict]:
    """Per chosen version, a select per variable: the scope's fields and the attributes seen
    on recent spans, preselected from what was posted or else from the suggestion."""
    sources = sources_for(scope) + [ATTRIBUTE_PREFIX + k for k in attribute_keys]
    rows = []
    for version in versions:
        variables = version.config.get("input_variables") or []
        suggested = suggest_mapping(variables=variables, scope=scope)
        for variable in variables:
            name = mapping_field(version, variable["name"])
            posted = data is not None and name in data
            chosen = data.get(name) if posted else suggested.get(variable["name"], "")
            rows.append(
                {
                    "version": version,
                    "variable": variable,
                    "field": name,
                    "chosen": chosen or "",
                    "sources": sources if not chosen or chosen in sources else [*sources, chosen],
                }
            )
    return rows


def mapping_field(version, variable: str) -> str:
    return f"map:{version.public_id}:{variable}"


def posted_evaluators(*, versions: list, rows: list[dict]) -> list[dict]:
    """The service's `evaluators`: each chosen version with the sources its selects name."""
    return [
        {
            "evaluator_version": version,
            "mapping": {
                row["variable"]["name"]: row["chosen"]
                for row in rows
                if row["version"] == version and row["chosen"]
            },
        }
        for version in versions
    ]


def prefill(query) -> dict:
    """A rule started from a span (`?kind=llm&name=chat&model=…&environment=…`): its filter
    and environment."""
    conditions = [
        {"field": field, "op": "eq", "value": query[field]}
        for field in ("kind", "name", "model", "service")
        if query.get(field)
    ]
    initial = {}
    if conditions:
        initial["filter"] = json.dumps({"all": conditions}, ensure_ascii=False)
        initial["name"] = " · ".join(c["value"] for c in conditions[:2])
    if "environment" in query:
        initial["environment"] = query["environment"]
    return initial
