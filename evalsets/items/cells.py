"""A cell's problems and the checks every kind of content shares.

Pure Python, no Django (see `content`): a `Problem` is a message id marked with `N_` and its
named parameters, English as text; `CellError` carries one.
"""

from __future__ import annotations

import json
from collections.abc import Callable

# `check_uri(uri, kind)` is given by the caller: does this stored file exist, in this workspace,
# and is it of this kind ("image" / "audio")? It raises CellError when not.
UriCheck = Callable[[str, str], None]


def N_(message: str) -> str:
    """Marks `message` for the catalogue (makemessages extracts `N_`) without translating it:
    this module has no Django, and an import's report is written in a worker, where no reader's
    language exists. The text is translated where it reaches a person (`Problem.render`)."""
    return message


def Nn_(singular: str, plural: str) -> tuple[str, str]:  # noqa: N802
    """Marks a message with a count, singular and plural (makemessages extracts `Nn_:1,2`), for
    `Problem(..., plural=..., n=...)`, rendered with `ngettext` where it is shown."""
    return singular, plural


class Problem(str):
    """A message id and its named parameters, and (as a str) the English text.

    Being a str keeps every caller that treats a problem as text working; a caller that shows it
    to a person renders it in the request's language, `problem.render(gettext)` (see
    `evalsets.items.problems`), and an import stores `as_json()` so its report is translated
    when read. A parameter may be a Problem itself (a phrase such as "a number")."""

    msgid: str
    params: dict
    plural: str | None
    n: int | None

    def __new__(
        cls, msgid: str, params: dict | None = None, *, plural: str | None = None, n: int = 0
    ) -> Problem:
        params = params or {}
        english = msgid if plural is None or n == 1 else plural
        self = super().__new__(cls, _format(english, english, params, N_))
        self.msgid, self.params = msgid, params
        self.plural, self.n = plural, (n if plural is not None else None)
        return self

    def render(
        self,
        translate: Callable[[str], str],
        translate_plural: Callable[[str, str, int], str] | None = None,
    ) -> str:
        """The text in the language `translate` (gettext) gives; a message with a count takes
        `translate_plural` (ngettext), English's rule without one."""
        if self.plural is None:
            text, original = translate(self.msgid), self.msgid
        else:
            original = self.msgid if self.n == 1 else self.plural
            text = (
                translate_plural(self.msgid, self.plural, self.n) if translate_plural else original
            )
        return _format(text, original, self.params, translate, translate_plural)

    def as_json(self) -> dict:
        params = {k: v.as_json() if isinstance(v, Problem) else v for k, v in self.params.items()}
        data = {"msgid": self.msgid, "params": params}
        if self.plural is not None:
            data.update(plural=self.plural, n=self.n)
        return data

    @classmethod
    def from_json(cls, data: dict) -> Problem:
        params = {k: _param(v) for k, v in (data.get("params") or {}).items()}
        if data.get("plural") is not None:
            return cls(data["msgid"], params, plural=data["plural"], n=int(data["n"]))
        return cls(data["msgid"], params)

    def __reduce__(self):
        return (_from_json, (self.as_json(),))


def _from_json(data: dict) -> Problem:
    return Problem.from_json(data)


def _param(value):
    return Problem.from_json(value) if isinstance(value, dict) and "msgid" in value else value


def _format(text: str, msgid: str, params: dict, translate, translate_plural=None) -> str:
    if not params:
        return text
    values = {
        k: v.render(translate, translate_plural) if isinstance(v, Problem) else v
        for k, v in params.items()
    }
    try:
        return text % values
    except (KeyError, ValueError, TypeError):  # a translation that lost a placeholder
        return msgid % values


class CellError(ValueError):
    """A value that cannot become the column's content; `problem` says why (a Problem: English
    as text, translated where it is shown)."""

    def __init__(self, msgid: str, params: dict | None = None):
        self.problem = msgid if isinstance(msgid, Problem) else Problem(msgid, params)
        super().__init__(str(self.problem))


TEXT_CELL_CAP = 64 * 1024  # bytes of UTF-8 per text cell


def check_text(text: str) -> str:
    """The text itself, or CellError when it is over the per-cell cap."""
    # A str of at most cap/4 characters cannot exceed the cap in UTF-8: skip the encode.
    if len(text) > TEXT_CELL_CAP // 4 and len(text.encode("utf-8")) > TEXT_CELL_CAP:
        raise CellError(
            N_("text is %(size)s bytes; the limit is %(limit)s bytes"),
            {"size": f"{len(text.encode('utf-8')):,}", "limit": f"{TEXT_CELL_CAP:,}"},
        )
    return text


def preview(value: str) -> str:
    """A value shown in a message: its first 40 characters, quoted."""
    return repr(value[:40] + ("…" if len(value) > 40 else ""))


JSON_KINDS = {
    str: N_("a string"),
    int: N_("a number"),
    float: N_("a number"),
    list: N_("a list"),
    dict: N_("an object"),
}


def json_kind(value) -> str:
    """How a JSON value reads in a message: null, a number, an object… (a Problem, so the
    phrase is translated with the message it is part of)."""
    if value is None or isinstance(value, bool):
        return json.dumps(value)
    kind = JSON_KINDS.get(type(value))
    return Problem(kind) if kind else type(value).__name__


def shown(value) -> str:
    return preview(value) if isinstance(value, str) else json_kind(value)
