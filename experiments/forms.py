"""Forms for the experiment pages.

The new-experiment form has fixed fields (name, evalset version, target, evaluators) and, per
chosen evaluator version, mapping and policy fields whose names depend on the choice. Those are
read from the raw POST by `binding_plan`, so the same code serves the full-page submit and the
htmx refresh of the mapping section.
"""

from __future__ import annotations

from django import forms
from django.core.exceptions import ValidationError
from django.utils.translation import gettext, ngettext
from django.utils.translation import gettext_lazy as _

from assay.vocabulary import ContentType, Verdict, column_label
from assay.web.errors import add_errors
from evaluators.policies import describe_policy, policy_dict

from .mapping import mapping_problems, output_type, suggest_mapping, target_source
from .models import TurnAggregate
from .targets import TARGETS, target_get

POLICY_KINDS = [("threshold", _("Threshold")), ("zero_tolerance", _("Zero tolerance"))]


def evalset_version_label(version) -> str:
    """An evalset version as the form offers it (QA @ 1.0.0 · 40 rows), in the page's
    language."""
    n = version.item_count
    return ngettext(
        "%(name)s @ %(version)s · %(n)s row", "%(name)s @ %(version)s · %(n)s rows", n
    ) % {"name": version.evalset.name, "version": version.version, "n": n}


def evaluator_version_label(version) -> str:
    """An evaluator version as the form offers it (Contains @ 1.0.0 (Code)), its kind named
    in the page's language."""
    return gettext("%(name)s @ %(version)s (%(kind)s)") % {
        "name": version.evaluator.name,
        "version": version.version,
        "kind": version.kind_label,
    }


class NewExperimentForm(forms.Form):
    name = forms.CharField(label=_("Name"), max_length=160)
    description = forms.CharField(
        label=_("Description"), required=False, widget=forms.Textarea(attrs={"rows": 2})
    )
    evalset_version = forms.ChoiceField(label=_("Evalset version"))
    target_kind = forms.ChoiceField(
        label=_("Target"), choices=(), widget=forms.RadioSelect, initial="none"
    )
    evaluator_versions = forms.MultipleChoiceField(
        label=_("Evaluator versions"), widget=forms.CheckboxSelectMultiple
    )
    concurrency = forms.IntegerField(label=_("Concurrency"), initial=8, min_value=1, max_value=64)
    chunk_size = forms.IntegerField(
        label=_("Chunk size"),
        initial=1000,
        min_value=10,
        max_value=10_000,
        help_text=_("Rows per task; smaller chunks show progress sooner."),
    )
    repetitions = forms.IntegerField(
        label=_("Repetitions"),
        required=False,
        initial=1,
        min_value=1,
        max_value=20,
        help_text=_(
            "Run the target (or, without one, each judge) this many times per row: the "
            "dashboard shows pass@k and pass^k, and intervals resample rows, not repetitions."
        ),
    )

    def __init__(self, *args, workspace, evalset_versions=(), evaluator_versions=(), **kw):
        super().__init__(*args, **kw)
        kinds = [spec for spec in TARGETS.values() if spec.in_new_form]
        self.fields["target_kind"].choices = [(spec.name, spec.label) for spec in kinds]
        for spec in kinds:
            self.fields.update(spec.form_fields(workspace=workspace))
        self.fields["evalset_version"].choices = [
            (str(v.public_id), evalset_version_label(v)) for v in evalset_versions
        ]
        self.fields["evaluator_versions"].choices = [
            (str(v.public_id), evaluator_version_label(v)) for v in evaluator_versions
        ]

    def evaluator_groups(self, groups: dict[str, str]) -> list[dict]:
        """The evaluator checkboxes by group (`groups`: public id → EVALUATOR_GROUPS key), in
        the groups' order; a group without evaluators is left out."""
        boxes = list(self["evaluator_versions"])
        found = []
        for key, label, help_text in EVALUATOR_GROUPS:
            mine = [b for b in boxes if groups.get(str(b.data["value"])) == key]
            if mine:
                found.append({"key": key, "label": label, "help": help_text, "boxes": mine})
        return found

    def clean(self):
        data = super().clean()
        if data.get("target_kind"):
            for field, message in target_get(data["target_kind"]).form_problems(data).items():
                self.add_error(field, message)
        return data

    def target(self) -> dict | None:
        """The service's target dict, or None for no target."""
        return target_get(self.cleaned_data["target_kind"]).from_form(self.cleaned_data)


