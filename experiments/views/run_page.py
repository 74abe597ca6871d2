"""The experiment's page: live progress, bindings, the gate's checks, the dashboard and the
results table; and its actions (launch, cancel, retry, clone, re-score, baseline)."""

from __future__ import annotations

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from assay.vocabulary import ResultStatus, Verdict
from assay.web.decorators import workspace_view
from assay.web.errors import error_lines

from .. import selectors, services
from ..forms import (
    CloneForm,
)
from ..panels import actions_render
from ..results.dashboard import dashboard_cards, usage_overview
from ..results.gate import decision_reasons
from ..results.grid import GRID_COLUMNS, grid_page, grid_rows, sort_choices
from ..results.grid_pages import GridPage
from ..results.trends import evalset_trends
from ..scoring import EXPERIMENT
from ..targets.labels import config_facts
from .run_actions import run_cancel_page, run_retry_page
from .runs import target_try

RESULT_FILTERS = (
    "evaluator",
    "verdict",
    "status",
    "tag",
    "q",
    "score_min",
    "score_max",
    "sort",
    "item",
)
GRID_PAGE = 50
GATE_CHECKS_SHOWN = 20  # the newest; the API lists up to 100


@workspace_view()
def detail(request, id):
    """Live progress, counts, bindings, the per-evaluator summary and the results table."""
    experiment = selectors.experiment_get(workspace=request.workspace, public_id=id)
    context = _progress_context(experiment)
    bindings = _bindings(experiment)
    context.update(_results_context(request, experiment, bindings))
    context.update(
        {
            "bindings": bindings,
            "failed": selectors.failed_count(experiment=experiment),
            "target_failed": selectors.target_failed_count(experiment=experiment),
            "clone_form": _clone_form(request, experiment),
            "cards": dashboard_cards(experiment),
            "actions": actions_render(request=request, experiment=experiment),
            "gate_checks": _gate_checks(experiment),
        }
    )
    context["usage"] = usage_overview(experiment, context["cards"])
    context["trends"] = evalset_trends(
        workspace=request.workspace, evalset=experiment.evalset_version.evalset, current=experiment
    )
    spec, config = experiment.target_spec, experiment.target_config
    context["target_config"] = spec.public_config(config)
    context["target_facts"] = config_facts(context["target_config"])
    context["target_text"] = spec.summary(config)
    return render(request, "experiments/detail.html", context)


def _gate_checks(experiment) -> list:
    """The newest recorded gate checks, each with its reasons in the reader's language."""
    checks = list(selectors.gate_decisions(experiment=experiment)[:GATE_CHECKS_SHOWN])
    for check in checks:
        check.worded = decision_reasons(check)
    return checks


@require_POST
@workspace_view()
def detail_target_test(request, id):
    """The experiment page's "Test request": its own target on one row (the first, or ?item)."""
    experiment = selectors.experiment_get(workspace=request.workspace, public_id=id)
    target = {"kind": experiment.target_kind, **experiment.target_config}
    return target_try(request, experiment.evalset_version, target, request.POST.get("item"))


@require_POST
@workspace_view()
def baseline(request, id):
    """Mark or unmark the run as a baseline for the CI gate."""
    experiment = selectors.experiment_get(workspace=request.workspace, public_id=id)
    wanted = request.POST.get("is_baseline") == "1"
    try:
        services.experiment_mark_baseline(experiment=experiment, is_baseline=wanted)
    except ValidationError as exc:
        messages.error(request, " ".join(error_lines(exc)))
    else:
        messages.success(
            request, _("Marked as a baseline.") if wanted else _("No longer a baseline.")
        )
    return redirect("experiments:detail", ws=request.workspace.slug, id=id)


@workspace_view()
def rescore(request, id):
    """Choose evaluator versions to score this finished run's outputs again (no target calls)."""
    experiment = selectors.experiment_get(workspace=request.workspace, public_id=id)
    versions = selectors.evaluator_version_choices(workspace=request.workspace)
    errors = []
    if request.method == "POST":
        chosen = request.POST.getlist("evaluator_versions")
        bindings = selectors.bindings_resolved(
            workspace=request.workspace, bindings=[{"evaluator_version": v} for v in chosen]
        )
        try:
            created = services.experiment_rescore(
                experiment=experiment,
                user=request.user,
                bindings=bindings,
                name=request.POST.get("name", "").strip(),
            )
        except ValidationError as exc:
            errors = error_lines(exc)
        else:
            messages.success(request, _("Re-score launched: the target is not called again."))
            return redirect("experiments:detail", ws=request.workspace.slug, id=created.public_id)
    context = {"experiment": experiment, "versions": versions, "errors": errors}
    return render(request, "experiments/rescore.html", context, status=400 if errors else 200)


@workspace_view()
def progress(request, id):
    """The progress partial htmx polls; once the run has finished the page reloads in full."""
    experiment = selectors.experiment_get(workspace=request.workspace, public_id=id)
    if request.GET.get("active") == "1" and not experiment.is_active:
        response = HttpResponse(status=204)
        response["HX-Refresh"] = "true"  # the summary and results are now final
        return response
    # polled: the title's status badge follows too (an out-of-band swap)
    context = {**_progress_context(experiment), "polled": True}
    return render(request, "experiments/_progress.html", context)


