"""Strict SemVer 2.0.0 parsing and ordering for evaluator and evalset versions.

Pure Python: no Django imports, so models, services and forms can all share it.
"""

from __future__ import annotations

import re

# The grammar from semver.org, split into named groups. Numeric parts have no leading zeros.
SEMVER_RE = re.compile(
    r"^(?P<major>0|[1-9]\d*)\.(?P<minor>0|[1-9]\d*)\.(?P<patch>0|[1-9]\d*)"
    r"(?:-(?P<pre>(?:0|[1-9]\d*|\d*[A-Za-z-][0-9A-Za-z-]*)"
    r"(?:\.(?:0|[1-9]\d*|\d*[A-Za-z-][0-9A-Za-z-]*))*))?"
    r"(?:\+(?P<build>[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?$"
)

Identifier = int | str
Version = tuple[int, int, int, tuple[Identifier, ...], tuple[str, ...]]


def parse_semver(s: str) -> Version:
    """Parse ``s`` into ``(major, minor, patch, prerelease, build)``.

    Numeric prerelease identifiers become ints so they compare numerically.
    Raises ValueError with a message saying what is wrong.
    """
    if not isinstance(s, str):
        raise ValueError(f"Version must be a string, not {type(s).__name__}.")
    match = SEMVER_RE.match(s)
    if match is None:
        raise ValueError(_explain(s))
    pre = match.group("pre")
    build = match.group("build")
    return (
        int(match.group("major")),
        int(match.group("minor")),
        int(match.group("patch")),
        tuple(int(p) if p.isdigit() else p for p in pre.split(".")) if pre else (),
        tuple(build.split(".")) if build else (),
    )


def _explain(s: str) -> str:
    """Say why ``s`` is not SemVer, as precisely as a cheap check allows."""
    if not s.strip():
        return "Version is empty; use MAJOR.MINOR.PATCH such as 1.0.0."
    if s != s.strip():
        return f"Version {s!r} has surrounding whitespace."
    core = re.split(r"[-+]", s, maxsplit=1)[0]
    parts = core.split(".")
    if len(parts) != 3 or not all(p.isdigit() for p in parts):
        return f"Version {s!r} must start with MAJOR.MINOR.PATCH numbers, such as 1.2.3."
    if any(len(p) > 1 and p.startswith("0") for p in parts):
        return f"Version {s!r} has a number with a leading zero."
    return (
        f"Version {s!r} has an invalid pre-release or build part: identifiers are "
        "dot-separated [0-9A-Za-z-]+, non-empty, and numeric ones have no leading zero."
    )


def _compare_pre(a: tuple[Identifier, ...], b: tuple[Identifier, ...]) -> int:
    """Compare pre-release tuples per SemVer §11 (no pre-release ranks highest)."""
    if a == b:
        return 0
    if not a or not b:
        return 1 if not a else -1
    for x, y in zip(a, b, strict=False):
        if x == y:
            continue
        if isinstance(x, int) != isinstance(y, int):
            return -1 if isinstance(x, int) else 1  # numeric ranks below alphanumeric
        return -1 if x < y else 1  # type: ignore[operator]
    return -1 if len(a) < len(b) else 1


def compare(a: str, b: str) -> int:
    """Return -1, 0 or 1 as ``a`` has lower, equal or higher precedence than ``b``.

    Build metadata is ignored, as the spec requires.
    """
    va, vb = parse_semver(a), parse_semver(b)
    if va[:3] != vb[:3]:
        return -1 if va[:3] < vb[:3] else 1
    return _compare_pre(va[3], vb[3])


def is_greater(a: str, b: str) -> bool:
    """True when version ``a`` has strictly higher precedence than ``b``."""
    return compare(a, b) > 0


# The first version every library item proposes (evaluators and evaluation sets alike). Only
# the proposal: items already at 0.0.x keep their numbers and go on with the next patch.
FIRST_VERSION = "1.0.0"


def next_patch(s: str | None) -> str:
    """Propose the version after ``s``: FIRST_VERSION for none, else the next patch.

    A pre-release such as 1.2.0-rc.1 proposes its release, 1.2.0, which is the
    smallest plain version greater than it. Build metadata is dropped.
    """
    if s is None:
        return FIRST_VERSION
    major, minor, patch, pre, _build = parse_semver(s)
    if pre:
        return f"{major}.{minor}.{patch}"
    return f"{major}.{minor}.{patch + 1}"


def sort_key(s: str):
    """A key for sorted()/max() that orders versions by SemVer precedence."""
    from functools import cmp_to_key

    return cmp_to_key(compare)(s)