EVALUATOR_GROUPS = (
    (
        "fits",
        _("Fit this evalset's columns"),
        _("Every required variable already has a column or the target's output."),
    ),
    (
        "needs_mapping",
        _("Need a mapping"),
        _("Some required variable has no column of its name: choose one below."),
    ),
    (
        "conversation",
        _("Conversation checks"),
        _("They read a whole conversation: a Conversation column or the simulated user's chat."),
    ),
    (
        "garak",
        _("garak detectors"),
        _("They read the scores of an imported garak scan."),
    ),
    (
        "pairwise",
        _("Pairwise judges"),
        _("They compare two experiments' outputs: use them in a pairwise run, not here."),
    ),
)


def evaluator_groups(
    *, versions: list, evalset_version, target_outputs: tuple[str, ...], remembered: dict
) -> dict[str, str]:
    """Each evaluator version's group on the picker (public id → EVALUATOR_GROUPS key)."""
    columns = evalset_version.columns if evalset_version is not None else []
    return {str(v.public_id): _group_of(v, columns, target_outputs, remembered) for v in versions}


def _group_of(version, columns, target_outputs, remembered) -> str:
    if version.kind_spec.pairwise:
        return "pairwise"
    if "garak" in (version.evaluator.tags or []):
        return "garak"
    variables = version.config.get("input_variables") or []
    if any(v.get("content_type") == ContentType.CONVERSATION for v in variables):
        return "conversation"
    mapping = suggest_mapping(
        variables=variables, columns=columns, target_outputs=target_outputs, remembered=remembered
    )
    problems = mapping_problems(
        variables=variables, mapping=mapping, columns=columns, target_outputs=target_outputs
    )
    return "needs_mapping" if problems else "fits"


def mapping_field(version, variable: str) -> str:
    return f"map__{version.public_id}__{variable}"


def policy_field(version, part: str) -> str:
    return f"policy__{version.public_id}__{part}"


def binding_plan(
    *,
    data,
    evalset_version,
    versions: list,
    target_outputs: tuple[str, ...],
    remembered: dict | None = None,
) -> list[dict]:
    """For each chosen evaluator version: its mapping dropdowns and policy, as posted or
    suggested (`remembered`: the set's last mapping, then names and synonyms). A posted source
    that the evalset version does not offer falls back to the suggestion (it belonged to a
    previously chosen version)."""
    columns = evalset_version.columns if evalset_version is not None else []
    options = [("", _("— not mapped —"))] + [
        (f"column:{c['name']}", column_label(c)) for c in columns
    ]
    options += [
        (
            target_source(output),
            _("target: %(output)s (%(type)s)")
            % {"output": output, "type": ContentType(output_type(output)).label},
        )
        for output in target_outputs
    ]
    valid = {value for value, _label in options}
    suggest = {"columns": columns, "target_outputs": target_outputs, "remembered": remembered}
    return [_plan_one(data, v, options, valid, suggest) for v in versions]


def _plan_one(data, version, options, valid, suggest: dict) -> dict:
    variables = version.config.get("input_variables") or []
    suggested = suggest_mapping(variables=variables, **suggest)
    rows = []
    for variable in variables:
        name = mapping_field(version, variable["name"])
        posted = data.get(name)
        chosen = (
            posted
            if posted is not None and posted in valid
            else suggested.get(variable["name"], "")
        )
        rows.append({**variable, "field": name, "selected": chosen, "options": options})
    kind, threshold = _policy(data, version)
    policy = policy_dict(kind, threshold)
    return {
        "version": version,
        "variables": rows,
        "policy_kind": kind,
        "threshold": threshold,
        "policy_kind_field": policy_field(version, "kind"),
        "threshold_field": policy_field(version, "threshold"),
        "policy_text": _describe(policy, version.score_meaning),
        "mapping": {r["name"]: r["selected"] for r in rows if r["selected"]},
        "errors": [],
        **_turns(data, version, variables),
    }


