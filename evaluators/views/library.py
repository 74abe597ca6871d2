"""Evaluator pages: library list, new (templates / custom), draft editor, versions and diff."""

from __future__ import annotations

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.core.paginator import Paginator
from django.shortcuts import redirect, render
from django.utils.translation import gettext
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from assay.selectors import library_version_get, library_versions
from assay.web.decorators import workspace_view
from assay.web.errors import add_errors, form_service

from .. import selectors, services, turns
from ..kinds import KINDS, kind_choices
from ..panels import version_panels_render
from ..policies import describe_policy
from ..turns import sample_turn
from .forms import EvaluatorDraftForm, NewEvaluatorForm, SubmitVersionForm


@workspace_view()
def index(request):
    """The library: search, filters, sort, pagination, and a switch to deleted evaluators."""
    params = request.GET
    filters = {key: params.get(key, "") for key in ("q", "kind", "tag", "creator")}
    sort, deleted = params.get("sort", "updated"), params.get("deleted") == "1"
    rows = selectors.evaluator_list(
        workspace=request.workspace,
        search=filters["q"],
        kind=filters["kind"],
        tag=filters["tag"],
        creator=filters["creator"],
        sort=sort,
        deleted=deleted,
    )
    page = Paginator(rows, 25).get_page(params.get("page"))
    return render(
        request,
        "evaluators/list.html",
        {
            "page": page,
            "filters": filters,
            "sort": sort,
            "deleted": deleted,
            "tags": selectors.workspace_tags(workspace=request.workspace),
            "creators": selectors.workspace_creators(workspace=request.workspace),
            "kinds": kind_choices(),
        },
    )


@workspace_view()
def new(request):
    """Choose a template card, a custom LLM judge or custom code; then name it."""
    form = NewEvaluatorForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        evaluator = form_service(form, _create_from_choice, request=request, data=form.cleaned_data)
        if evaluator is not None:
            messages.success(
                request, _("Evaluator created. Edit the draft, then submit a version.")
            )
            return redirect("evaluators:detail", ws=request.workspace.slug, id=evaluator.public_id)
    return render(
        request,
        "evaluators/new.html",
        {
            "form": form,
            "templates": selectors.template_list(),
            # The draft's prompt starts in the interface's language unless the user picks.
            "prompt_locale": form["prompt_locale"].value()
            or services.prompt_locale_resolve(prompt_locale=None),
        },
    )


def _create_from_choice(request, data: dict):
    """The form's one choice: `template:<slug>` or a kind."""
    source = data["source"]
    template = source.removeprefix("template:") if source.startswith("template:") else None
    if template is None and source not in KINDS:
        raise ValidationError(
            {"source": gettext("Choose a template, a custom LLM judge or custom code.")}
        )
    return services.evaluator_create_from_choice(
        workspace=request.workspace,
        user=request.user,
        name=data["name"],
        template=template,
        kind=None if template else source,
        language=data.get("language") or None,
        prompt_locale=data.get("prompt_locale") or None,
    )


@workspace_view()
def detail(request, id):
    """The draft editor; POST saves the draft (editors only)."""
    evaluator = selectors.evaluator_get(workspace=request.workspace, public_id=id)
    if request.method == "POST":
        form = EvaluatorDraftForm(request.POST)
        if form.is_valid():
            if form_service(
                form,
                services.evaluator_update_draft,
                evaluator=evaluator,
                user=request.user,
                **form.service_fields(),
            ):
                messages.success(request, _("Draft saved."))
                return redirect("evaluators:detail", ws=request.workspace.slug, id=id)
            evaluator.refresh_from_db()
    else:
        form = EvaluatorDraftForm(initial=EvaluatorDraftForm.initial_for(evaluator))
    return render(request, "evaluators/detail.html", _detail_context(request, evaluator, form))


def _detail_context(request, evaluator, form, submit_form=None) -> dict:
    spec = evaluator.kind_spec
    return {
        **spec.editor_context(workspace=request.workspace),
        "editor_template": spec.editor_template,
        "evaluator": evaluator,
        "form": form,
        "tab": "draft",
        "submit_form": submit_form
        or SubmitVersionForm(initial={"version": services.next_version(evaluator)}),
        "problems": services.submit_problems(evaluator=evaluator) if not form.errors else {},
        "versions": library_versions(item=evaluator),
        "policy_text": describe_policy(evaluator.default_policy, evaluator.score_meaning),
        "sample_turns": [sample_turn(evaluator.draft_config)],
        "turn_shape": turns.for_pages(),
        "cases": list(evaluator.test_cases.all()),
    }


