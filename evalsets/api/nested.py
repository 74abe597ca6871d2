"""What the routes under one evaluation set share: the set itself, inside the request's
workspace, and the `version` query parameter."""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.utils.translation import gettext
from rest_framework import viewsets

from assay.api.base import WorkspaceMixin
from assay.semver import SEMVER_RE

from .. import selectors
from ..models import EvalSet


def version_param(evalset: EvalSet, params):
    """The `version` query parameter: the draft (none, or 'draft'), a version (404 when there
    is none), or a 400 naming the parameter when it is not a version at all (a NUL in it was
    a 500 on PostgreSQL)."""
    ref = params.get("version")
    if ref and ref != "draft" and not SEMVER_RE.match(ref):
        raise ValidationError(
            {"version": gettext("Give a version such as 1.0.0, or draft (the default).")}
        )
    return selectors.version_ref(evalset=evalset, ref=ref)


class EvalSetChild(WorkspaceMixin, viewsets.GenericViewSet):
    """Routes under /evalsets/{evalset_id}/: the parent set, inside the request's workspace (404
    otherwise). Reads go through selectors, not a queryset."""

    def evalset(self) -> EvalSet:
        return self.parent(selectors.evalset_get, "evalset_id")

    def get_queryset(self):
        return None