def _progress_context(experiment) -> dict:
    progress = selectors.experiment_progress(experiment)
    progress["eta_text"] = _duration(progress["eta_s"])
    progress["elapsed_text"] = _duration(progress["elapsed_s"])
    return {
        "experiment": experiment,
        "progress": progress,
        "counts": selectors.result_counts(experiment=experiment),
    }


def _duration(seconds: float | None) -> str:
    """'0.4 s', '42 s', '2 min 5 s', '1 h 3 min': a human figure for an ETA or elapsed time."""
    if seconds is None:
        return ""
    if seconds < 10:  # short runs are common: keep a decimal so they do not read "0 s"
        return _("%(s).1f s") % {"s": seconds}
    seconds = int(round(seconds))
    if seconds < 60:
        return _("%(s)d s") % {"s": seconds}
    if seconds < 3600:
        return _("%(m)d min %(s)d s") % {"m": seconds // 60, "s": seconds % 60}
    return _("%(h)d h %(m)d min") % {"h": seconds // 3600, "m": seconds % 3600 // 60}


def _bindings(experiment) -> list:
    return selectors.bindings_with_summaries(experiment=experiment)


def _results_context(request, experiment, bindings) -> dict:
    """The results grid: one row per item of the page, one column per evaluator."""
    filters = {name: request.GET.get(name, "").strip() for name in RESULT_FILTERS}
    at = {name: request.GET.get(name, "").strip() for name in ("after", "before")}
    error = ""
    try:
        page = grid_page(
            experiment=experiment,
            filters=filters,
            size=GRID_PAGE,
            number=request.GET.get("page"),
            **at,
        )
    except ValidationError as exc:
        page = GridPage(item_pks=[])
        error = "; ".join(error_lines(exc))
    rows = grid_rows(experiment=experiment, bindings=bindings, item_pks=page.item_pks)
    return {
        "grid_page": page,
        "grid": rows,
        "grid_columns": experiment.evalset_version.columns[:GRID_COLUMNS],
        "filters": filters,
        "filter_error": error,
        "sorts": sort_choices(bindings),
        "tags": selectors.result_tags(experiment=experiment),
        "verdicts": Verdict.choices,
        "result_statuses": ResultStatus.choices,
    }


def _clone_form(request, experiment, data=None) -> CloneForm:
    evaluators = []
    for binding in experiment.bindings.select_related("evaluator_version__evaluator"):
        evaluator = binding.evaluator_version.evaluator
        versions = selectors.versions_of(evaluator=evaluator)
        evaluators.append((evaluator, versions, binding.evaluator_version))
    return CloneForm(
        data,
        experiment=experiment,
        evaluators=evaluators,
        evalset_versions=selectors.evalset_version_choices(workspace=request.workspace),
    )


@require_POST
@workspace_view()
def launch(request, id):
    experiment = selectors.experiment_get(workspace=request.workspace, public_id=id)
    return _act(request, experiment, services.experiment_launch, _("Experiment launched."))


@require_POST
@workspace_view()
def cancel(request, id):
    experiment = selectors.experiment_get(workspace=request.workspace, public_id=id)
    success = _("Cancelling: running chunks stop after their current rows.")
    return run_cancel_page(
        request, kind=EXPERIMENT, run=experiment, success=success, page="experiments:detail"
    )


@require_POST
@workspace_view()
def retry(request, id):
    experiment = selectors.experiment_get(workspace=request.workspace, public_id=id)
    return run_retry_page(
        request, kind=EXPERIMENT, run=experiment, success=_retrying, page="experiments:detail"
    )


def _retrying(counts) -> str:
    if not counts.target_rows:
        return _("Retrying %(n)d failed rows.") % {"n": counts.total}
    return _(
        "Retrying %(n)d failed rows: %(target)d target rows are called again, then scored; "
        "%(evaluator)d evaluator rows are scored again."
    ) % {"n": counts.total, "target": counts.target_rows, "evaluator": counts.evaluator_rows}


def _act(request, experiment, action, success: str):
    try:
        action(experiment=experiment)
    except ValidationError as exc:
        messages.error(request, " ".join(exc.messages))
    else:
        messages.success(request, success)
    return redirect("experiments:detail", ws=request.workspace.slug, id=experiment.public_id)


@require_POST
@workspace_view()
def clone(request, id):
    """A new draft with the chosen versions; it opens as a draft to review and launch."""
    experiment = selectors.experiment_get(workspace=request.workspace, public_id=id)
    form = _clone_form(request, experiment, request.POST)
    problem = ""
    if form.is_valid():
        version = selectors.evalset_version_for(
            workspace=request.workspace, public_id=form.cleaned_data["evalset_version"]
        )
        try:
            created = services.experiment_clone(
                experiment=experiment,
                user=request.user,
                name=form.cleaned_data["name"],
                versions=form.versions(),
                evalset_version=version,
            )
        except ValidationError as exc:
            problem = " ".join(error_lines(exc))
        else:
            messages.success(request, _("Cloned as a draft. Review it, then launch."))
            return redirect("experiments:detail", ws=request.workspace.slug, id=created.public_id)
    else:
        problem = " ".join(f"{k}: {' '.join(v)}" for k, v in form.errors.items())
    messages.error(request, _("Could not clone: %(p)s") % {"p": problem})
    return redirect("experiments:detail", ws=request.workspace.slug, id=id)
