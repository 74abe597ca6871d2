"""Pairwise pages: the list, the new-run form, a run's page (the win / tie / lose bars with
their intervals, p-values in words, position bias, the leaderboard, live progress), its rows
and one pair, cancel, retry and the exports."""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.core.paginator import Paginator
from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from assay.safety.csvcells import excel_wanted
from assay.vocabulary import PairOutcome, ResultStatus
from assay.web.decorators import workspace_view
from assay.web.errors import add_errors, error_lines

from ..selectors.mappings import mapping_of_experiments
from ..views.run_actions import run_cancel_page, run_retry_page
from . import selectors, services
from .cards import leaderboard_rows, pair_cards, strong_position_bias, ties_mode
from .exports import FORMATS, pairwise_export_response
from .forms import (
    NewPairwiseRunForm,
    field_for,
    mapping_columns,
    mapping_rows,
    posted_mapping,
)
from .work import PAIRWISE

ROWS_PAGE = 25


@workspace_view()
def index(request):
    """Every pairwise run of the workspace, newest first."""
    runs = selectors.pairwise_run_list(workspace=request.workspace)
    page = Paginator(runs, 25).get_page(request.GET.get("page"))
    return render(
        request, "experiments/pairwise_list.html", {"page": page, "runs": page.object_list}
    )


@workspace_view()
def new(request):
    """Choose an evalset, its baseline and the experiments to judge against it, a pairwise
    judge and where its other variables come from; only finished experiments with target
    outputs are offered, and the mapping starts from the experiments' own."""
    groups = selectors.pairwise_candidates(workspace=request.workspace)
    judges = selectors.pairwise_judge_choices(workspace=request.workspace)
    state = request.POST if request.method == "POST" else request.GET
    evalset = state.get("evalset") or (str(groups[0]["evalset"].public_id) if groups else "")
    initial = {"evalset": evalset, "repetitions": 1, **_prefill(request)}
    form = NewPairwiseRunForm(
        request.POST or None, initial=initial, groups=groups, judges=judges, evalset=evalset
    )
    rows = _mapping_rows(request, form, judges)
    errors: list[str] = []
    if request.method == "POST" and form.is_valid():
        run = _create(request, form, rows, errors)
        if run is not None:
            return redirect("pairwise:detail", ws=request.workspace.slug, id=run.public_id)
    context = {
        "form": form,
        "groups": groups,
        "judges": judges,
        "mapping_rows": rows,
        "mapping_errors": errors,
        "baseline": form.baseline_value(),
    }
    return render(request, "experiments/pairwise_new.html", context, status=_status(request, form))


def _prefill(request) -> dict:
    """?experiments=<baseline>&experiments=<other>… from the compare page's link."""
    chosen = request.GET.getlist("experiments")
    return {"baseline": chosen[0], "others": chosen[1:]} if chosen else {}


def _mapping_rows(request, form, judges) -> list[dict]:
    """The judges' variables with their columns; the suggestion reads the chosen (or
    prefilled) experiments' mappings first, then the rest of the evalset's."""
    chosen = [form.baseline_value(), *(form["others"].value() or [])]
    rank = {public_id: i for i, public_id in enumerate(chosen)}
    ordered = sorted(form.experiments, key=lambda e: rank.get(str(e.public_id), len(rank)))
    return mapping_rows(
        judges=judges,
        columns=mapping_columns(form.experiments),
        data=request.POST if request.method == "POST" else None,
        remembered=mapping_of_experiments(experiments=ordered),
    )


def _status(request, form) -> int:
    return 400 if request.method == "POST" and form.errors else 200


def _create(request, form, rows, errors: list):
    """The run, or None with the service's problems on the form (the mapping's in `errors`,
    shown beside the dropdowns)."""
    data = form.cleaned_data
    found = selectors.pairwise_inputs(
        workspace=request.workspace,
        experiments=form.experiment_ids(),
        evaluator_version=data["evaluator_version"],
    )
    try:
        return services.pairwise_run_create(
            workspace=request.workspace,
            user=request.user,
            name=data["name"],
            repetitions=data["repetitions"],
            mapping=posted_mapping(judge=found["evaluator_version"], rows=rows),
            **found,
        )
    except ValidationError as exc:
        problems = dict(exc.message_dict)
        errors.extend(problems.pop("mapping", []))
        add_errors(form, ValidationError(problems), field_for=field_for)
        if errors:
            form.add_error(None, _("Check the mapping below."))
        return None


