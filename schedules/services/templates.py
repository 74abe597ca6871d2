"""Experiment templates: save a set-up (from scratch or from an experiment), change it, launch
it. A template is checked by the experiments' own validation: a dry run of
`experiment_create` with what a launch would use now, rolled back, so a template is valid
exactly when an experiment made from it would be."""

from __future__ import annotations

import string
from datetime import UTC, datetime
from zoneinfo import ZoneInfo

from django.contrib.auth.models import AbstractBaseUser
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.utils.translation import gettext as _

from assay.models import Workspace
from evalsets.models import EvalSetVersion
from evaluators.models import EvaluatorVersion
from experiments.models import Experiment, ExperimentStatus
from experiments.selectors.inputs import BINDING_KEYS
from experiments.services import experiment_create
from experiments.services.per_turn import TURN_KEYS

from ..models import (
    DEFAULT_NAME_PATTERN,
    Comparison,
    ExperimentTemplate,
    RunOutcome,
    Schedule,
    ScheduleRun,
    TemplateBinding,
)
from ..selectors import evalset_latest_committed, evaluator_latest

PATTERN_FIELDS = ("template", "date", "time")
SETUP_DEFAULTS = {
    "description": "",
    "evalset_latest": False,
    "target": None,
    "concurrency": 8,
    "chunk_size": 1000,
    "repetitions": 1,
    "interval": None,
    "name_pattern": DEFAULT_NAME_PATTERN,
    "baseline": None,
}
# a template's own fields, as a setup names them (the rest: evalset, target, bindings)
PLAIN_FIELDS = ("name", "description", "concurrency", "chunk_size", "repetitions", "interval")
PLAIN_FIELDS += ("name_pattern", "baseline")


class _DryRun(Exception):
    """Raised inside the dry run's savepoint so that the experiment it made is rolled back."""


def template_create(
    *, workspace: Workspace, user: AbstractBaseUser, setup: dict, saved_from=None
) -> ExperimentTemplate:
    """A template from a setup: name, evalset_version (an EvalSetVersion) and evalset_latest,
    target, bindings ({"evaluator_version": EvaluatorVersion, "latest": bool, "mapping", and
    an experiment binding's other keys}), concurrency, chunk_size, repetitions, interval,
    name_pattern, baseline. Every problem is named by its field; nothing is saved then."""
    setup = {**SETUP_DEFAULTS, **setup}
    template = ExperimentTemplate(workspace=workspace, created_by=user, saved_from=saved_from)
    return _saved(template, setup)


def template_update(*, template: ExperimentTemplate, changes: dict) -> ExperimentTemplate:
    """Change some of a template's setup (a list of bindings replaces the list)."""
    return _saved(template, {**template_setup(template=template), **changes})


def template_setup(*, template: ExperimentTemplate) -> dict:
    """The template's setup, in the shape template_create takes."""
    version = template.evalset_version or evalset_latest_committed(evalset=template.evalset)
    bindings = [
        {
            "evaluator_version": b.evaluator_version or evaluator_latest(evaluator=b.evaluator),
            "latest": b.evaluator_version_id is None,
            "mapping": b.mapping,
            **b.options,
        }
        for b in template.bindings.select_related("evaluator", "evaluator_version")
    ]
    target = {"kind": template.target_kind, **template.target_config}
    plain = {field: getattr(template, field) for field in PLAIN_FIELDS}
    return {
        **plain,
        "evalset_version": version,
        "evalset_latest": template.evalset_version_id is None,
        "target": target,
        "bindings": bindings,
    }


def template_from_experiment(
    *, experiment: Experiment, user: AbstractBaseUser, name: str
) -> ExperimentTemplate:
    """A template with an experiment's setup: its evalset version and evaluator versions
    (fixed; change them to "latest" on the template), target, mappings and numbers."""
    bindings = [
        {
            "evaluator_version": b.evaluator_version,
            "latest": False,
            "mapping": b.mapping,
            "policy": b.policy,
            "ext": b.ext,
            "applies_to": b.applies_to,
            **{key: getattr(b, key) for key in TURN_KEYS},
        }
        for b in experiment.bindings.select_related("evaluator_version")
    ]
    setup = {
        "name": name,
        "description": experiment.description,
        "evalset_version": experiment.evalset_version,
        "target": {"kind": experiment.target_kind, **experiment.target_config},
        "bindings": bindings,
        "concurrency": experiment.concurrency,
        "chunk_size": experiment.chunk_size,
        "repetitions": experiment.repetitions,
        "interval": experiment.interval or None,
    }
    return template_create(
        workspace=experiment.workspace, user=user, setup=setup, saved_from=experiment
    )


