"""The imports pages, under /w/<workspace>/imports/: past imports and an upload form per
importer kind, and an import's report."""

from __future__ import annotations

from django.conf import settings
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from assay.web.decorators import workspace_view

from .. import selectors
from ..kinds import KINDS, ImportProblem, importer_get
from ..services import import_run, uploads_read
from .forms import ImportForm

PAGE_ROWS = 50


@workspace_view()
def import_list(request):
    """The workspace's imports, newest first, and one upload form per importer."""
    return _page(request, {})


@require_POST
@workspace_view()
def import_create(request, kind):
    """Run an import from the kind's form; its report page follows, or the form with the
    problem on the file it names."""
    try:
        importer = importer_get(kind)
    except ValueError:
        from django.http import Http404

        raise Http404 from None
    form = ImportForm(request.POST, request.FILES, importer=importer)
    if form.is_valid():
        run = _run(request, form)
        if run is not None:
            return redirect("imports:detail", ws=request.workspace.slug, id=run.public_id)
    return _page(request, {kind: form}, status=400)


def _run(request, form: ImportForm):
    uploads = {name: f for name, f in form.uploads().items() if f is not None}
    try:
        run, _new = import_run(
            workspace=request.workspace,
            user=request.user,
            kind=form.importer.name,
            files=uploads_read(kind=form.importer.name, uploads=uploads),
            file_names={name: f.name[:200] for name, f in uploads.items()},
            options=form.cleaned_data["options"],
            queue_over=settings.ASSAY_IMPORT_INLINE_BYTES,
        )
    except ImportProblem as problem:
        field = problem.where.split(",")[0].strip()
        form.add_error(field if field in form.fields else None, str(problem))
        return None
    return run


def _page(request, forms: dict, status: int = 200):
    importers = [
        {"kind": kind, "form": forms.get(name) or ImportForm(importer=kind)}
        for name, kind in sorted(KINDS.items())
    ]
    context = {
        "importers": importers,
        "runs": selectors.imports_list(workspace=request.workspace)[:PAGE_ROWS],
    }
    return render(request, "imports/list.html", context, status=status)


@workspace_view()
def import_detail(request, id):
    """One import: each source thing and what it became (or why not), links to what it made."""
    run = selectors.import_get(workspace=request.workspace, public_id=id)
    created = selectors.import_created(run=run)
    return render(request, "imports/detail.html", {"run": run, "created": created})
