"""Role checks: viewers read, editors write, owners manage members."""

from __future__ import annotations

from django.utils.translation import gettext_lazy
from rest_framework import permissions

from assay.models import Membership

_RANK = {Membership.Role.VIEWER: 0, Membership.Role.EDITOR: 1, Membership.Role.OWNER: 2}


def role_allows(role: str, needed: str) -> bool:
    return _RANK[role] >= _RANK[needed]


class WorkspaceRolePermission(permissions.BasePermission):
    """Authenticated members only; unsafe methods need the view's `write_role` (editor)."""

    message = gettext_lazy("Your role in this workspace does not allow this.")

    def has_permission(self, request, view) -> bool:
        if not (request.user and request.user.is_authenticated):
            return False
        membership = getattr(request, "membership", None)
        if membership is None:
            return getattr(view, "workspace_optional", False)
        if request.method in permissions.SAFE_METHODS:
            return True
        return role_allows(membership.role, getattr(view, "write_role", Membership.Role.EDITOR))
