"""Service errors on pages: a `ValidationError` keyed by field path lands next to what it is
about, or at the top of the form with its path in front."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from django.core.exceptions import ValidationError

T = TypeVar("T")


def error_items(exc: ValidationError) -> dict[str, list[str]]:
    """{path: messages} of any ValidationError (a plain one under "__all__")."""
    return getattr(exc, "message_dict", {"__all__": exc.messages})


def error_lines(exc: ValidationError) -> list[str]:
    """One "path: message" line per problem, for a page that shows a list."""
    return [
        message if path == "__all__" else f"{path}: {message}"
        for path, messages in error_items(exc).items()
        for message in messages
    ]


def form_service(form, service: Callable[..., T], /, **kwargs) -> T | None:
    """`service(**kwargs)` for a valid form: what it returns, or None with the service's
    ValidationError attached to `form` (see add_errors)."""
    try:
        return service(**kwargs)
    except ValidationError as exc:
        add_errors(form, exc)
        return None


def add_errors(
    form,
    exc: ValidationError,
    *,
    field_for: Callable[[str], str | None] = None,
    aliases: dict[str, str] | None = None,
) -> None:
    """Attach each problem to the form field it names (directly, through `aliases`, or as
    `field_for(path)` says); a nested path (config.messages[0]...) goes to the top, named."""
    aliases = aliases or {}
    for path, messages in error_items(exc).items():
        field = field_for(path) if field_for else aliases.get(path, path)
        if field in form.fields:
            form.add_error(field, messages)
        else:
            prefix = "" if path in ("__all__", None) else f"{path}: "
            form.add_error(None, [prefix + message for message in messages])
