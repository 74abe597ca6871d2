"""Reads of experiments and their results, always scoped to one workspace."""

from __future__ import annotations

import json
import math
from datetime import datetime

from django.core.exceptions import ValidationError
from django.db import connection
from django.db.models import Count, F, Q, QuerySet
from django.http import Http404
from django.utils import timezone
from django.utils.translation import gettext

from assay.models import Workspace
from assay.selectors import as_uuid, by_public_id, public_or_404
from assay.semver import sort_key
from assay.vocabulary import ResultStatus, Verdict
from evalsets.models import EvalSet, EvalSetItem, EvalSetVersion
from evaluators.models import Evaluator, EvaluatorVersion

from .models import ACTIVE_STATUSES, EvaluatorBinding, Experiment, ExperimentStatus, Result
from .stats import COUNT_KEYS

TAG_SCAN = 5000


def experiment_list(
    *, workspace: Workspace, status: str = "", evalset: str = "", evaluator: str = ""
) -> QuerySet:
    """Experiments of the workspace, newest first; `evalset` is an evalset or version public id,
    or a live evalset's "name" (any version) or "name@version".

    A status or id that cannot match anything is a ValidationError naming the filter.
    """
    qs = Experiment.objects.filter(workspace=workspace)
    if status:
        if status not in ExperimentStatus.values:
            raise ValidationError({"status": f"Unknown status {status!r}."})
        qs = qs.filter(status=status)
    if evalset:
        qs = qs.filter(_evalset_filter(workspace, evalset))
    if evaluator:
        uid = as_uuid(evaluator)
        if uid is None:
            raise ValidationError({"evaluator": gettext("Give an evaluator id.")})
        qs = qs.filter(bindings__evaluator_version__evaluator__public_id=uid).distinct()
    qs = qs.select_related("evalset_version__evalset", "created_by")
    return qs.annotate(binding_count=Count("bindings")).order_by("-created_at", "-pk")


def _evalset_filter(workspace: Workspace, ref: str) -> Q:
    named = _named_ref(ref)
    if named is None:
        uid = as_uuid(ref)
        return Q(evalset_version__public_id=uid) | Q(evalset_version__evalset__public_id=uid)
    name, version = named
    if not EvalSet.objects.filter(workspace=workspace, name=name, deleted_at__isnull=True).exists():
        raise ValidationError(
            {"evalset": gettext("No evaluation set is named %(name)r.") % {"name": name}}
        )
    live = Q(evalset_version__evalset__name=name, evalset_version__evalset__deleted_at__isnull=True)
    return live & Q(evalset_version__version=version) if version else live


def experiment_get(*, workspace: Workspace, public_id) -> Experiment:
    """One experiment of the workspace, or 404 (also for malformed ids and other workspaces)."""
    qs = Experiment.objects.filter(workspace=workspace).select_related(
        "evalset_version__evalset", "created_by", "cloned_from"
    )
    return public_or_404(qs, public_id, "experiment")


def experiment_find(*, workspace: Workspace, public_id) -> Experiment | None:
    """One experiment of the workspace by public id, or None."""
    return by_public_id(Experiment.objects.filter(workspace=workspace), public_id)


def baseline_latest(*, workspace: Workspace, candidate: Experiment) -> Experiment | None:
    """The newest completed run marked as a baseline on the candidate's evalset."""
    return (
        Experiment.objects.filter(
            workspace=workspace,
            is_baseline=True,
            status=ExperimentStatus.COMPLETED,
            evalset_version__evalset_id=candidate.evalset_version.evalset_id,
        )
        .exclude(pk=candidate.pk)
        .order_by("-finished_at", "-pk")
        .first()
    )


def any_active(experiments) -> bool:
    return any(e.status in ACTIVE_STATUSES for e in experiments)


# ----------------------------------------------------------------------------- resolving ids


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


