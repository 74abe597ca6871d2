"""Experiment pages: the list with live progress and the new-experiment form (the experiment's
own page: `run_page`)."""

from __future__ import annotations

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.core.paginator import Paginator
from django.http import HttpResponse, QueryDict
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from assay.selectors import providers_list
from assay.web.decorators import workspace_view
from assay.web.errors import error_lines

from .. import selectors, services
from ..forms import (
    NewExperimentForm,
    attach_errors,
    binding_plan,
    evaluator_groups,
    plan_bindings,
)
from ..models import ExperimentStatus
from ..selectors.first_run import first_run_steps
from ..targets import TARGETS, target_get

# ----------------------------------------------------------------------------- list


@workspace_view()
def index(request):
    """All experiments with status and progress; the table polls itself while any is active.
    A workspace that never ran one gets the first-run card instead of a bare empty list."""
    context = _list_context(request)
    context["first_run"] = first_run_steps(workspace=request.workspace)
    return render(request, "experiments/list.html", context)


@workspace_view()
def first_run(request):
    """The first-run card alone, for the page a user lands on (the evaluators list asks for it
    once loaded); nothing once the workspace has an experiment."""
    steps = first_run_steps(workspace=request.workspace)
    if steps is None:
        return HttpResponse("")
    return render(request, "experiments/_first_run.html", {"first_run": steps})


@workspace_view()
def list_rows(request):
    """The list's table partial that htmx polls."""
    return render(request, "experiments/_list_table.html", _list_context(request))


def _list_context(request) -> dict:
    status = request.GET.get("status", "")
    status = status if status in ExperimentStatus.values else ""
    evalset, evaluator = _known(request, "evalset"), _known(request, "evaluator")
    rows = selectors.experiment_list(
        workspace=request.workspace, status=status, evalset=evalset, evaluator=evaluator
    )
    page = Paginator(rows, 25).get_page(request.GET.get("page"))
    scores = selectors.experiment_list_scores(experiments=page.object_list)
    return {
        "page": page,
        "rows": [{"experiment": e, "scores": scores.get(e.pk, [])} for e in page.object_list],
        "status": status,
        "statuses": ExperimentStatus.choices,
        "evalset": evalset,
        "evaluator": evaluator,
        "filters": selectors.experiment_filter_choices(workspace=request.workspace),
        "active": selectors.any_active(page.object_list),
    }


def _known(request, name: str) -> str:
    """A filter's id from the query string, when it is one (anything else: no filter)."""
    from assay.selectors import as_uuid

    value = request.GET.get(name, "")
    return value if as_uuid(value) is not None else ""


# ----------------------------------------------------------------------------- new


@workspace_view()
def new(request):
    """Evalset version → target → evaluators with mappings and policies → review → launch.

    One form re-rendered by the server: "Refresh" (or htmx on change) fills in the mapping
    section; "Save as draft" and "Launch" create the experiment.
    """
    choices = _choices(request)
    state = request.POST if request.method == "POST" else _initial_state(request, choices)
    form = NewExperimentForm(
        request.POST or None, initial=_initial_dict(state), workspace=request.workspace, **choices
    )
    plan = _plan(request, state)
    step = request.POST.get("step", "")
    if request.method == "POST" and step in ("draft", "launch"):
        created = _create(request, form, plan, launch=step == "launch")
        if created is not None:
            return redirect("experiments:detail", ws=request.workspace.slug, id=created.public_id)
    context = _new_context(request, form, plan, state)
    status = 400 if request.method == "POST" and step in ("draft", "launch") else 200
    return render(request, "experiments/new.html", context, status=status)


@require_POST
@workspace_view()
def new_plan(request):
    """The mapping + review section for the posted choices (htmx swaps it in place)."""
    plan = _plan(request, request.POST)
    if not request.POST.get("regroup"):
        context = _new_context(request, None, plan, request.POST)
        return render(request, "experiments/_plan.html", context)
    # the evalset or the target changed: the picker's groups change with them (out of band)
    form = NewExperimentForm(request.POST, workspace=request.workspace, **_choices(request))
    context = _new_context(request, form, plan, request.POST)
    return render(request, "experiments/_plan_regroup.html", context)


def _choices(request) -> dict:
    if not hasattr(request, "experiment_choices"):  # read once per request
        request.experiment_choices = {
            "evalset_versions": selectors.evalset_version_choices(workspace=request.workspace),
            "evaluator_versions": selectors.evaluator_version_choices(workspace=request.workspace),
        }
    return request.experiment_choices


def _initial_state(request, choices) -> QueryDict:
    """GET parameters (evalset_version, evaluator_versions) with sensible defaults."""
    state = request.GET.copy()
    if not state.get("evalset_version") and choices["evalset_versions"]:
        state["evalset_version"] = str(_latest_committed(choices["evalset_versions"]).public_id)
    state.setdefault("target_kind", "none")
    state.setdefault("concurrency", "8")
    state.setdefault("chunk_size", "1000")
    state.setdefault("repetitions", "1")
    provider = providers_list(workspace=request.workspace).first()
    if provider is not None:
        state.setdefault("provider", str(provider.public_id))
    return state