@workspace_view()
def detail(request, id):
    """A run: per pair the stacked bar with B's win rate and its interval, the sign test in
    words and the judge's position bias; the leaderboard with three or more experiments."""
    run = selectors.pairwise_run_get(workspace=request.workspace, public_id=id)
    ties = ties_mode(request.GET.get("ties"))
    context = {
        "run": run,
        "experiments": selectors.run_experiments(run=run),
        "ties": ties,
        "cards": pair_cards(run=run, ties=ties),
        "leaderboard": leaderboard_rows(run=run),
        "bias": run.summary.get("position_bias"),
        "bias_strong": strong_position_bias(run.summary.get("position_bias")),
        "failed": run.results.filter(status__in=[ResultStatus.ERROR, ResultStatus.TIMEOUT]).count(),
    }
    return render(request, "experiments/pairwise_detail.html", context)


@workspace_view()
def progress(request, id):
    """The progress partial htmx polls; once the run has finished the page reloads in full."""
    run = selectors.pairwise_run_get(workspace=request.workspace, public_id=id)
    if request.GET.get("active") == "1" and not run.is_active:
        response = HttpResponse(status=204)
        response["HX-Refresh"] = "true"  # the statistics are now stored
        return response
    ties = ties_mode(request.GET.get("ties"))
    context = {"run": run, "cards": pair_cards(run=run, ties=ties), "ties": ties, "polled": True}
    return render(request, "experiments/_pairwise_progress.html", context)


ROW_FILTERS = ("outcome", "inconsistent", "pair", "status")


@workspace_view()
def rows(request, id):
    """The judged pairs: the input once, both outputs side by side with the outcome, the
    reason and both orders' answers; filters by outcome, inconsistency, pair and status."""
    run = selectors.pairwise_run_get(workspace=request.workspace, public_id=id)
    params = {name: request.GET.get(name, "") for name in ROW_FILTERS}
    try:
        found = selectors.pairwise_results_list(run=run, **params)
        errors = []
    except ValidationError as exc:
        found, errors = run.results.none(), error_lines(exc)
    page = Paginator(found, ROWS_PAGE).get_page(request.GET.get("page"))
    experiments = selectors.run_experiments(run=run)
    context = {
        "run": run,
        "page": page,
        "pairs": page.object_list,
        "params": params,
        "errors": errors,
        "pair_choices": _pair_choices(experiments),
        "outcomes": PairOutcome.choices,
        "statuses": ResultStatus.choices,
    }
    return render(request, "experiments/pairwise_rows.html", context, status=400 if errors else 200)


def _pair_choices(experiments) -> list[tuple[str, str]]:
    return [
        (f"{a.public_id}:{b.public_id}", f"{b.name} vs {a.name}")
        for i, a in enumerate(experiments)
        for b in experiments[i + 1 :]
    ]


@workspace_view()
def row(request, id, result_id):
    """One judged pair in full: the turn, both outputs, and each order's prompt and answer."""
    run = selectors.pairwise_run_get(workspace=request.workspace, public_id=id)
    pair = selectors.pairwise_result_get(run=run, result_id=result_id)
    return render(request, "experiments/pairwise_row.html", {"run": run, "pair": pair})


@require_POST
@workspace_view()
def cancel(request, id):
    run = selectors.pairwise_run_get(workspace=request.workspace, public_id=id)
    success = _("Cancelling: the calls in flight are dropped.")
    return run_cancel_page(request, kind=PAIRWISE, run=run, success=success, page="pairwise:detail")


@require_POST
@workspace_view()
def retry(request, id):
    run = selectors.pairwise_run_get(workspace=request.workspace, public_id=id)
    return run_retry_page(
        request, kind=PAIRWISE, run=run, success=_judging_again, page="pairwise:detail"
    )


def _judging_again(count: int) -> str:
    return _("Judging %(n)d failed pairs again.") % {"n": count}


@workspace_view()
def export(request, id, fmt):
    """Streamed pairs.csv or pairs.jsonl."""
    if fmt not in FORMATS:
        raise Http404(_("No such export"))
    run = selectors.pairwise_run_get(workspace=request.workspace, public_id=id)
    return pairwise_export_response(run, fmt, excel=excel_wanted(request.GET))
