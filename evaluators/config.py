"""Evaluator config: the shared schema (input variables), the entry points that hand each
kind its own keys (`evaluators.kinds`), hashing and diffs.

No Django set-up needed, so services, serializers, forms and the debug runner share one truth.
A config is a JSON dict; ``validate_config`` returns it normalised (defaults filled) so that
``config_hash`` of two equivalent configs is the same.
"""

from __future__ import annotations

import difflib
import hashlib
import json
import math
import re
from typing import Any

from django.utils.translation import gettext

from assay.vocabulary import CONTENT_TYPES

NAME_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,63}$")
PLACEHOLDER_RE = re.compile(r"\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}")

VARIABLE_KEYS = {"name", "content_type", "required", "description"}


class ConfigError(Exception):
    """An invalid config; ``errors`` maps field paths to messages."""

    def __init__(self, errors: dict[str, list[str]]):
        self.errors = errors
        summary = "; ".join(f"{path}: {' '.join(msgs)}" for path, msgs in errors.items())
        super().__init__(summary or "Invalid config.")


class Errors:
    """Collects every problem, keyed by field path, instead of stopping at the first."""

    def __init__(self) -> None:
        self.by_path: dict[str, list[str]] = {}

    def add(self, path: str, message: str) -> None:
        self.by_path.setdefault(path or "config", []).append(message)

    def unknown_keys(self, path: str, value: dict, allowed: set[str]) -> None:
        for key in sorted(set(value) - allowed, key=str):
            self.add(join(path, str(key)), f"Unknown field {key!r}.")


def join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def is_number(value: Any) -> bool:
    # bool is an int subclass; a JSON true must not pass as a temperature.
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def ranged(value: dict, key: str, default: float, bounds: tuple, errors: Errors, prefix=""):
    """A number within `bounds` under `key` (default when absent), as a float."""
    number = _within(value.get(key, default), bounds, is_number, join(prefix, key), errors)
    return float(number) if is_number(number) else number


def int_ranged(value: dict, key: str, default: int, bounds: tuple, errors: Errors, prefix=""):
    """A whole number within `bounds` under `key` (default when absent)."""
    return _within(value.get(key, default), bounds, is_int, join(prefix, key), errors)


def _within(number, bounds: tuple, kind, path: str, errors: Errors):
    low, high = bounds
    if not kind(number) or not low <= number <= high:
        what = (
            f"number from {low:g} to {high:g}"
            if kind is is_number
            else gettext("whole number from %(low)s to %(high)s") % {"low": low, "high": high}
        )
        errors.add(path, gettext("Must be a %(what)s.") % {"what": what})
    return number


# --------------------------------------------------------------------------- validation


def validate_config(kind: str, config: dict) -> dict:
    """Validate ``config`` for ``kind`` and return it normalised (defaults filled).

    Raises ConfigError listing every problem found, keyed by field path such as
    ``input_variables[1].content_type`` or ``messages[0].content``.
    """
    from .kinds import kind_get  # the kinds build on the helpers of this module

    errors = Errors()
    try:
        spec = kind_get(kind)
    except ValueError as exc:
        errors.add("kind", str(exc))
        raise ConfigError(errors.by_path) from None
    if not isinstance(config, dict):
        errors.add("config", gettext("Config must be a JSON object."))
        raise ConfigError(errors.by_path)
    errors.unknown_keys("", config, {"input_variables", *spec.keys})
    out: dict[str, Any] = {"input_variables": _variables(config.get("input_variables"), errors)}
    out.update(spec.validate(config, errors))
    if errors.by_path:
        raise ConfigError(errors.by_path)
    return out


def _variables(value: Any, errors: Errors) -> list[dict]:
    if value is None:
        return []
    if not isinstance(value, list):
        errors.add("input_variables", gettext("Must be a list."))
        return []
    seen: set[str] = set()
    return [_variable(item, f"input_variables[{i}]", seen, errors) for i, item in enumerate(value)]


