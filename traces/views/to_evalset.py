"""The traces list's "Add to evalset" dialog: its mapping for a chosen set, and the submit
(the work is `traces.services.to_evalset`; the dialog is `templates/traces/_to_evalset.html`,
drawn by the `to_evalset_dialog` tag so the list's own view stays as it is)."""

from __future__ import annotations

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import QueryDict
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

from assay.selectors import as_uuid
from assay.web.decorators import workspace_view
from evalsets.models import EvalSet
from evalsets.selectors import evalset_list

from ..services.to_evalset import SPAN_FIELDS, RowFrom, Selection, traces_to_evalset
from ..services.to_evalset import default_mapping as default_span_fields
from ..services.to_evalset_rows import sessions_of
from .forms import TraceFilterForm

MAX_SETS = 200  # sets offered in the dialog, most recently changed first
MAP_PREFIX = "map-"
FIELD_LABELS = {
    "input": gettext_lazy("input text"),
    "output": gettext_lazy("output text"),
    "messages": gettext_lazy("messages (input and output)"),
    "input_messages": gettext_lazy("input messages"),
    "trajectory": gettext_lazy("trajectory (tool calls)"),
    "model": gettext_lazy("model"),
    "name": gettext_lazy("span name"),
    "service": gettext_lazy("service"),
    "error": gettext_lazy("error"),
    "session_id": gettext_lazy("session"),
    "user_id": gettext_lazy("user"),
}


def dialog_context(workspace, evalset: EvalSet | None = None) -> dict:
    """What the dialog shows: the sets to choose from, and the chosen (or first) set's
    columns each with the span fields it may take and the default."""
    sets = list(evalset_list(workspace=workspace)[:MAX_SETS])
    chosen = evalset or (sets[0] if sets else None)
    return {"to_evalset_sets": sets, "to_evalset_chosen": chosen, **mapping_context(chosen)}


def mapping_context(evalset: EvalSet | None) -> dict:
    if evalset is None:
        return {"to_evalset_columns": []}
    defaults = default_span_fields(evalset)
    columns = [
        {
            "name": column["name"],
            "content_type": column["content_type"],
            "fields": [
                {"value": f, "label": FIELD_LABELS[f]}
                for f, kind in SPAN_FIELDS.items()
                if kind == column["content_type"]
            ],
            "default": defaults.get(column["name"], ""),
        }
        for column in evalset.columns
    ]
    return {"to_evalset_columns": columns, "map_prefix": MAP_PREFIX}


def _chosen_set(request, value) -> EvalSet | None:
    public_id = as_uuid(value)
    if public_id is None:
        return None
    return evalset_list(workspace=request.workspace).filter(public_id=public_id).first()


@workspace_view()
def to_evalset_mapping(request):
    """The dialog's mapping rows for the set chosen (`?evalset=`), swapped in on a change."""
    evalset = _chosen_set(request, request.GET.get("evalset"))
    context = {**mapping_context(evalset), "to_evalset_chosen": evalset}
    return render(request, "traces/_to_evalset_mapping.html", context)


@workspace_view()
def to_evalset(request):
    """POST: add the selected traces (or all matching the list's filters) to the set's draft;
    the dialog shows the report (htmx), or the list shows it as a message."""
    if request.method != "POST":
        return redirect("traces:list", ws=request.workspace.slug)
    evalset = _chosen_set(request, request.POST.get("evalset"))
    try:
        report = _add(request, evalset)
    except ValidationError as exc:
        return _answer(request, evalset, problems=_problems(exc))
    return _answer(request, evalset, report=report)


def _add(request, evalset: EvalSet | None):
    if evalset is None:
        raise ValidationError({"evalset": _("Choose an evaluation set.")})
    mapping = {
        key[len(MAP_PREFIX) :]: value
        for key, value in request.POST.items()
        if key.startswith(MAP_PREFIX) and value
    }
    return traces_to_evalset(
        workspace=request.workspace,
        user=request.user,
        evalset=evalset,
        selection=_selection(request.workspace, request.POST),
        mapping=mapping,
        row_from=request.POST.get("row_from", RowFrom.ROOT),
    )


def _selection(workspace, post) -> Selection:
    scope = post.get("scope")
    if scope == "filter":
        form = TraceFilterForm(QueryDict(post.get("query", "")))
        if not form.is_valid():
            raise ValidationError({"selection": _("The list's filters are not valid.")})
        return Selection(filters=form.filters())
    trace_ids = post.getlist("trace_id")
    if not trace_ids:
        raise ValidationError({"selection": _("Select traces in the list first.")})
    if scope == "sessions":
        return Selection(session_ids=sessions_of(workspace=workspace, trace_ids=trace_ids))
    return Selection(trace_ids=trace_ids)


def _problems(exc: ValidationError) -> list[str]:
    if hasattr(exc, "error_dict"):
        return [m for errors in exc.message_dict.values() for m in errors]
    return list(exc.messages)


def _answer(request, evalset, *, report=None, problems=None):
    summary = _summary(report) if report is not None else ""
    if request.headers.get("HX-Request"):
        context = {"report": report, "summary": summary, "problems": problems, "evalset": evalset}
        return render(request, "traces/_to_evalset_result.html", context)
    if problems:
        for problem in problems:
            messages.error(request, problem)
        return redirect("traces:list", ws=_ws(request))
    messages.success(request, summary)
    return redirect("evalsets:detail", ws=_ws(request), id=evalset.public_id)


def _ws(request) -> str:
    return request.workspace.slug


def _summary(report) -> str:
    added = ngettext("%(n)s row added", "%(n)s rows added", len(report.added)) % {
        "n": len(report.added)
    }
    skipped = ngettext(
        "%(n)s duplicate skipped", "%(n)s duplicates skipped", report.skipped_duplicates
    ) % {"n": report.skipped_duplicates}
    return _("%(added)s, %(skipped)s.") % {"added": added, "skipped": skipped}
