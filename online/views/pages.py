"""The online rules' pages: the list, a new rule (from scratch or from a span), a rule's page
(its monitor, recent outcomes, its alerts), pause/resume and delete; an alert's history."""

from __future__ import annotations

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.core.paginator import Paginator
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from assay.web.decorators import workspace_view
from assay.web.errors import add_errors, form_service

from .. import selectors, services
from ..models import SkipReason
from .forms import AlertForm, BackfillForm, OnlineRuleForm, mapping_rows, posted_evaluators, prefill

WINDOW_COUNTS = {"hour": 24, "day": 14, "week": 8}
OUTCOMES_PAGE = 25


@workspace_view()
def rule_list(request):
    """Every rule of the workspace, with its last day's verdicts."""
    rules = list(selectors.online_rules_list(workspace=request.workspace))
    rows = [{"rule": rule, "latest": selectors.rule_latest(rule=rule)} for rule in rules]
    return render(request, "online/list.html", {"rows": rows})


@workspace_view()
def rule_new(request):
    """A new span, trace or session rule: choose the evaluator versions ("Choose the mapping"
    shows a select per variable), then create; `?kind=…&name=…&model=…` starts from a span."""
    versions = selectors.rule_version_choices(workspace=request.workspace)
    posted = request.POST if request.method == "POST" else None
    form = OnlineRuleForm(posted, initial=_initial(request), versions=versions)
    keys = selectors.recent_attribute_keys(workspace=request.workspace)
    rows = mapping_rows(
        versions=form.chosen(), scope=form.chosen_scope(), data=posted, attribute_keys=keys
    )
    errors: list[str] = []
    if posted is not None and posted.get("step") == "create" and form.is_valid():
        rule = _create(request, form, rows, errors)
        if rule is not None:
            return redirect("online:detail", ws=request.workspace.slug, id=rule.public_id)
    failed = posted is not None and posted.get("step") == "create"
    context = {"form": form, "mapping_rows": rows, "mapping_errors": errors}
    return render(request, "online/new.html", context, status=400 if failed else 200)


def _initial(request) -> dict:
    """The form's start: from a span (`?trace=…&span=…`, the trace page's "score spans like
    this") or from fields in the query (`?kind=llm&name=chat`)."""
    query = request.GET
    if query.get("trace") and query.get("span"):
        query = selectors.span_prefill(
            workspace=request.workspace, trace_id=query["trace"], span_id=query["span"]
        )
    return prefill(query)


def _create(request, form, rows, errors: list):
    """The rule, or None with the service's problems on the form and beside the mapping."""
    try:
        return services.online_rule_create(
            workspace=request.workspace,
            user=request.user,
            fields=form.rule_fields(),
            evaluators=posted_evaluators(versions=form.chosen(), rows=rows),
        )
    except ValidationError as exc:
        problems = dict(exc.message_dict)
        for path in [p for p in problems if p.startswith("evaluators")]:
            errors.extend(problems.pop(path))
        aliases = {"sampling_rate": "sampling_percent", "evaluators": "evaluator_versions"}
        add_errors(form, ValidationError(problems), aliases=aliases)
        if errors:
            form.add_error(None, _("Check the mapping below."))
        return None


@workspace_view()
def rule_detail(request, id):
    """A rule: per evaluator its windows (pass rate with interval and denominator, the
    calibrated rate, volume, sampled share, skips, cost, latencies, change markers) and the
    latest outcomes."""
    rule = selectors.online_rule_get(workspace=request.workspace, public_id=id)
    return rule_detail_page(request, rule, backfill=BackfillForm(), estimate=None)


def rule_detail_page(request, rule, *, backfill, estimate, alert_form=None, status: int = 200):
    window = request.GET.get("window") if request.GET.get("window") in WINDOW_COUNTS else "day"
    monitor = selectors.rule_monitor(
        rule=rule, window=window, count=WINDOW_COUNTS[window], now=timezone.now()
    )
    outcomes = selectors.rule_outcomes(rule=rule, filters={})
    page = Paginator(outcomes, OUTCOMES_PAGE).get_page(request.GET.get("page"))
    context = {
        "rule": rule,
        "window": window,
        "windows": list(WINDOW_COUNTS),
        "monitor": [{**row, "windows": _shown(row["windows"])} for row in monitor],
        "page": page,
        "backfill": backfill,
        "estimate": estimate,
        "alerts": selectors.rule_alerts(rule=rule),
        "alert_form": alert_form or AlertForm(rule=rule),
    }
    return render(request, "online/detail.html", context, status=status)