def _variable(item: Any, path: str, seen: set[str], errors: Errors) -> dict:
    if not isinstance(item, dict):
        errors.add(path, gettext("Must be an object with name and content_type."))
        return {}
    errors.unknown_keys(path, item, VARIABLE_KEYS)
    name = item.get("name")
    if not isinstance(name, str) or not NAME_RE.match(name):
        errors.add(
            f"{path}.name",
            gettext("Must be an identifier: a letter or _, then up to 63 of A-Z a-z 0-9 _."),
        )
    elif name in seen:
        errors.add(f"{path}.name", gettext("Duplicate variable name %(name)r.") % {"name": name})
    else:
        seen.add(name)
    ctype = item.get("content_type")
    if ctype not in CONTENT_TYPES:
        errors.add(
            f"{path}.content_type",
            gettext("Unknown content type %(ctype)r; expected one of %(content_types)s.")
            % {"ctype": ctype, "content_types": ", ".join(CONTENT_TYPES)},
        )
    required = item.get("required", True)
    if not isinstance(required, bool):
        errors.add(f"{path}.required", gettext("Must be true or false."))
    description = item.get("description", "")
    if not isinstance(description, str):
        errors.add(f"{path}.description", gettext("Must be a string."))
    return {"name": name, "content_type": ctype, "required": required, "description": description}


# --------------------------------------------------------------------------- submit checks


def submit_problems(kind: str, config: dict, *, model_configured: bool) -> dict[str, list[str]]:
    """Problems that block submitting ``config`` as a version; empty when it may be submitted.

    Runs schema validation first; the kind's own checks only run on a valid config. (Checks that
    need the sandbox run in the service after these pass.)
    """
    try:
        config = validate_config(kind, config)
    except ConfigError as exc:
        return exc.errors
    from .kinds import kind_get

    errors = Errors()
    kind_get(kind).check(config, errors, model_configured=model_configured)
    return errors.by_path


def default_config(kind: str, language: str | None = None) -> dict:
    """A blank-but-valid starter config for ``kind`` (code: ``language``, default python)."""
    from .kinds import kind_get

    return validate_config(kind, kind_get(kind).default_config(language))


# --------------------------------------------------------------------------- hash and diff


def config_hash(config: dict) -> str:
    """sha256 hex of the canonical JSON of ``config`` (sorted keys, no whitespace)."""
    canonical = json.dumps(config, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


TEXT_KEYS = {"source", "content", "text", "description"}
_MISSING = object()


def diff_configs(a: dict, b: dict) -> list[dict]:
    """Field-by-field differences from ``a`` to ``b``, in a stable (sorted path) order.

    Each entry: ``{"path", "change": "added"|"removed"|"changed", "old", "new"}``; text fields
    (source, message content, descriptions, multi-line strings) also carry ``"diff"``: unified
    diff lines from difflib.
    """
    out: list[dict] = []
    _diff(a, b, "", out)
    return out


def _diff(old: Any, new: Any, path: str, out: list[dict]) -> None:
    if isinstance(old, dict) and isinstance(new, dict):
        for key in sorted(set(old) | set(new), key=str):
            _diff(old.get(key, _MISSING), new.get(key, _MISSING), join(path, str(key)), out)
    elif isinstance(old, list) and isinstance(new, list):
        for i in range(max(len(old), len(new))):
            item_old = old[i] if i < len(old) else _MISSING
            item_new = new[i] if i < len(new) else _MISSING
            _diff(item_old, item_new, f"{path}[{i}]", out)
    elif old is _MISSING or new is _MISSING or old != new or type(old) is not type(new):
        out.append(_entry(old, new, path))


def _entry(old: Any, new: Any, path: str) -> dict:
    change = "added" if old is _MISSING else "removed" if new is _MISSING else "changed"
    entry = {
        "path": path,
        "change": change,
        "old": None if old is _MISSING else old,
        "new": None if new is _MISSING else new,
    }
    if _is_text(old, new, path):
        entry["diff"] = _text_diff(entry["old"] or "", entry["new"] or "", path)
    return entry


def _is_text(old: Any, new: Any, path: str) -> bool:
    values = [v for v in (old, new) if v is not _MISSING]
    if not all(isinstance(v, str) for v in values):
        return False
    leaf = re.sub(r"\[\d+\]$", "", path).rsplit(".", 1)[-1]
    return leaf in TEXT_KEYS or any("\n" in v for v in values)


def _text_diff(old: str, new: str, path: str) -> list[str]:
    lines = difflib.unified_diff(
        old.splitlines(), new.splitlines(), fromfile=f"a/{path}", tofile=f"b/{path}", lineterm=""
    )
    return list(lines)
