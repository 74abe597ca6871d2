"""Resolving the ids a request names (versions of evalsets and evaluators) and the choices a
form offers."""

from __future__ import annotations

from assay.models import Workspace
from assay.selectors import as_uuid, by_public_id
from assay.semver import sort_key
from evalsets.models import EvalSetVersion
from evaluators.models import Evaluator, EvaluatorVersion


def evalset_version_for(*, workspace: Workspace, public_id) -> EvalSetVersion | None:
    """An evalset version of the workspace by public id or by "name@version", or None."""
    qs = EvalSetVersion.objects.filter(evalset__workspace=workspace).select_related("evalset")
    return _version_ref(qs, "evalset", public_id)


def _version_ref(versions, parent: str, ref):
    """A version by public id, or by "name@version" of its live `parent` (no version: the
    highest)."""
    named = _named_ref(ref)
    if named is None:
        return by_public_id(versions, ref)
    name, version = named
    live = versions.filter(**{f"{parent}__deleted_at__isnull": True, f"{parent}__name": name})
    return live.filter(version=version).first() if version else _highest(live)


def _named_ref(ref) -> tuple[str, str] | None:
    """("name", "1.2.0") of a "name@1.2.0" reference ("name" alone: the highest version);
    None for anything that is a public id."""
    if not isinstance(ref, str) or as_uuid(ref) is not None or not ref.strip():
        return None
    name, _, version = ref.strip().rpartition("@") if "@" in ref else (ref.strip(), "", "")
    return name.strip(), version.strip()


def _highest(versions):
    found = list(versions)
    return max(found, key=lambda v: sort_key(v.version)) if found else None


def evaluator_version_for(*, workspace: Workspace, public_id) -> EvaluatorVersion | None:
    """An evaluator version of the workspace by public id or by "name@version", or None."""
    qs = EvaluatorVersion.objects.filter(evaluator__workspace=workspace).select_related("evaluator")
    return _version_ref(qs, "evaluator", public_id)


def evaluator_for(*, workspace: Workspace, public_id) -> Evaluator | None:
    return by_public_id(Evaluator.objects.filter(workspace=workspace), public_id)


def evalset_version_choices(*, workspace: Workspace) -> list[EvalSetVersion]:
    """Every version of the workspace's live evalsets: by set name, highest version first."""
    versions = EvalSetVersion.objects.filter(
        evalset__workspace=workspace, evalset__deleted_at__isnull=True
    ).select_related("evalset")
    return _by_name_then_version(versions, lambda v: v.evalset.name)


def evaluator_version_choices(*, workspace: Workspace) -> list[EvaluatorVersion]:
    """Every version of the workspace's live evaluators: by name, highest version first."""
    versions = EvaluatorVersion.objects.filter(
        evaluator__workspace=workspace, evaluator__deleted_at__isnull=True
    ).select_related("evaluator")
    return _by_name_then_version(versions, lambda v: v.evaluator.name)


def _by_name_then_version(versions, name) -> list:
    # two stable sorts: highest SemVer first, then by name (the second sort keeps the first)
    ordered = sorted(versions, key=lambda v: sort_key(v.version), reverse=True)
    return sorted(ordered, key=lambda v: name(v).lower())


def versions_of(*, evaluator: Evaluator) -> list[EvaluatorVersion]:
    return sorted(evaluator.versions.all(), key=lambda v: sort_key(v.version), reverse=True)
