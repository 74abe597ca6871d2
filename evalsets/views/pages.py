"""Evalset pages: list, rows table, row editor, columns, versions, import wizard, media."""

from __future__ import annotations

from urllib.parse import urlencode

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.core.files.storage import default_storage
from django.core.paginator import Paginator
from django.http import FileResponse, Http404, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from assay.safety.csvcells import excel_wanted
from assay.selectors import library_versions
from assay.web.decorators import workspace_view
from assay.web.errors import add_errors, form_service

from .. import importing, selectors, services
from ..export import errors_csv, export_response
from ..items.content import MEDIA_KEYS
from ..items.media import media_mime, media_store, workspace_prefix
from ..models import ImportStatus
from ..panels import panels_render
from .forms import (
    ColumnFormSet,
    CommitForm,
    EvalSetForm,
    ImportUploadForm,
    MappingForm,
    RowForm,
    column_initial,
)

ROWS_PER_PAGE = 25


@workspace_view()
def index(request):
    """All live sets, with search, tag filter and draft row counts."""
    q, tag = request.GET.get("q", ""), request.GET.get("tag", "")
    rows = selectors.evalset_list(workspace=request.workspace, search=q, tag=tag)
    page = Paginator(rows, 25).get_page(request.GET.get("page"))
    all_tags = sorted(
        {t for e in selectors.evalset_list(workspace=request.workspace) for t in e.tags}
    )
    return render(
        request,
        "evalsets/list.html",
        {"page": page, "q": q, "tag": tag, "tags": all_tags},
    )


@workspace_view()
def new(request):
    form = EvalSetForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        evalset = form_service(
            form,
            services.evalset_create,
            workspace=request.workspace,
            user=request.user,
            **form.cleaned_data,
        )
        if evalset is not None:
            messages.success(request, _("Evaluation set created. Add columns, or import a file."))
            return redirect("evalsets:import", ws=request.workspace.slug, id=evalset.public_id)
    return render(request, "evalsets/new.html", {"form": form})


def _evalset(request, id):
    return selectors.evalset_get(workspace=request.workspace, public_id=id)


@workspace_view()
def detail(request, id):
    """The rows table of the draft or a version: paginated, filtered by tag and text."""
    evalset = _evalset(request, id)
    ref = request.GET.get("version") or "draft"
    version = selectors.version_ref(evalset=evalset, ref=ref)
    q, tag = request.GET.get("q", ""), request.GET.get("tag", "")
    rows = selectors.items_list(evalset=evalset, version=version, tag=tag, search=q)
    page = Paginator(rows, ROWS_PER_PAGE).get_page(request.GET.get("page"))
    columns = version.columns if version else evalset.columns
    return render(
        request,
        "evalsets/detail.html",
        {
            "evalset": evalset,
            "tab": "rows",
            "version": version,
            "ref": ref,
            "columns": columns,
            "page": page,
            "table": _table(page.object_list, columns),
            "q": q,
            "tag": tag,
            "tags": selectors.item_tags(evalset=evalset, version=version),
            "versions": library_versions(item=evalset),
            "editable": version is None and request.membership.can_edit,
            "panels": panels_render(request=request, evalset=evalset),
        },
    )


@workspace_view()
def item_locate(request, id, item_id):
    """A row's permanent link: the rows table page that shows it, scrolled to the row."""
    evalset = _evalset(request, id)
    ref = request.GET.get("version") or "draft"
    version = selectors.version_ref(evalset=evalset, ref=ref)
    page = selectors.item_page(
        evalset=evalset, version=version, item_id=item_id, per_page=ROWS_PER_PAGE
    )
    url = reverse("evalsets:detail", kwargs={"ws": request.workspace.slug, "id": evalset.public_id})
    return redirect(f"{url}?{urlencode({'version': ref, 'page': page})}#item-{item_id}")


def _table(items, columns: list[dict]) -> list[dict]:
    """Rows as cells in column order; the template renders each content by its type."""
    return [{"item": item, "cells": [item.data.get(c["name"]) for c in columns]} for item in items]


@workspace_view()
def row_edit(request, id, item_id=None):
    """Add a draft row, or edit one; media can be uploaded here."""
    evalset = _evalset(request, id)
    item = selectors.item_get(evalset=evalset, item_id=item_id) if item_id else None
    initial = RowForm.initial_for(item, evalset.columns) if item else None
    form = RowForm(
        request.POST or None, request.FILES or None, columns=evalset.columns, initial=initial
    )
    if request.method == "POST" and form.is_valid():
        if _save_row(request, evalset, item, form):
            messages.success(request, _("Row saved."))
            return redirect("evalsets:detail", ws=request.workspace.slug, id=id)
    return render(
        request,
        "evalsets/row_form.html",
        {"evalset": evalset, "item": item, "form": form, "tab": "rows"},
    )