@require_POST
@workspace_view()
def submit(request, id):
    """Freeze the saved draft as a new version; test cases that disagree ask first (the
    dialog's "Submit anyway")."""
    evaluator = selectors.evaluator_get(workspace=request.workspace, public_id=id)
    form = SubmitVersionForm(request.POST)
    version, disagree = None, False
    if form.is_valid():
        version, disagree = _submit(request, evaluator, form)
        if version is not None:
            messages.success(
                request,
                _("Version %(v)s submitted.") % {"v": version.version}
                + _tests_note(version.test_result),
            )
            return redirect("evaluators:versions", ws=request.workspace.slug, id=id)
    draft = EvaluatorDraftForm(initial=EvaluatorDraftForm.initial_for(evaluator))
    context = _detail_context(request, evaluator, draft, submit_form=form)
    context.update(open_submit=True, tests_disagree=disagree)
    return render(request, "evaluators/detail.html", context, status=400)


def _submit(request, evaluator, form):
    """(the version or None, whether disagreeing tests stopped it)."""
    try:
        return services.evaluator_submit_with_tests(
            evaluator=evaluator,
            user=request.user,
            disagreement_ok=request.POST.get("tests_disagree_ok") == "1",
            **form.cleaned_data,
        ), False
    except services.TestsDisagree as exc:
        form.add_error(None, exc.messages)
        return None, True
    except ValidationError as exc:
        add_errors(form, exc)
        return None, False


def _tests_note(result: dict | None) -> str:
    if not result:
        return ""
    return " " + _("Tests: %(a)d of %(t)d agree with the expected verdict.") % {
        "a": result["agreed"],
        "t": result["total"],
    }


@workspace_view()
def versions(request, id):
    """Version list and a side-by-side diff of any two (or a version and the draft): every
    field that changes results, under its plain label."""
    evaluator = selectors.evaluator_get(workspace=request.workspace, public_id=id)
    all_versions = library_versions(item=evaluator)
    refs = ["draft"] + [v.version for v in all_versions]
    old = request.GET.get("old") or (refs[2] if len(refs) > 2 else refs[-1])
    new = request.GET.get("new") or (refs[1] if len(refs) > 1 else "draft")
    changes = None
    if old in refs and new in refs and len(refs) > 1:
        changes = services.version_diff(
            old=selectors.evaluator_snapshot(evaluator=evaluator, ref=old),
            new=selectors.evaluator_snapshot(evaluator=evaluator, ref=new),
        )
    return render(
        request,
        "evaluators/versions.html",
        {
            "evaluator": evaluator,
            "versions": all_versions,
            "refs": refs,
            "old": old,
            "new": new,
            "changes": changes,
            "tab": "versions",
        },
    )


@workspace_view()
def version_detail(request, id, version):
    """One submitted version, read-only, with a button that restores it into the draft."""
    evaluator = selectors.evaluator_get(workspace=request.workspace, public_id=id)
    found = library_version_get(item=evaluator, version=version)
    snapshot = selectors.evaluator_snapshot(evaluator=evaluator, ref=found.version)
    return render(
        request,
        "evaluators/version_detail.html",
        {
            "evaluator": evaluator,
            "version": found,
            "fields": services.version_fields(snapshot=snapshot),
            "tab": "versions",
            "panels": version_panels_render(request=request, version=found),
        },
    )


@require_POST
@workspace_view()
def version_restore(request, id, version):
    """Put an old version back into the draft (submitted versions never change)."""
    evaluator = selectors.evaluator_get(workspace=request.workspace, public_id=id)
    found = library_version_get(item=evaluator, version=version)
    try:
        services.evaluator_draft_from_version(evaluator=evaluator, version=found, user=request.user)
    except ValidationError as exc:
        messages.error(request, " ".join(exc.messages))
        return redirect(
            "evaluators:version", ws=request.workspace.slug, id=id, version=found.version
        )
    messages.success(
        request,
        _("Version %(v)s restored into the draft. Save edits or submit it as a new version.")
        % {"v": found.version},
    )
    return redirect("evaluators:detail", ws=request.workspace.slug, id=id)


@require_POST
@workspace_view()
def copy(request, id):
    evaluator = selectors.evaluator_get(workspace=request.workspace, public_id=id)
    created = services.evaluator_copy(evaluator=evaluator, user=request.user)
    messages.success(request, _("Copied as “%(name)s”.") % {"name": created.name})
    return redirect("evaluators:detail", ws=request.workspace.slug, id=created.public_id)


@require_POST
@workspace_view()
def delete(request, id):
    evaluator = selectors.evaluator_get(workspace=request.workspace, public_id=id)
    services.evaluator_delete(evaluator=evaluator, user=request.user)
    messages.success(
        request,
        _("“%(name)s” deleted. You can restore it from the deleted list.")
        % {"name": evaluator.name},
    )
    return redirect("evaluators:list", ws=request.workspace.slug)


@require_POST
@workspace_view()
def restore(request, id):
    evaluator = selectors.evaluator_get(workspace=request.workspace, public_id=id)
    try:
        services.evaluator_restore(evaluator=evaluator, user=request.user)
    except ValidationError as exc:
        messages.error(request, " ".join(exc.messages))
    else:
        messages.success(request, _("“%(name)s” restored.") % {"name": evaluator.name})
    return redirect("evaluators:detail", ws=request.workspace.slug, id=id)
