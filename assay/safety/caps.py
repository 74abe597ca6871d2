"""Stored sizes of untrusted text: model answers, reasons, stdout, errors, display copies.

Pure Python (the LLM package and the engine both use it). Every cap cuts at a UTF-8 character
boundary and says how much was dropped, so a reader never mistakes a cut text for the whole.
"""

from __future__ import annotations

from typing import Any

ANSWER_BYTES = 256 * 1024  # a target's output, a judge's raw answer
REASON_BYTES = 16 * 1024
STDOUT_BYTES = 64 * 1024
ERROR_BYTES = 16 * 1024
MESSAGE_BYTES = 4 * 1024  # an experiment's or job's error message
DISPLAY_STRING_BYTES = 16 * 1024  # each string of a stored turn or rendered request


def cap_text(text: str | None, limit: int) -> str:
    """`text` cut to at most `limit` bytes of UTF-8 plus a '… truncated N bytes' marker."""
    if not text:
        return text or ""
    if len(text) * 4 <= limit:  # cheap exit: even all 4-byte characters would fit
        return text
    data = text.encode("utf-8", "surrogatepass")
    if len(data) <= limit:
        return text
    kept = data[:limit].decode("utf-8", "ignore")
    return f"{kept}… truncated {len(data) - len(kept.encode('utf-8', 'surrogatepass')):,} bytes"


def cap_json(value: Any, limit: int = DISPLAY_STRING_BYTES) -> Any:
    """A copy of a JSON value with every string capped (for stored and shown copies)."""
    if isinstance(value, str):
        return cap_text(value, limit)
    if isinstance(value, dict):
        return {key: cap_json(item, limit) for key, item in value.items()}
    if isinstance(value, list):
        return [cap_json(item, limit) for item in value]
    return value
