"""The templates' pages: the list, a new template, a template's page (its set-up, launch,
schedules with their next times, pause/resume, the run history with each comparison), and
"Save as template" from an experiment's page."""

from __future__ import annotations

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.shortcuts import redirect, render
from django.utils import timezone
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from assay.web.decorators import workspace_view
from assay.web.errors import error_items, form_service
from experiments.selectors import experiment_get
from experiments.selectors.resolving import evalset_version_choices, evaluator_version_choices

from . import selectors, services
from .forms import FromExperimentForm, ScheduleForm, TemplateForm, TemplateSettingsForm


@workspace_view()
def template_list(request):
    """Every template of the workspace with its schedules and its newest run."""
    rows = []
    for t in selectors.template_list(workspace=request.workspace).prefetch_related("schedules"):
        last = t.runs.select_related("experiment", "blocked_by").first()
        if last is not None:
            last.reasons = selectors.undecided_reasons(run=last)
        rows.append({"template": t, "last": last})
    return render(request, "schedules/list.html", {"rows": rows})


@workspace_view()
def template_new(request):
    """A template from an evalset version and evaluator versions (mapped by name)."""
    form = TemplateForm(
        request.POST if request.method == "POST" else None,
        evalset_versions=evalset_version_choices(workspace=request.workspace),
        evaluator_versions=evaluator_version_choices(workspace=request.workspace),
    )
    if request.method == "POST" and form.is_valid():
        template = form_service(
            form,
            services.template_create,
            workspace=request.workspace,
            user=request.user,
            setup=_setup(request, form.cleaned_data),
        )
        if template is not None:
            return redirect("schedules:detail", ws=request.workspace.slug, id=template.public_id)
    status = 400 if form.errors else 200
    return render(request, "schedules/new.html", {"form": form}, status=status)


def _setup(request, data: dict) -> dict:
    latest = data["evaluators_latest"]
    body = {
        **{k: data[k] for k in ("name", "evalset_version", "evalset_latest", "repetitions")},
        "concurrency": data["concurrency"],
        "name_pattern": data["name_pattern"],
        "bindings": [
            {"evaluator_version": v, "latest": latest} for v in data["evaluator_versions"]
        ],
    }
    return selectors.versions_resolved(workspace=request.workspace, data=body)


@workspace_view()
def template_detail(request, id):
    """A template: its set-up, schedules with their next five times, and its runs."""
    template = selectors.template_get(workspace=request.workspace, public_id=id)
    return _detail(request, template)


def _detail(request, template, *, settings=None, schedule_form=None, status: int = 200):
    now = timezone.now()
    schedules = [
        {"schedule": s, "next": services.schedule_next_times(schedule=s, now=now)}
        for s in template.schedules.all()
    ]
    context = {
        "template": template,
        "bindings": template.bindings.select_related("evaluator", "evaluator_version"),
        "schedules": schedules,
        "runs": selectors.template_runs(template=template),
        "settings_form": settings or _settings_form(template),
        "schedule_form": schedule_form or ScheduleForm(),
    }
    return render(request, "schedules/detail.html", context, status=status)


def _settings_form(template, data=None) -> TemplateSettingsForm:
    initial = {
        "name_pattern": template.name_pattern,
        "baseline": str(template.baseline.public_id) if template.baseline else "",
    }
    baselines = selectors.baseline_choices(template=template)
    return TemplateSettingsForm(data, initial=initial, baselines=baselines)


@require_POST
@workspace_view()
def template_settings(request, id):
    """Change the run name pattern and the baseline."""
    template = selectors.template_get(workspace=request.workspace, public_id=id)
    form = _settings_form(template, request.POST)
    if form.is_valid():
        changes = selectors.versions_resolved(
            workspace=request.workspace, data=dict(form.cleaned_data)
        )
        changes.setdefault("baseline", None)
        if form_service(form, services.template_update, template=template, changes=changes):
            return redirect("schedules:detail", ws=request.workspace.slug, id=template.public_id)
    return _detail(request, template, settings=form, status=400)


@require_POST
@workspace_view()
def template_launch(request, id):
    """Launch a run from the template now."""
    template = selectors.template_get(workspace=request.workspace, public_id=id)
    try:
        run = services.template_launch(template=template, user=request.user, now=timezone.now())
    except ValidationError as exc:
        _problems(request, exc)
        return redirect("schedules:detail", ws=request.workspace.slug, id=template.public_id)
    return redirect("experiments:detail", ws=request.workspace.slug, id=run.experiment.public_id)


def _problems(request, exc: ValidationError) -> None:
    for field, problems in error_items(exc).items():
        text = " ".join(problems)
        messages.error(request, text if field == "__all__" else f"{field}: {text}")


@require_POST
@workspace_view()
def template_delete(request, id):
    """Delete the template, its schedules and its history (the experiments stay)."""
    template = selectors.template_get(workspace=request.workspace, public_id=id)
    services.template_delete(template=template)
    return redirect("schedules:list", ws=request.workspace.slug)


@require_POST
@workspace_view()
def template_from_experiment(request, id):
    """ "Save as template" on an experiment's page."""
    experiment = experiment_get(workspace=request.workspace, public_id=id)
    form = FromExperimentForm(request.POST)
    try:
        name = form.cleaned_data["name"] if form.is_valid() else ""
        template = services.template_from_experiment(
            experiment=experiment, user=request.user, name=name
        )
    except ValidationError as exc:
        _problems(request, exc)
        return redirect("experiments:detail", ws=request.workspace.slug, id=experiment.public_id)
    messages.success(request, _("Saved as a template."))
    return redirect("schedules:detail", ws=request.workspace.slug, id=template.public_id)


@require_POST
@workspace_view()
def schedule_add(request, id):
    """Add a cron schedule to the template."""
    template = selectors.template_get(workspace=request.workspace, public_id=id)
    form = ScheduleForm(request.POST)
    if form.is_valid():
        made = form_service(
            form,
            services.schedule_create,
            template=template,
            user=request.user,
            now=timezone.now(),
            **form.cleaned_data,
        )
        if made is not None:
            return redirect("schedules:detail", ws=request.workspace.slug, id=template.public_id)
    return _detail(request, template, schedule_form=form, status=400)


@require_POST
@workspace_view()
def schedule_toggle(request, id, schedule_id):
    """Pause a schedule, or resume it from the next time after now."""
    template = selectors.template_get(workspace=request.workspace, public_id=id)
    schedule = selectors.schedule_get(template=template, public_id=schedule_id)
    services.schedule_pause(schedule=schedule, paused=not schedule.paused, now=timezone.now())
    return redirect("schedules:detail", ws=request.workspace.slug, id=template.public_id)


@require_POST
@workspace_view()
def schedule_delete(request, id, schedule_id):
    """Delete a schedule (its runs stay in the history)."""
    template = selectors.template_get(workspace=request.workspace, public_id=id)
    schedule = selectors.schedule_get(template=template, public_id=schedule_id)
    services.schedule_delete(schedule=schedule)
    return redirect("schedules:detail", ws=request.workspace.slug, id=template.public_id)
