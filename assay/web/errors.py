"""Service errors on pages: a `ValidationError` keyed by field path lands next to what it is
about, or at the top of the form with its path in front."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from django.core.exceptions import ValidationError
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

T = TypeVar("T")

# What a reader calls the fields services name in their errors (`new_columns: …` read as code
# in a Chinese page); a path not listed here is shown as it is (a config key is code).
PATH_LABELS = {
    "mapping": gettext_lazy("Mapping"),
    "new_columns": gettext_lazy("New columns"),
    "file": gettext_lazy("File"),
    "format": gettext_lazy("Format"),
    "encoding": gettext_lazy("Encoding"),
    "evalset": gettext_lazy("Evaluation set"),
    "evalset_version": gettext_lazy("Evaluation set version"),
    "name": gettext_lazy("Name"),
    "slug": gettext_lazy("Slug"),
    "status": gettext_lazy("Status"),
    "target": gettext_lazy("Target"),
    "config": gettext_lazy("Configuration"),
    "bindings": gettext_lazy("Evaluators"),
    "turns": gettext_lazy("Turns"),
    "version": gettext_lazy("Version"),
    "columns": gettext_lazy("Columns"),
    "items": gettext_lazy("Rows"),
    "prices": gettext_lazy("Prices"),
    "username": gettext_lazy("Username"),
    "role": gettext_lazy("Role"),
    "repetitions": gettext_lazy("Repetitions"),
}


def path_label(path: str, form=None) -> str:
    """A field path in words: the form's label of its field, else PATH_LABELS' (the rest of a
    nested path, `target.url`, kept as the code it is)."""
    head, dot, rest = path.partition(".")
    field = form.fields.get(head) if form is not None else None
    label = (field.label if field is not None and field.label else None) or PATH_LABELS.get(head)
    if label is None:
        return path
    return f"{label} · {rest}" if dot else str(label)


def labelled(path: str | None, message: str, form=None) -> str:
    """One problem with what it is about in front ("映射：…"), or alone for the whole object."""
    if path in ("__all__", None):
        return message
    return _("%(field)s: %(message)s") % {"field": path_label(path, form), "message": message}


def error_items(exc: ValidationError) -> dict[str, list[str]]:
    """{path: messages} of any ValidationError (a plain one under "__all__")."""
    return getattr(exc, "message_dict", {"__all__": exc.messages})


def error_lines(exc: ValidationError) -> list[str]:
    """One "path: message" line per problem, for a page that shows a list."""
    return [
        labelled(path, message)
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
            form.add_error(None, [labelled(path, message, form) for message in messages])