def template_delete(*, template: ExperimentTemplate) -> None:
    """Delete a template, its schedules and its run history (the experiments stay)."""
    template.delete()


def _saved(template: ExperimentTemplate, setup: dict) -> ExperimentTemplate:
    _validate(template, setup)
    with transaction.atomic():
        _assign(template, setup)
        try:
            with transaction.atomic():
                template.save()
        except IntegrityError:
            raise ValidationError({"name": [_name_taken()]}) from None
        template.bindings.all().delete()
        TemplateBinding.objects.bulk_create(_binding_rows(template, setup["bindings"]))
    return template


def _assign(template: ExperimentTemplate, setup: dict) -> None:
    for field in PLAIN_FIELDS:
        setattr(template, field, setup[field])
    template.name = setup["name"].strip()
    version = setup["evalset_version"]
    template.evalset = version.evalset
    template.evalset_version = None if setup["evalset_latest"] else version
    target = dict(setup["target"] or {"kind": "none"})
    template.target_kind, template.target_config = target.pop("kind", "none"), target


def _binding_rows(template, bindings: list[dict]) -> list[TemplateBinding]:
    rows = []
    for position, binding in enumerate(bindings):
        version = binding["evaluator_version"]
        options = {k: v for k, v in binding.items() if k in BINDING_KEYS - {"mapping"}}
        options.pop("evaluator_version", None)
        rows.append(
            TemplateBinding(
                template=template,
                position=position,
                evaluator=version.evaluator,
                evaluator_version=None if binding.get("latest") else version,
                mapping=binding.get("mapping") or None,
                options=options,
            )
        )
    return rows


def _validate(template: ExperimentTemplate, setup: dict) -> None:
    """The template's own checks, then the experiments' validation of a launch made now."""
    errors = _own_problems(template, setup)
    if errors:
        raise ValidationError(errors)
    launch_version = setup["evalset_version"]
    if setup["evalset_latest"]:
        launch_version = evalset_latest_committed(evalset=launch_version.evalset)
    bindings = [_launch_binding(b) for b in setup["bindings"]]
    _dry_run(template.workspace, setup, launch_version, bindings)


def _own_problems(template: ExperimentTemplate, setup: dict) -> dict[str, list[str]]:
    errors: dict[str, list[str]] = {}
    name = (setup.get("name") or "").strip()
    if not name:
        errors["name"] = [_("A template needs a name.")]
    elif len(name) > 160:
        errors["name"] = [_("At most 160 characters.")]
    elif _taken(template, name):
        errors["name"] = [_name_taken()]
    version = setup.get("evalset_version")
    if not isinstance(version, EvalSetVersion) or (
        version.evalset.workspace_id != template.workspace_id
    ):
        errors["evalset_version"] = [_("No such evalset version in this workspace.")]
    if problems := name_pattern_problems(setup.get("name_pattern") or ""):
        errors["name_pattern"] = problems
    errors |= _binding_problems(template.workspace_id, setup.get("bindings"))
    if "evalset_version" not in errors:
        errors |= _baseline_problems(template.workspace_id, version, setup.get("baseline"))
    return errors


def _taken(template: ExperimentTemplate, name: str) -> bool:
    same = ExperimentTemplate.objects.filter(workspace_id=template.workspace_id, name=name)
    return same.exclude(pk=template.pk).exists()


def _name_taken() -> str:
    return _("A template with this name already exists in this workspace.")


def _binding_problems(workspace_id: int, bindings) -> dict[str, list[str]]:
    if not isinstance(bindings, list) or not bindings:
        return {"bindings": [_("Add at least one evaluator version.")]}
    errors = {}
    for i, binding in enumerate(bindings):
        version = binding.get("evaluator_version")
        if not isinstance(version, EvaluatorVersion) or (
            version.evaluator.workspace_id != workspace_id
        ):
            errors[f"bindings[{i}].evaluator_version"] = [
                _("No such evaluator version in this workspace.")
            ]
        unknown = set(binding) - BINDING_KEYS - {"latest"}
        if unknown:
            errors[f"bindings[{i}]"] = [
                _("Unknown field(s): %(names)s.") % {"names": ", ".join(sorted(unknown))}
            ]
    return errors


def _baseline_problems(workspace_id: int, version, baseline) -> dict[str, list[str]]:
    if baseline is None:
        return {}
    if (
        baseline.workspace_id != workspace_id
        or baseline.evalset_version.evalset_id != version.evalset_id
    ):
        return {"baseline": [_("The baseline is a run on the template's evalset.")]}
    if baseline.status != ExperimentStatus.COMPLETED:
        return {"baseline": [_("Only a completed run can be a baseline.")]}
    return {}


