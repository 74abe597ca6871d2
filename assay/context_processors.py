"""Template context: the current workspace and the switcher's list."""

from .selectors import workspaces_for_user


def workspace(request) -> dict:
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {}
    return {
        "workspace": getattr(request, "workspace", None),
        "membership": getattr(request, "membership", None),
        "my_workspaces": workspaces_for_user(user=user),
    }