def experiment_progress(experiment: Experiment, now: datetime | None = None) -> dict:
    """Counters, percent, elapsed time, throughput (results/s and rows/s) and the ETA.

    Throughput is measured from `started_at`; the ETA exists only while the run is active
    and something has been done (before that there is nothing honest to extrapolate).
    """
    now = now or timezone.now()
    done, total = experiment.results_done, experiment.results_total
    elapsed = _elapsed(experiment, now)
    results_per_s = done / elapsed if elapsed and done else None
    bindings = (
        max(1, experiment.results_total // experiment.items_total)
        if (experiment.items_total)
        else 1
    )
    eta = None
    if experiment.is_active and results_per_s and total > done:
        eta = math.ceil((total - done) / results_per_s)
    return {
        "results_done": done,
        "results_total": total,
        "items_total": experiment.items_total,
        "chunks_done": experiment.chunks_done,
        "chunks_total": experiment.chunks_total,
        "percent": round(100 * experiment.progress, 1),
        "elapsed_s": round(elapsed, 3) if elapsed is not None else None,
        "results_per_s": round(results_per_s, 2) if results_per_s else None,
        "rows_per_s": round(results_per_s / bindings, 2) if results_per_s else None,
        "eta_s": eta,
    }


def _elapsed(experiment: Experiment, now: datetime) -> float | None:
    if experiment.started_at is None:
        return None
    end = experiment.finished_at or now
    return max(0.0, (end - experiment.started_at).total_seconds())


def result_counts(*, experiment: Experiment) -> dict:
    """Results by status and by final verdict (a human correction wins)."""
    statuses = {s: 0 for s in ResultStatus.values}
    verdicts = {v: 0 for v in Verdict.values}
    if not experiment.is_active and _aggregated(experiment):
        return _counts_from_aggregates(experiment, statuses, verdicts)
    rows = (
        Result.objects.filter(experiment=experiment)
        .values_list("status", "verdict", "human_verdict")
        .annotate(n=Count("pk"))
        .order_by()
    )
    for status, verdict, human, n in rows:
        statuses[status] = statuses.get(status, 0) + n
        final = human or verdict
        verdicts[final] = verdicts.get(final, 0) + n
    return {"statuses": statuses, "verdicts": verdicts}


def _aggregated(experiment: Experiment) -> bool:
    """Finished runs have one stored aggregate per binding: read those, not every result."""
    return experiment.aggregates.count() == experiment.bindings.count() > 0


def _counts_from_aggregates(experiment: Experiment, statuses: dict, verdicts: dict) -> dict:
    for summary in experiment.aggregates.values_list("summary", flat=True):
        for status, n in (summary.get("statuses") or {}).items():
            statuses[status] = statuses.get(status, 0) + n
        for verdict, key in COUNT_KEYS.items():
            verdicts[verdict] += summary[key]
    return {"statuses": statuses, "verdicts": verdicts}


def failed_count(*, experiment: Experiment) -> int:
    """Rows a retry would re-run (error or timeout); a finished run reads its aggregates."""
    retryable = [ResultStatus.ERROR, ResultStatus.TIMEOUT]
    if not experiment.is_active and _aggregated(experiment):
        statuses = result_counts(experiment=experiment)["statuses"]
        return sum(statuses.get(s, 0) for s in retryable)
    return experiment.results.filter(status__in=retryable).count()


def bindings_with_summaries(*, experiment: Experiment) -> list[EvaluatorBinding]:
    """Bindings in order, each with `summary` (the stored aggregate, or None yet)."""
    bindings = list(experiment.bindings.select_related("evaluator_version__evaluator", "aggregate"))
    for binding in bindings:
        aggregate = getattr(binding, "aggregate", None)
        binding.summary = aggregate.summary if aggregate is not None else None
    return bindings


# ----------------------------------------------------------------------------- results


def results_list(
    *,
    experiment: Experiment,
    evaluator: str = "",
    verdict: str = "",
    status: str = "",
    tag: str = "",
    q: str = "",
    score_min: str | float | None = None,
    score_max: str | float | None = None,
    item: str = "",
) -> QuerySet[Result]:
    """Results of one experiment with the results table's filters.

    `evaluator` is a binding id, an evaluator or an evaluator version public id; `verdict` is
    the final verdict (the human correction when there is one); `item` is an item's id (all its
    evaluators and repetitions). Bad filters are a ValidationError naming the filter, so a typo
    never silently shows everything.
    """
    qs = Result.objects.filter(experiment=experiment)
    errors: dict[str, str] = {}
    if evaluator:
        qs = _by_evaluator(qs, evaluator, errors)
    if verdict:
        if verdict not in Verdict.values:
            errors["verdict"] = gettext(
                "Unknown verdict %(verdict)r; use pass, fail or unknown."
            ) % {"verdict": verdict}
        qs = qs.filter(Q(human_verdict=verdict) | Q(human_verdict="", verdict=verdict))
    if status:
        if status not in ResultStatus.values:
            errors["status"] = f"Unknown status {status!r}."
        qs = qs.filter(status=status)
    if tag:
        qs = qs.filter(_has_tag(tag))
    if q:
        qs = qs.filter(result_text(q))
    qs = _by_score(qs, score_min, "score_min", "gte", errors)
    qs = _by_score(qs, score_max, "score_max", "lte", errors)
    qs = _by_item(qs, experiment, item, errors)
    if errors:
        raise ValidationError(errors)
    # binding ids follow binding positions (created in order), so this ordering walks the
    # unique (experiment, position, binding, …) index instead of sorting every row
    # the heavy per-row fields stay behind (the drawer loads them), and the few bindings are
    # prefetched for the page instead of joined into every row before the sort
    return (
        qs.defer("rendered_request", "raw_answer", "stdout")
        .prefetch_related("binding__evaluator_version__evaluator")
        .order_by("position", "binding_id")
    )


# A result's item id, read through its item (results do not copy it): annotated where a
# result is shown with it (the API), not on the grid's walks, which would join every row.
ITEM_UID = F("item__item_id")


def result_text(q: str) -> Q:
    """Results whose reason or error holds `q` (on PostgreSQL through the trigram indexes on
    UPPER(reason) and UPPER(error), when the planner expects few)."""
    return Q(reason__icontains=q) | Q(error__icontains=q)


def _has_tag(tag: str) -> Q:
    """Results whose tags hold `tag`: JSON containment on PostgreSQL (the planner reads it as
    a cheap test and walks rows in order; the text of every row's tags costs 20× more), else
    the quoted tag as a substring of the list (SQLite has no JSON containment)."""
    if connection.vendor == "postgresql":
        return Q(tags__contains=[tag])
    return Q(tags__icontains=json.dumps(tag, ensure_ascii=False))


def _by_evaluator(qs, value: str, errors: dict) -> QuerySet:
    value = str(value).strip()
    if value.isdigit():
        return qs.filter(binding_id=int(value))
    ref = as_uuid(value)
    if ref is None:
        errors["evaluator"] = gettext(
            "Give a binding id, an evaluator id or an evaluator version id."
        )
        return qs
    return qs.filter(
        Q(binding__evaluator_version__evaluator__public_id=ref)
        | Q(binding__evaluator_version__public_id=ref)
    )


def _by_item(qs, experiment: Experiment, value: str, errors: dict) -> QuerySet:
    """The item's results, found by its row's position (the item id is not indexed among the
    results; the experiment's positions are)."""
    if not value:
        return qs
    uid = as_uuid(str(value).strip())
    if uid is None:
        errors["item"] = gettext("Give an item id (a UUID).")
        return qs
    rows = EvalSetItem.objects.of_version(experiment.evalset_version).filter(item_id=uid)
    return qs.filter(position__in=rows.values("position"))


def _by_score(qs, value, name: str, op: str, errors: dict) -> QuerySet:
    if value in (None, ""):
        return qs
    try:
        number = float(value)
    except (TypeError, ValueError):
        number = math.nan
    if not math.isfinite(number):
        errors[name] = gettext("Give a number, e.g. 0.5.")
        return qs
    return qs.filter(**{f"score__{op}": number})


def result_get(*, experiment: Experiment, result_id) -> Result:
    """One result of the experiment by its integer id, or 404."""
    try:
        pk = int(result_id)
    except (TypeError, ValueError):
        raise Http404(gettext("No such result")) from None
    found = (
        Result.objects.filter(experiment=experiment, pk=pk)
        .annotate(item_uid=ITEM_UID)
        .select_related("binding__evaluator_version__evaluator")
        .first()
    )
    if found is None:
        raise Http404(gettext("No such result"))
    return found


def result_tags(*, experiment: Experiment) -> list[str]:
    """Tags of the pinned evalset version (scanning its first rows), for the filter select."""
    if not experiment.is_active and _aggregated(experiment):
        summaries = experiment.aggregates.values_list("summary", flat=True)
        return sorted({t for summary in summaries for t in (summary.get("tags") or {})})
    rows = EvalSetItem.objects.of_version(experiment.evalset_version).order_by()
    return sorted(
        {t for tags in rows.values_list("tags", flat=True)[:TAG_SCAN] for t in (tags or [])}
    )


# ----------------------------------------------------------------------------- request bodies


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
            errors[f"bindings[{i}]"] = [f"Unknown field(s): {', '.join(sorted(unknown))}."]
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


# ----------------------------------------------------------------------------- garak references


def garak_reference(*, workspace: Workspace, kind: str) -> dict:
    """The entries of the workspace's newest garak reference of this kind ({} without one)."""
    from .models import GarakReference

    found = GarakReference.objects.filter(workspace=workspace, kind=kind).first()
    return found.entries if found else {}


def garak_references(*, workspace: Workspace):
    from .models import GarakReference

    return GarakReference.objects.filter(workspace=workspace)


def experiment_list_scores(*, experiments) -> dict[int, list[dict]]:
    """experiment pk → each evaluator's pass rate and interval, for the list (one query)."""
    from .models import Aggregate
    from .stats.interval_settings import pass_interval

    scores: dict[int, list[dict]] = {}
    found = Aggregate.objects.filter(experiment__in=list(experiments)).select_related(
        "binding__evaluator_version__evaluator"
    )
    for aggregate in found.order_by("binding__position"):
        fail_ci = aggregate.summary.get("fail_rate_ci")
        scores.setdefault(aggregate.experiment_id, []).append(
            {
                "name": aggregate.binding.evaluator_version.evaluator.name,
                "pass_rate": aggregate.summary.get("pass_rate"),
                "pass_ci": pass_interval(fail_ci),
            }
        )
    return scores


def experiment_filter_choices(*, workspace: Workspace) -> dict:
    """The list page's filter choices: live evalsets, and evaluators bound in some run."""
    evalsets = EvalSet.objects.filter(workspace=workspace, deleted_at__isnull=True)
    evaluators = Evaluator.objects.filter(
        workspace=workspace, versions__bindings__isnull=False
    ).distinct()
    return {
        "evalsets": list(evalsets.order_by("name").values_list("public_id", "name")),
        "evaluators": list(evaluators.order_by("name").values_list("public_id", "name")),
    }