def _launch_binding(binding: dict) -> dict:
    """An experiment binding as a launch would make it now ("latest": the newest version)."""
    version = binding["evaluator_version"]
    if binding.get("latest"):
        version = evaluator_latest(evaluator=version.evaluator)
    rest = {k: v for k, v in binding.items() if k not in ("evaluator_version", "latest")}
    return {**rest, "evaluator_version": version}


def _dry_run(workspace, setup: dict, version, bindings: list[dict]) -> None:
    """experiment_create with what a launch would use, in a savepoint rolled back: its
    ValidationError (by field: target.*, bindings[i].*, repetitions, ...) is the template's."""
    if version is None:
        raise ValidationError({"evalset_version": [_("The evalset has no committed version.")]})
    try:
        with transaction.atomic():
            experiment_create(
                workspace=workspace,
                user=None,
                name=name_render(setup["name_pattern"], template=setup["name"], when=_now()),
                evalset_version=version,
                bindings=bindings,
                target=setup["target"],
                concurrency=setup["concurrency"],
                chunk_size=setup["chunk_size"],
                repetitions=setup["repetitions"],
                interval=setup["interval"],
            )
            raise _DryRun
    except _DryRun:
        return
    except ValidationError as exc:
        raise ValidationError(_renamed(exc)) from None


def _renamed(exc: ValidationError) -> dict:
    """The experiment's field names as the template's (its name comes from the pattern)."""
    problems = dict(exc.message_dict)
    if "name" in problems:
        problems["name_pattern"] = problems.pop("name")
    return problems


def _now() -> datetime:
    return datetime.now(UTC)


def name_pattern_problems(pattern: str) -> list[str]:
    """A name pattern names only {template}, {date} and {time} (no formats, no attributes)."""
    if not pattern.strip():
        return [_("A name pattern is needed, e.g. nightly {date}.")]
    if len(pattern) > 160:
        return [_("At most 160 characters.")]
    try:
        fields = [(f, spec, conv) for _t, f, spec, conv in string.Formatter().parse(pattern)]
    except ValueError:
        fields = [("{", "", None)]
    allowed = set(PATTERN_FIELDS)
    if any(f is not None and (f not in allowed or spec or conv) for f, spec, conv in fields):
        return [_("Use only {template}, {date} and {time} in braces.")]
    return []


def name_render(pattern: str, *, template: str, when: datetime, timezone: str = "UTC") -> str:
    """A run's name from the pattern: {date} and {time} in the schedule's zone."""
    local = when.astimezone(ZoneInfo(timezone))
    values = {
        "template": template,
        "date": local.strftime("%Y-%m-%d"),
        "time": local.strftime("%H:%M"),
    }
    return pattern.format_map(values)[:160]


def template_launch(
    *,
    template: ExperimentTemplate,
    user: AbstractBaseUser | None,
    now: datetime,
    schedule: Schedule | None = None,
    due_at: datetime | None = None,
    missed: int = 0,
) -> ScheduleRun:
    """Create and launch an experiment from the template ("latest" resolved now) and record
    it in the template's runs; the experiments' validation errors are raised as they are."""
    version = template.evalset_version or evalset_latest_committed(evalset=template.evalset)
    if version is None:
        raise ValidationError({"evalset_version": [_("The evalset has no committed version.")]})
    zone = schedule.timezone if schedule else "UTC"
    name = name_render(template.name_pattern, template=template.name, when=now, timezone=zone)
    with transaction.atomic():
        experiment = experiment_create(
            workspace=template.workspace,
            user=user,
            name=name,
            evalset_version=version,
            bindings=_template_bindings(template),
            description=template.description,
            target={"kind": template.target_kind, **template.target_config},
            concurrency=template.concurrency,
            chunk_size=template.chunk_size,
            repetitions=template.repetitions,
            interval=template.interval,
            launch=True,
        )
        return ScheduleRun.objects.create(
            template=template,
            schedule=schedule,
            experiment=experiment,
            outcome=RunOutcome.LAUNCHED,
            due_at=due_at,
            missed=missed,
            comparison=Comparison.PENDING,
        )


def _template_bindings(template: ExperimentTemplate) -> list[dict]:
    bindings = template.bindings.select_related("evaluator", "evaluator_version")
    return [
        {
            "evaluator_version": b.evaluator_version or evaluator_latest(evaluator=b.evaluator),
            "mapping": b.mapping,
            **b.options,
        }
        for b in bindings
    ]
