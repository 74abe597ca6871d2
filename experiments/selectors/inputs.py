"""Request bodies resolved into what the services take (ids of the workspace's versions)."""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.utils.translation import gettext

from assay.models import Workspace
from evalsets.models import EvalSetVersion

from ..models import Experiment
from .resolving import evalset_version_for, evaluator_for, evaluator_version_for

BINDING_KEYS = {
    "evaluator_version",
    "mapping",
    "policy",
    "ext",
    "applies_to",
    "per_turn",
    "turn_source",
    "turn_aggregate",
}


def experiment_inputs(*, workspace: Workspace, data: dict) -> dict:
    """An experiment body's public ids → this workspace's objects; what does not resolve is
    named as the field (the service reports a missing binding version by its path)."""
    version = evalset_version_required(workspace=workspace, public_id=data["evalset_version"])
    bindings = bindings_resolved(workspace=workspace, bindings=data["bindings"])
    return {**data, "evalset_version": version, "bindings": bindings}


def bindings_resolved(*, workspace: Workspace, bindings: list[dict]) -> list[dict]:
    """Bindings from a body with their evaluator version (id or "name@version") resolved in
    this workspace (None where it does not: the service names it by its path)."""
    errors, resolved = {}, []
    for i, raw in enumerate(bindings):
        unknown = set(raw) - BINDING_KEYS
        if unknown:
            errors[f"bindings[{i}]"] = [
                gettext("Unknown field(s): %(names)s.") % {"names": ", ".join(sorted(unknown))}
            ]
        found = evaluator_version_for(workspace=workspace, public_id=raw.get("evaluator_version"))
        resolved.append({**raw, "evaluator_version": found})
    if errors:
        raise ValidationError(errors)
    return resolved


def clone_versions(*, workspace: Workspace, experiment: Experiment, versions: dict) -> dict:
    """{evaluator public id: version string} → {evaluator pk: EvaluatorVersion}, for a clone."""
    in_use = set(experiment.bindings.values_list("evaluator_version__evaluator_id", flat=True))
    resolved, errors = {}, {}
    for evaluator_id, version in versions.items():
        evaluator = evaluator_for(workspace=workspace, public_id=evaluator_id)
        if evaluator is None or evaluator.pk not in in_use:
            errors[f"versions.{evaluator_id}"] = [
                gettext("This evaluator is not in the experiment.")
            ]
            continue
        found = evaluator.versions.filter(version=version).first()
        if found is None:
            errors[f"versions.{evaluator_id}"] = [
                gettext("%(name)s has no version %(version)s.")
                % {"name": evaluator.name, "version": version}
            ]
            continue
        resolved[evaluator.pk] = found
    if errors:
        raise ValidationError(errors)
    return resolved


def evalset_version_required(*, workspace: Workspace, public_id) -> EvalSetVersion | None:
    """The workspace's evalset version with that id (None for no id); a ValidationError naming
    the field for an id that does not resolve."""
    if public_id is None:
        return None
    version = evalset_version_for(workspace=workspace, public_id=public_id)
    if version is None:
        raise ValidationError(
            {
                "evalset_version": gettext(
                    "No such evalset version in this workspace: %(public_id)r (give its id, "
                    "or name@version)."
                )
                % {"public_id": str(public_id)[:200]}
            }
        )
    return version