def _shown(windows: list[dict]) -> list[dict]:
    """Windows newest first, as the page words them: pass rates (the page speaks of passing,
    the statistics of failing) and skips with their labels."""
    labels = dict(SkipReason.choices)
    return [
        {
            **w,
            "passed": _passing(w["raw"]),
            "calibrated_passed": _passing(w["calibrated"]),
            "skip_rows": [(labels.get(k, k), n) for k, n in sorted(w["skips"].items())],
        }
        for w in reversed(windows)
    ]


def _passing(rate) -> dict | None:
    if rate is None:
        return None
    return {"rate": 1 - rate.rate, "low": 1 - rate.upper, "high": 1 - rate.lower}


@require_POST
@workspace_view()
def rule_backfill(request, id):
    """Estimate a backfill ("Estimate"), or launch it ("Start backfill"); the estimate and any
    problem are shown on the rule's page."""
    rule = selectors.online_rule_get(workspace=request.workspace, public_id=id)
    form = BackfillForm(request.POST)
    estimate = None
    if form.is_valid():
        start = request.POST.get("step") == "start"
        result = form_service(
            form, services.online_backfill, rule=rule, start=start, **form.cleaned_data
        )
        if result is not None and result[1] is not None:
            messages.success(
                request, _("Backfill started: %(n)s items.") % {"n": result[0].sampled}
            )
            return redirect("online:detail", ws=request.workspace.slug, id=rule.public_id)
        estimate = result[0] if result else None
    return rule_detail_page(
        request, rule, backfill=form, estimate=estimate, status=400 if form.errors else 200
    )


@require_POST
@workspace_view()
def rule_toggle(request, id):
    """Pause an active rule, or resume a paused one."""
    rule = selectors.online_rule_get(workspace=request.workspace, public_id=id)
    services.online_rule_update(rule=rule, fields={"active": not rule.active}, evaluators=None)
    return redirect("online:detail", ws=request.workspace.slug, id=rule.public_id)


@require_POST
@workspace_view()
def rule_delete(request, id):
    """Delete a rule and its outcomes."""
    rule = selectors.online_rule_get(workspace=request.workspace, public_id=id)
    services.online_rule_delete(rule=rule)
    return redirect("online:list", ws=request.workspace.slug)


# ----------------------------------------------------------------------------- alerts


@require_POST
@workspace_view()
def alert_new(request, id):
    """Add an alert from the rule's page; the problems are shown there (nothing saved)."""
    rule = selectors.online_rule_get(workspace=request.workspace, public_id=id)
    form = AlertForm(request.POST, rule=rule)
    if form.is_valid() and _alert_saved(
        form, services.rule_alert_create, rule=rule, user=request.user
    ):
        messages.success(request, _("Alert added."))
        return redirect(_rule_url(request, rule) + "#alerts")
    return rule_detail_page(
        request, rule, backfill=BackfillForm(), estimate=None, alert_form=form, status=400
    )


@workspace_view()
def alert_detail(request, id, alert_id):
    """An alert's history (each window it fired or resolved on) and, for editors, its
    settings to change."""
    rule = selectors.online_rule_get(workspace=request.workspace, public_id=id)
    alert = selectors.rule_alert_get(rule=rule, public_id=alert_id)
    form = AlertForm.of(alert, rule=rule)
    if request.method == "POST":
        form = AlertForm(request.POST, rule=rule)
        if form.is_valid() and _alert_saved(form, services.rule_alert_update, alert=alert):
            messages.success(request, _("Alert saved."))
            return redirect(request.path)
    events = Paginator(selectors.alert_events(alert=alert), OUTCOMES_PAGE)
    context = {
        "rule": rule,
        "alert": alert,
        "form": form,
        "page": events.get_page(request.GET.get("page")),
    }
    return render(request, "online/alert.html", context, status=400 if form.errors else 200)


def _alert_saved(form, service, **kwargs) -> bool:
    """The service called with the form's fields; its problems put on the form."""
    try:
        service(fields=form.alert_fields(), **kwargs)
    except ValidationError as exc:
        add_errors(form, exc, aliases=AlertForm.ALIASES)
        return False
    return True


@require_POST
@workspace_view()
def alert_delete(request, id, alert_id):
    """Delete an alert with its history."""
    rule = selectors.online_rule_get(workspace=request.workspace, public_id=id)
    services.rule_alert_delete(alert=selectors.rule_alert_get(rule=rule, public_id=alert_id))
    return redirect(_rule_url(request, rule) + "#alerts")


def _rule_url(request, rule) -> str:
    return reverse("online:detail", kwargs={"ws": request.workspace.slug, "id": rule.public_id})
