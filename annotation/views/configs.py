"""The score config pages, under /w/<workspace>/annotation/configs/: the list (kind, labels or
range, rubric, verdict mapping, use), a form to make and one to change a config, and delete.
They translate the form into `services/configs.py` and its problems onto the form's fields;
every member reads, editors and owners write (`workspace_view`)."""

from __future__ import annotations

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import Http404
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST, require_safe

from assay.web.decorators import workspace_view

from .. import services
from ..models import ScoreConfig
from ..selectors.configs import score_config_with_use, score_configs_with_use
from ..services.configs import LABEL_SHAPE
from .config_forms import ScoreConfigForm
from .pair_forms import problems_shown


@workspace_view()
@require_safe
def config_list(request):
    """Every score config of the workspace and how much it is used."""
    configs = score_configs_with_use(workspace=request.workspace)
    return render(request, "annotation/configs.html", {"configs": configs})


@workspace_view()
@require_http_methods(["GET", "HEAD", "POST"])
def config_new(request):
    """A new score config of any kind (editors); `?kind=` picks the kind shown first."""
    initial = {"kind": request.GET.get("kind", "boolean")}
    form = ScoreConfigForm(request.POST or None, initial=initial)
    if request.method == "POST" and form.is_valid():
        try:
            services.score_config_create(
                workspace=request.workspace, user=request.user, fields=form.fields_for_services()
            )
        except ValidationError as problems:
            problems_shown(form, problems.message_dict)
        else:
            messages.success(request, _("Score config made."))
            return redirect("annotation:configs", ws=request.workspace.slug)
    return _form_page(request, form, config=None)


@workspace_view()
@require_http_methods(["GET", "HEAD", "POST"])
def config_edit(request, config_id):
    """Change a config (editors): its kind stays, and its labels and range once used."""
    config = _config(request, config_id)
    form = ScoreConfigForm(request.POST or None, initial=ScoreConfigForm.initial_of(config))
    if request.method == "POST" and form.is_valid():
        try:
            services.score_config_update(config=config, fields=_changed(config, form))
        except ValidationError as problems:
            problems_shown(form, problems.message_dict)
        else:
            messages.success(request, _("Score config saved."))
            return redirect("annotation:configs", ws=request.workspace.slug)
    return _form_page(request, form, config=config)


@workspace_view()
@require_POST
def config_delete(request, config_id):
    """Delete a config no queue asks for (editors); else its page says why, 400."""
    config = _config(request, config_id)
    try:
        services.score_config_delete(config=config)
    except ValidationError as problem:
        form = ScoreConfigForm(initial=ScoreConfigForm.initial_of(config))
        return _form_page(request, form, config=config, delete_problems=problem.messages)
    messages.success(request, _("Score config deleted."))
    return redirect("annotation:configs", ws=request.workspace.slug)


def _config(request, config_id) -> ScoreConfig:
    config = score_config_with_use(workspace=request.workspace, public_id=config_id)
    if config is None:
        raise Http404(_("No such score config in this workspace."))
    return config


def _changed(config: ScoreConfig, form: ScoreConfigForm) -> dict:
    """Only what differs from the config: an unchanged mapping must not refresh the queues'
    gold calibrations, and an unchanged range of a used config is no change."""
    fields = form.fields_for_services()
    return {name: value for name, value in fields.items() if value != getattr(config, name)}


def _form_page(request, form, *, config, delete_problems=()):
    if config is not None and config.label_count:  # the services refuse a change; say so first
        for name in LABEL_SHAPE:
            form.fields[name].widget.attrs["readonly"] = True
    context = {"form": form, "config": config, "delete_problems": delete_problems}
    failed = form.errors or delete_problems
    return render(request, "annotation/configs_form.html", context, status=400 if failed else 200)
