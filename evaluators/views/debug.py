"""The debug panel's endpoints (HTML partials): run turns, upload media, keep and run tests."""

from __future__ import annotations

import json

from django.core.exceptions import ValidationError
from django.http import HttpResponseBadRequest, JsonResponse
from django.shortcuts import render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from assay.selectors import library_version_get, library_versions
from assay.web.decorators import workspace_view
from assay.web.errors import error_lines

from .. import config as schema
from .. import selectors, services
from ..llm.render import prompt_text
from ..models import EvaluatorTestCase
from ..turns import turn_from_row


def _json_field(request, name: str, default=None):
    raw = request.POST.get(name)
    if raw in (None, ""):
        return default
    try:
        return json.loads(raw)
    except json.JSONDecodeError as exc:
        raise ValidationError({name: f"Not valid JSON: {exc}"}) from None


@require_POST
@workspace_view()
def debug_run(request, id):
    """Run the editor's current (unsaved) config on the turns; render the results partial."""
    evaluator = selectors.evaluator_get(workspace=request.workspace, public_id=id)
    try:
        turns = _json_field(request, "turns")
        outcomes = services.evaluator_debug(
            evaluator=evaluator, turns=turns, config=_json_field(request, "config")
        )
    except ValidationError as exc:
        return render(
            request, "evaluators/_debug_results.html", {"errors": error_lines(exc)}, status=400
        )
    context = {
        "rows": [_debug_row(o) for o in outcomes],
        "evaluator": evaluator,
        "debug_template": evaluator.kind_spec.debug_template,
    }
    return render(request, "evaluators/_debug_results.html", context)


def _debug_row(outcome) -> dict:
    """What the panel shows of one outcome: its prompt, and every call's when the kind made
    several (a pairwise judge asks in both orders: `extra["calls"]`)."""
    calls = [
        {**call, "prompt": prompt_text(call.get("rendered_request"))}
        for call in outcome.extra.get("calls", [])
    ]
    return {"outcome": outcome, "prompt": prompt_text(outcome.rendered_request), "calls": calls}


@require_POST
@workspace_view()
def debug_upload(request, id):
    """Store an image/audio file for a debug turn (checked by its bytes); returns its content."""
    from evalsets.items.media import media_store, with_urls

    selectors.evaluator_get(workspace=request.workspace, public_id=id)
    upload = request.FILES.get("file")
    if upload is None:
        return HttpResponseBadRequest(_("No file was uploaded."))
    try:
        content = media_store(workspace=request.workspace, upload=upload)
    except ValidationError as exc:
        return HttpResponseBadRequest(" ".join(exc.messages))
    return JsonResponse(with_urls({"f": content}, request.workspace)["f"])


@workspace_view()
def debug_rows(request, id):
    """Up to 10 rows of an evalset (version or draft) as turns, variables filled by column name."""
    from evalsets import selectors as evalset_selectors

    evaluator = selectors.evaluator_get(workspace=request.workspace, public_id=id)
    evalset = evalset_selectors.evalset_get(
        workspace=request.workspace, public_id=request.GET.get("evalset", "")
    )
    ref = request.GET.get("version") or ""
    source = evalset if ref in ("", "draft") else library_version_get(item=evalset, version=ref)
    rows = evalset_selectors.evalset_rows_for_debug(
        workspace=request.workspace,
        evalset_version_or_draft=source,
        limit=_int(request.GET.get("limit"), default=10),
    )
    config = _json_field(request, "config") if request.method == "POST" else None
    turns = [turn_from_row(config or evaluator.draft_config, row["data"]) for row in rows]
    return JsonResponse({"turns": turns, "count": len(turns)})


def _int(value, *, default: int) -> int:
    """A whole number from a query string; anything else means the default."""
    try:
        return int(value)
    except (TypeError, ValueError):
        return default


@workspace_view()
def debug_evalsets(request, id):
    """The workspace's evalsets and their versions, for the row picker."""
    from evalsets import selectors as evalset_selectors

    selectors.evaluator_get(workspace=request.workspace, public_id=id)
    sets = [
        {
            "id": str(e.public_id),
            "name": e.name,
            "versions": ["draft"] + [v.version for v in library_versions(item=e)],
        }
        for e in evalset_selectors.evalset_list(workspace=request.workspace)[:200]
    ]
    return JsonResponse({"evalsets": sets})


@require_POST
@workspace_view()
def testcase_save(request, id):
    """Keep the current turn with the expected verdict as a test case."""
    evaluator = selectors.evaluator_get(workspace=request.workspace, public_id=id)
    errors = []
    try:
        services.testcase_create(
            evaluator=evaluator,
            user=request.user,
            name=request.POST.get("name", ""),
            turn=_json_field(request, "turn"),
            expected_verdict=request.POST.get("expected", ""),
        )
    except ValidationError as exc:
        errors = error_lines(exc)
    return _tests_partial(request, evaluator, errors=errors, status=400 if errors else 200)


@require_POST
@workspace_view()
def testcase_delete(request, id, case_id):
    evaluator = selectors.evaluator_get(workspace=request.workspace, public_id=id)
    case = evaluator.test_cases.filter(public_id=case_id).first()
    if case is not None:
        services.testcase_delete(case=case)
    return _tests_partial(request, evaluator)


@require_POST
@workspace_view()
def tests_run(request, id):
    """Run every test case on the editor's config (or the saved draft)."""
    evaluator = selectors.evaluator_get(workspace=request.workspace, public_id=id)
    try:
        config = _json_field(request, "config")
        if config is not None:
            config = schema.validate_config(evaluator.kind, config)
    except ValidationError as exc:
        return _tests_partial(request, evaluator, errors=error_lines(exc), status=400)
    except schema.ConfigError as exc:
        return _tests_partial(request, evaluator, errors=[str(exc)], status=400)
    result = services.evaluator_run_tests(evaluator=evaluator, config=config)
    return _tests_partial(request, evaluator, result=result)


def _tests_partial(request, evaluator, *, errors=(), result=None, status=200):
    cases: list[EvaluatorTestCase] = list(evaluator.test_cases.all())
    return render(
        request,
        "evaluators/_tests.html",
        {
            "evaluator": evaluator,
            "cases": cases,
            "errors": errors,
            "result": result,
            "disagree_text": services.tests_disagree_text(result) if result else "",
            # the submit dialog shows the same table beside the panel's: keep the ids apart
            "box_id": "submit-tests-box" if request.POST.get("box") == "submit" else "tests-box",
        },
        status=status,
    )
