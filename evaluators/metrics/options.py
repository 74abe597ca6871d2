"""The option checkers a metric's options are declared with (`evaluators.metrics.METRICS`).

Each checker is `check(value, path, errors) -> normalised value`, called with the option's
default when the config leaves it out; problems go to `errors.add(path, message)`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.utils.translation import gettext

from ..config import Errors, is_int, is_number

MAX_VALUES = 200
MAX_VALUE_CHARS = 10_000
MAX_SCHEMA_CHARS = 64 * 1024

Check = Callable[[Any, str, Errors], Any]
REQUIRED = object()  # the default of an option the config must give


def flag(value: Any, path: str, errors: Errors) -> Any:
    """true or false."""
    if not isinstance(value, bool):
        errors.add(path, gettext("Must be true or false."))
    return value


def choice(*allowed: str) -> Check:
    """One of `allowed`."""

    def check(value: Any, path: str, errors: Errors) -> Any:
        if value not in allowed:
            errors.add(
                path,
                gettext("Unknown value %(value)r; expected one of %(allowed)s.")
                % {"value": value, "allowed": ", ".join(allowed)},
            )
        return value

    return check


def whole(low: int, high: int) -> Check:
    """A whole number from `low` to `high`."""

    def check(value: Any, path: str, errors: Errors) -> Any:
        if not is_int(value) or not low <= value <= high:
            errors.add(
                path,
                gettext("Must be a whole number from %(low)s to %(high)s.")
                % {"low": low, "high": high},
            )
        return value

    return check


def non_negative(value: Any, path: str, errors: Errors) -> Any:
    """A finite number ≥ 0, as a float."""
    if not is_number(value) or value < 0:
        errors.add(path, gettext("Must be a number of 0 or more."))
        return value
    return float(value)


def text(value: Any, path: str, errors: Errors) -> Any:
    """A non-empty string of at most MAX_VALUE_CHARS."""
    if not isinstance(value, str) or not value:
        errors.add(path, gettext("Must be a non-empty string."))
    elif len(value) > MAX_VALUE_CHARS:
        errors.add(path, gettext("Must be at most %(n)s characters.") % {"n": MAX_VALUE_CHARS})
    return value


def texts(value: Any, path: str, errors: Errors) -> Any:
    """A non-empty list of non-empty strings (at most MAX_VALUES)."""
    if not isinstance(value, list) or not value or len(value) > MAX_VALUES:
        errors.add(path, gettext("Must be a list of 1 to %(n)s strings.") % {"n": MAX_VALUES})
        return value
    for i, item in enumerate(value):
        text(item, f"{path}[{i}]", errors)
    return value


def pattern(value: Any, path: str, errors: Errors) -> Any:
    """A regular expression that compiles (the `regex` module, Python's syntax)."""
    import regex

    if text(value, path, errors) is value and isinstance(value, str) and value:
        try:
            regex.compile(value)
        except regex.error as exc:
            errors.add(path, gettext("Not a valid regular expression: %(error)s.") % {"error": exc})
    return value


def json_schema(value: Any, path: str, errors: Errors) -> Any:
    """A JSON Schema (an object) that its own meta-schema accepts."""
    import json

    import jsonschema

    if not isinstance(value, dict):
        errors.add(path, gettext("Must be a JSON Schema object."))
        return value
    if len(json.dumps(value)) > MAX_SCHEMA_CHARS:
        errors.add(path, gettext("The schema is larger than 64 KiB."))
        return value
    try:
        jsonschema.validators.validator_for(value).check_schema(value)
    except jsonschema.SchemaError as exc:
        errors.add(path, gettext("Not a valid JSON Schema: %(error)s.") % {"error": exc.message})
    return value


def provider_id(value: Any, path: str, errors: Errors) -> Any:
    """A provider's id (a string) or null until one is chosen."""
    if value is not None and not isinstance(value, str):
        errors.add(path, gettext("Must be a string or null."))
    return value


def model_name(value: Any, path: str, errors: Errors) -> Any:
    """A model's name (may be empty in a draft: the submit check asks for one)."""
    if not isinstance(value, str):
        errors.add(path, gettext("Must be a string."))
    return value


def optional_schema(value: Any, path: str, errors: Errors) -> Any:
    """A JSON Schema, or null for none."""
    return None if value is None else json_schema(value, path, errors)
