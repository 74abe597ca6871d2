"""The difference between two texts, word by word, and the two texts with it marked.

Pure: strings in, runs out. The HTML side escapes every piece of text before it wraps it, so
only our own `<del>`/`<ins>` tags are ever markup.
"""

from __future__ import annotations

import difflib
import re

from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

EQUAL, DELETE, INSERT = "equal", "delete", "insert"

# a word with the whitespace after it (or leading whitespace alone): whitespace rides along
# with its word, so a re-wrapped line or a double space is not reported as a change
WORDS = re.compile(r"\S+\s*|\s+")
# SequenceMatcher is quadratic at worst: longer texts are compared line by line instead, and
# texts longer than that again are shown as replaced whole rather than stalling the page
MAX_TOKENS = 5000


def text_diff(old: str, new: str) -> list[tuple[str, str, str]]:
    """(op, old piece, new piece) runs that turn `old` into `new`: `equal` runs carry both
    sides' text (their whitespace may differ), `delete` only the old, `insert` only the new."""
    old, new = old or "", new or ""
    a, b = WORDS.findall(old), WORDS.findall(new)
    if max(len(a), len(b)) > MAX_TOKENS:
        a, b = old.splitlines(keepends=True), new.splitlines(keepends=True)
    if max(len(a), len(b)) > MAX_TOKENS:
        return _replaced(old, new)
    return _runs(a, b)


def _runs(a: list[str], b: list[str]) -> list[tuple[str, str, str]]:
    keys_a, keys_b = [t.strip() for t in a], [t.strip() for t in b]
    matcher = difflib.SequenceMatcher(a=keys_a, b=keys_b, autojunk=False)
    runs = []
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        old, new = "".join(a[i1:i2]), "".join(b[j1:j2])
        if op == EQUAL:
            runs.append((EQUAL, old, new))
            continue
        runs += [(DELETE, old, "")] if old else []
        runs += [(INSERT, "", new)] if new else []
    return runs


def _replaced(old: str, new: str) -> list[tuple[str, str, str]]:
    if old == new:
        return [(EQUAL, old, new)]
    return [run for run in ((DELETE, old, ""), (INSERT, "", new)) if run[1] or run[2]]


def marked_sides(runs: list[tuple[str, str, str]]) -> tuple[SafeString, SafeString]:
    """The old text with its removed words in <del>, the new one with its added words in <ins>."""
    old = [_wrap("del", o) if op == DELETE else escape(o) for op, o, _ in runs if op != INSERT]
    new = [_wrap("ins", n) if op == INSERT else escape(n) for op, _, n in runs if op != DELETE]
    return mark_safe("".join(old)), mark_safe("".join(new))  # noqa: S308 - escaped pieces


def _wrap(tag: str, text: str) -> str:
    """The escaped text in <tag>, its trailing whitespace left outside (no marked blanks)."""
    body = text.rstrip()
    if not body:
        return escape(text)
    return f"<{tag}>{escape(body)}</{tag}>{escape(text[len(body) :])}"


def diff_json(runs: list[tuple[str, str, str]]) -> list[dict]:
    """The runs for the API: equal parts as the new text has them."""
    return [{"op": op, "text": old if op == DELETE else new} for op, old, new in runs]
