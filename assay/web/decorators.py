"""`workspace_view`: resolve /w/<slug>/ for a signed-in member (404 otherwise) and check roles;
a member still on a temporary password is sent to choose their own first."""

from __future__ import annotations

from functools import wraps

from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.shortcuts import redirect
from django.utils.translation import gettext as _

from ..api.permissions import role_allows
from ..models import Membership
from ..selectors import membership_get, password_change_required, workspace_get_for_user


def workspace_view(role: str = Membership.Role.VIEWER, write_role: str = Membership.Role.EDITOR):
    """Viewers may GET; POSTs need `write_role`. Outsiders get 404, not 403."""

    def decorator(view):
        @login_required
        @wraps(view)
        def wrapper(request, ws: str, *args, **kwargs):
            if password_change_required(user=request.user):  # a temporary password first
                return redirect("password_change_first")
            request.workspace = workspace_get_for_user(user=request.user, slug=ws)
            request.membership = membership_get(workspace=request.workspace, user=request.user)
            needed = write_role if request.method not in {"GET", "HEAD"} else role
            if not role_allows(request.membership.role, needed):
                raise PermissionDenied(_("Your role in this workspace does not allow this."))
            request.session["workspace_slug"] = ws
            return view(request, *args, **kwargs)

        return wrapper

    return decorator