def turns_field(version) -> str:
    return f"turns__{version.public_id}"


def _turns(data, version, variables) -> dict:
    """Scored once per row, or per assistant turn with an aggregation (evaluators that read a
    Conversation only)."""
    offered = any(v.get("content_type") == ContentType.CONVERSATION for v in variables)
    chosen = data.get(turns_field(version)) or ""
    return {
        "offers_turns": offered,
        "turns_field": turns_field(version),
        "turns": chosen if offered and chosen in TurnAggregate.values else "",
        "turn_choices": TurnAggregate.choices,
    }


def _policy(data, version) -> tuple[str, object]:
    default = version.default_policy or {"kind": "threshold", "threshold": 0.5}
    kind = data.get(policy_field(version, "kind")) or default.get("kind", "threshold")
    if kind not in dict(POLICY_KINDS):
        kind = default.get("kind", "threshold")
    raw = data.get(policy_field(version, "threshold"))
    if raw in (None, ""):
        return kind, default.get("threshold", 0.5)
    try:
        return kind, float(raw)
    except ValueError:
        return kind, raw  # the service names the problem


def _describe(policy: dict, meaning: str) -> str:
    try:
        return describe_policy(policy, meaning)
    except (TypeError, ValueError):
        return ""


def plan_bindings(plan: list[dict]) -> list[dict]:
    """The service's binding dicts from a plan."""
    return [
        {
            "evaluator_version": entry["version"],
            "mapping": entry["mapping"],
            "policy": (
                {"kind": "threshold", "threshold": entry["threshold"]}
                if entry["policy_kind"] == "threshold"
                else {"kind": entry["policy_kind"]}
            ),
            **({"per_turn": True, "turn_aggregate": entry["turns"]} if entry["turns"] else {}),
        }
        for entry in plan
    ]


def attach_errors(form: forms.Form, plan: list[dict], exc: ValidationError) -> None:
    """Put a service error next to what it is about: a field, a binding, or the form top."""
    fields = {
        "target.provider_id": "provider",
        "target.messages": "user_prompt",
        "bindings": "evaluator_versions",
        **_target_aliases(form),
    }
    rest = {}
    for path, messages in exc.message_dict.items():
        index = _binding_index(path)
        if index is not None and index < len(plan):
            plan[index]["errors"].extend(messages)
        else:
            rest[path] = messages
    if rest:
        add_errors(form, ValidationError(rest), aliases=fields)


def _target_aliases(form: forms.Form) -> dict[str, str]:
    try:
        return target_get(getattr(form, "cleaned_data", {}).get("target_kind")).form_aliases
    except ValueError:
        return {}


def _binding_index(path: str) -> int | None:
    if path.startswith("bindings[") and "]" in path:
        return int(path[len("bindings[") : path.index("]")])
    return None


class CloneForm(forms.Form):
    """Name, evalset version, and per evaluator the version to use (fields added per binding)."""

    name = forms.CharField(label=_("Name"), max_length=160)
    evalset_version = forms.ChoiceField(label=_("Evalset version"))

    def __init__(self, *args, experiment, evalset_versions, evaluators, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["evalset_version"].choices = [
            (str(v.public_id), f"{v.evalset.name} @ {v.version}") for v in evalset_versions
        ]
        self.initial.setdefault("name", f"{experiment.name} (clone)")
        self.initial.setdefault("evalset_version", str(experiment.evalset_version.public_id))
        self.evaluator_fields = []
        for evaluator, versions, current in evaluators:
            name = f"version__{evaluator.public_id}"
            self.fields[name] = forms.ChoiceField(
                label=evaluator.name, choices=[(v.version, v.version) for v in versions]
            )
            self.initial.setdefault(name, current.version)
            self.evaluator_fields.append((name, evaluator))

    def versions(self) -> dict:
        """{evaluator pk: EvaluatorVersion} for the versions that differ from the current."""
        chosen = {}
        for name, evaluator in self.evaluator_fields:
            chosen[evaluator.pk] = evaluator.versions.get(version=self.cleaned_data[name])
        return chosen


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
