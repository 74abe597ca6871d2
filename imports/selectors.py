"""Reading imports: always inside one workspace."""

from __future__ import annotations

from django.http import Http404

from .models import ImportRun


def imports_list(*, workspace):
    """The workspace's imports, newest first."""
    return ImportRun.objects.filter(workspace=workspace).select_related("created_by")


def import_get(*, workspace, public_id) -> ImportRun:
    """One of the workspace's imports; 404 for another workspace's id."""
    found = imports_list(workspace=workspace).filter(public_id=public_id).first()
    if found is None:
        raise Http404
    return found


def import_created(*, run: ImportRun) -> list[dict]:
    """What the import made that still exists in its workspace: kind, public id and name."""
    from evalsets.models import EvalSet
    from evaluators.models import Evaluator
    from experiments.models import Experiment

    models = {"evalset": EvalSet, "evaluator": Evaluator, "experiment": Experiment}
    created = (run.report or {}).get("created") or {}
    found = []
    for what, model in models.items():
        ids = created.get(what) or []
        names = dict(
            model.objects.filter(workspace=run.workspace, public_id__in=ids).values_list(
                "public_id", "name"
            )
        )
        found += [{"what": what, "id": pid, "name": names[pid]} for pid in names]
    return found
