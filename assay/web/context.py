"""Template context: the shared vocabulary, the current workspace and the switcher's list."""

from .. import vocabulary
from ..selectors import workspaces_for_user

VOCABULARY = vocabulary.for_pages()


def workspace(request) -> dict:
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {"vocabulary": VOCABULARY}
    return {
        "vocabulary": VOCABULARY,
        "workspace": getattr(request, "workspace", None),
        "membership": getattr(request, "membership", None),
        "my_workspaces": workspaces_for_user(user=user),
    }