def _save_row(request, evalset, item, form) -> bool:
    data = form.data_values()
    if form.errors:
        return False
    try:
        for name, upload in form.uploads().items():
            column = next(c for c in evalset.columns if c["name"] == name)
            data[name] = media_store(
                workspace=request.workspace, upload=upload, expected=column["content_type"]
            )
        fields = {
            "data": data,
            "tags": form.cleaned_data["tags"],
            "human_verdict": form.cleaned_data["human_verdict"],
            "label": form.cleaned_data["label"],
        }
        if item is None:
            services.item_create(evalset=evalset, **fields)
        else:
            services.item_update(evalset=evalset, item_id=item.item_id, **fields)
    except ValidationError as exc:
        _row_errors(form, exc)
        return False
    return True


def _row_errors(form, exc: ValidationError) -> None:
    """Service paths such as create[0].data.question land on the column's field."""

    def field_for(path: str) -> str | None:
        column = path.rsplit(".", 1)[-1]
        if f"col_{column}" in form.fields:
            return f"col_{column}"
        if column in form.fields:
            return column
        if path == "file":
            return next((f for f in form.fields if f.startswith("file_")), None)
        return None

    add_errors(form, exc, field_for=field_for)


@require_POST
@workspace_view()
def row_delete(request, id, item_id):
    evalset = _evalset(request, id)
    selectors.item_get(evalset=evalset, item_id=item_id)
    try:
        services.item_delete(evalset=evalset, item_id=item_id)
    except ValidationError as exc:  # e.g. the draft is locked by a commit under way
        messages.error(request, " ".join(exc.messages))
        return redirect("evalsets:detail", ws=request.workspace.slug, id=id)
    messages.success(request, _("Row deleted."))
    return redirect("evalsets:detail", ws=request.workspace.slug, id=id)


@workspace_view()
def columns(request, id):
    """The column editor: add, rename, retype, describe, require, remove; and set metadata."""
    evalset = _evalset(request, id)
    meta = EvalSetForm(
        request.POST or None,
        prefix="set",
        initial={
            "name": evalset.name,
            "description": evalset.description,
            "tags": ", ".join(evalset.tags),
        },
    )
    formset = ColumnFormSet(
        request.POST or None, prefix="col", initial=column_initial(evalset.columns)
    )
    if request.method == "POST" and meta.is_valid() and formset.is_valid():
        wanted = [c for c in (f.column() for f in formset.forms if f.cleaned_data) if c]
        if form_service(
            meta, services.evalset_update, evalset=evalset, columns=wanted, **meta.cleaned_data
        ):
            messages.success(request, _("Columns saved."))
            return redirect("evalsets:columns", ws=request.workspace.slug, id=id)
        evalset.refresh_from_db()
    return render(
        request,
        "evalsets/columns.html",
        {"evalset": evalset, "meta": meta, "formset": formset, "tab": "columns"},
    )


@workspace_view()
def versions(request, id):
    evalset = _evalset(request, id)
    return render(
        request,
        "evalsets/versions.html",
        _versions_context(evalset, CommitForm(initial={"version": services.next_version(evalset)})),
    )


def _versions_context(evalset, form) -> dict:
    return {
        "evalset": evalset,
        "tab": "versions",
        "versions": library_versions(item=evalset),
        "form": form,
        "draft_rows": selectors.draft_count(evalset),
    }


@require_POST
@workspace_view()
def commit(request, id):
    """Freeze the draft as a version."""
    evalset = _evalset(request, id)
    form = CommitForm(request.POST)
    if form.is_valid():
        version = form_service(
            form, services.version_commit, evalset=evalset, user=request.user, **form.cleaned_data
        )
        if version is not None:
            _commit_message(request, version)
            return redirect("evalsets:versions", ws=request.workspace.slug, id=id)
    context = _versions_context(evalset, form)
    context["open_commit"] = True
    return render(request, "evalsets/versions.html", context, status=400)


def _commit_message(request, version) -> None:
    if version.is_ready:
        text = _("Version %(v)s committed with %(n)s rows.")
        messages.success(request, text % {"v": version.version, "n": version.item_count})
        return
    text = _(
        "Version %(v)s is being committed: its %(n)s rows are copied in the background. The "
        "draft cannot be changed until the copy has finished."
    )
    messages.info(request, text % {"v": version.version, "n": version.item_count})


@workspace_view()
def commit_progress(request, id, version_id):
    """The background commit's progress partial htmx polls; it stops once the version is ready."""
    evalset = _evalset(request, id)
    version = selectors.version_by_id(evalset=evalset, public_id=version_id)
    return render(request, "evalsets/_commit_progress.html", {"evalset": evalset, "v": version})


@workspace_view()
def export(request, id):
    """Download the draft or a version as CSV or JSONL (streamed)."""
    evalset = _evalset(request, id)
    file_format = request.GET.get("format", "csv")
    if file_format not in ("csv", "jsonl"):
        raise Http404(gettext("Unknown export format"))
    version = selectors.version_ref(evalset=evalset, ref=request.GET.get("version"))
    return export_response(
        evalset=evalset,
        version=version,
        file_format=file_format,
        excel=excel_wanted(request.GET),
    )