def _latest_committed(versions):
    """The version committed last (a ready one before one still copying its rows): the set a
    user just made is the one they mean."""
    return max(versions, key=lambda v: (v.is_ready, v.committed_at or v.created_at, v.pk))


def _initial_dict(state: QueryDict) -> dict:
    initial = state.dict()
    initial["evaluator_versions"] = state.getlist("evaluator_versions")
    return initial


def _plan(request, state) -> list[dict]:
    version = selectors.evalset_version_for(
        workspace=request.workspace, public_id=state.get("evalset_version")
    )
    chosen = []
    for public_id in state.getlist("evaluator_versions"):
        found = selectors.evaluator_version_for(workspace=request.workspace, public_id=public_id)
        if found is not None:
            chosen.append(found)
    return binding_plan(
        data=state,
        evalset_version=version,
        versions=chosen,
        target_outputs=_target_outputs(state),
        remembered=_remembered(request, version),
    )


def _remembered(request, version) -> dict:
    evalset = version.evalset if version is not None else None
    return selectors.mapping_remembered(workspace=request.workspace, evalset=evalset)


def _target_label(state) -> str:
    try:
        return str(target_get(state.get("target_kind")).label)
    except ValueError:
        return str(target_get("none").label)


def _repetitions(state) -> int:
    try:
        return max(1, int(state.get("repetitions") or 1))
    except (TypeError, ValueError):
        return 1


def _target_outputs(state) -> tuple[str, ...]:
    """What the chosen target produces for bindings to map (unknown kinds: nothing)."""
    try:
        return target_get(state.get("target_kind")).outputs
    except ValueError:
        return ()


def _create(request, form, plan, *, launch: bool):
    if not form.is_valid():
        return None
    data = form.cleaned_data
    version = selectors.evalset_version_for(
        workspace=request.workspace, public_id=data["evalset_version"]
    )
    try:
        experiment = services.experiment_create(
            workspace=request.workspace,
            user=request.user,
            name=data["name"],
            description=data["description"],
            evalset_version=version,
            bindings=plan_bindings(plan),
            target=form.target(),
            concurrency=data["concurrency"],
            chunk_size=data["chunk_size"],
            repetitions=data.get("repetitions") or 1,
            launch=launch,
        )
    except ValidationError as exc:
        attach_errors(form, plan, exc)
        return None
    messages.success(request, _("Experiment launched.") if launch else _("Draft saved."))
    return experiment


def _new_context(request, form, plan, state) -> dict:
    version = selectors.evalset_version_for(
        workspace=request.workspace, public_id=state.get("evalset_version")
    )
    return {
        "form": form,
        "plan": plan,
        "evaluator_groups": _evaluator_groups(request, form, version, state),
        "evalset_version": version,
        "target_label": _target_label(state),
        "repetitions": _repetitions(state),
        "total_results": version.item_count * len(plan) * _repetitions(state) if version else 0,
        "policy_kinds": [("threshold", _("Threshold")), ("zero_tolerance", _("Zero tolerance"))],
        "target_panels": [
            {"name": spec.name, "template": spec.form_template}
            for spec in TARGETS.values()
            if spec.in_new_form and spec.form_template
        ],
    }


def _evaluator_groups(request, form, version, state) -> list[dict]:
    """The picker's checkboxes grouped by whether they fit the chosen set and target."""
    if form is None:
        return []
    groups = evaluator_groups(
        versions=_choices(request)["evaluator_versions"],
        evalset_version=version,
        target_outputs=_target_outputs(state),
        remembered=_remembered(request, version),
    )
    return form.evaluator_groups(groups)


@require_POST
@workspace_view()
def target_test(request):
    """The new-experiment page's "Test request": the posted target on one row, nothing saved."""
    form = NewExperimentForm(request.POST, workspace=request.workspace, **_choices(request))
    version = selectors.evalset_version_for(
        workspace=request.workspace, public_id=request.POST.get("evalset_version")
    )
    form.is_valid()  # the target's own fields decide; evaluators may still be unchosen
    problems = [e for f in form.errors for e in form.errors[f] if f not in TRY_IGNORES]
    if version is None or problems:
        errors = problems or [_("Choose an evalset version first.")]
        return render(request, TEST_PARTIAL, {"errors": errors}, status=400)
    return target_try(request, version, form.target())


TRY_IGNORES = {"name", "evaluator_versions"}
TEST_PARTIAL = "experiments/targets/_test_result.html"


def target_try(request, version, target, item_id=None):
    try:
        tried = services.target_test(
            workspace=request.workspace, evalset_version=version, target=target, item_id=item_id
        )
    except ValidationError as exc:
        return render(request, TEST_PARTIAL, {"errors": error_lines(exc)}, status=400)
    return render(request, TEST_PARTIAL, {"tried": tried})