@require_POST
@workspace_view()
def delete(request, id):
    evalset = _evalset(request, id)
    services.evalset_delete(evalset=evalset)
    messages.success(request, _("“%(name)s” deleted.") % {"name": evalset.name})
    return redirect("evalsets:list", ws=request.workspace.slug)


@workspace_view()
def import_upload(request, id):
    """Wizard step 1: upload a CSV or JSONL file."""
    evalset = _evalset(request, id)
    form = ImportUploadForm(request.POST or None, request.FILES or None)
    guess = ""
    if request.method == "POST" and form.is_valid():
        job = form_service(
            form,
            importing.import_create,
            evalset=evalset,
            user=request.user,
            upload=form.cleaned_data["file"],
            file_format=form.cleaned_data["format"] or None,
            encoding=form.cleaned_data["encoding"] or "utf-8",
            start=False,
        )
        if job is not None:
            return redirect(
                "evalsets:import_job", ws=request.workspace.slug, id=id, job_id=job.public_id
            )
        guess = form.offer_encoding(importing.upload_encoding_guess)
    return render(
        request,
        "evalsets/import.html",
        {
            "evalset": evalset,
            "form": form,
            "encoding_guess": guess if request.method == "POST" and form.errors else "",
            "limits": importing.import_limits(),
            "tab": "import",
            "recent": selectors.imports_recent(evalset=evalset),
        },
        status=400 if form.errors else 200,
    )


@workspace_view()
def import_job(request, id, job_id):
    """Wizard step 2 (map the columns) while the job waits; step 3 (progress) afterwards."""
    evalset = _evalset(request, id)
    job = selectors.import_get(evalset=evalset, public_id=job_id)
    context = {"evalset": evalset, "job": job, "tab": "import"}
    if job.status != ImportStatus.MAPPING:
        return render(request, "evalsets/import_job.html", context)
    proposed, new_columns = importing.proposed_mapping(job)
    form = MappingForm(
        request.POST or None,
        fields=job.fields,
        columns=evalset.columns,
        proposed=proposed,
        new_columns=new_columns,
        names=importing.column_names(job),
    )
    # as the form starts: a field that matches nothing is ignored
    mapping = {field: proposed.get(field, "") for field in job.fields}
    chosen_columns = new_columns
    if request.method == "POST" and form.is_valid():
        mapping, chosen_columns = form.mapping()
    # the first rows as this mapping would store them, read from the uploaded file
    context["preview"] = importing.import_preview(
        job=job, mapping=mapping, new_columns=chosen_columns
    )
    if request.method == "POST" and form.is_valid() and request.POST.get("step") != "preview":
        mapping, new_columns = form.mapping()
        try:
            importing.import_configure(
                job=job,
                mapping=mapping,
                new_columns=new_columns,
                skip_bad_rows=form.cleaned_data["skip_bad_rows"],
                replace=form.cleaned_data["replace"],
            )
        except ValidationError as exc:  # shown above the table, without the API's key names
            form.add_error(None, exc.messages)
        else:
            return redirect("evalsets:import_job", ws=request.workspace.slug, id=id, job_id=job_id)
    context["form"] = form
    return render(request, "evalsets/import_job.html", context, status=400 if form.errors else 200)


@require_POST
@workspace_view()
def import_retry(request, id, job_id):
    """Import a failed job's file again, skipping its bad rows; go to the new job."""
    evalset = _evalset(request, id)
    job = selectors.import_get(evalset=evalset, public_id=job_id)
    try:
        retry = importing.import_retry_skipping(job=job, user=request.user)
    except ValidationError as exc:
        messages.error(request, " ".join(exc.messages))
        return redirect("evalsets:import_job", ws=request.workspace.slug, id=id, job_id=job_id)
    return redirect("evalsets:import_job", ws=request.workspace.slug, id=id, job_id=retry.public_id)


@workspace_view()
def import_progress(request, id, job_id):
    """The progress partial htmx polls; it stops polling once the job is finished."""
    evalset = _evalset(request, id)
    job = selectors.import_get(evalset=evalset, public_id=job_id)
    # once finished, the tabs come along (out of band): the Columns count changed
    context = {"evalset": evalset, "job": job, "tab": "import", "oob": True}
    return render(request, "evalsets/_import_progress.html", context)


@workspace_view()
def import_errors(request, id, job_id):
    evalset = _evalset(request, id)
    job = selectors.import_get(evalset=evalset, public_id=job_id)
    response = HttpResponse(errors_csv(job.errors), content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="import-{job.public_id}-errors.csv"'
    return response


@workspace_view()
def media(request, path: str):
    """A stored image or audio file, to signed-in members of the workspace that owns it."""
    prefix = workspace_prefix(request.workspace)
    kinds = tuple(f"{prefix}{kind}/" for kind in MEDIA_KEYS.values())
    if not path.startswith(kinds) or ".." in path.split("/") or not default_storage.exists(path):
        raise Http404(gettext("No such file"))
    response = FileResponse(default_storage.open(path, "rb"), content_type=media_mime(path))
    response["Content-Disposition"] = "inline"
    response["Cache-Control"] = "private, max-age=3600"
    return response
