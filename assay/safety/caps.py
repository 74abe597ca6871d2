"""Stored sizes of untrusted text (model answers, reasons, stdout, errors, display copies) and
the bounds of untrusted usage numbers (latency, tokens, cost).

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
# A stored span's raw attributes (traces): each string value, and how many keys are kept (the
# rest are counted in `assay.dropped_attributes`); its input and output texts take ANSWER_BYTES.
SPAN_ATTRIBUTE_BYTES = 8 * 1024
SPAN_ATTRIBUTES_MAX = 200


# The largest usage numbers a row may store (pushed by a client, or taken out of an HTTP
# target's answer by its JMESPath expressions). Finite and non-negative, and small enough that
# a million rows' sums stay exact in 64 bits and JSON (a pushed 1e308 made an Infinity total
# PostgreSQL's jsonb refuses; 10**18 tokens overflowed SQLite's SUM).
LATENCY_MS_MAX = 7 * 24 * 3600 * 1000  # a week
TOKENS_MAX = 100_000_000  # per row, each of tokens_in and tokens_out
COST_MAX = 1_000_000  # per row, in the provider's currency
USAGE_MAXIMA: dict[str, int | float] = {
    "latency_ms": LATENCY_MS_MAX,
    "tokens_in": TOKENS_MAX,
    "tokens_out": TOKENS_MAX,
    "cost": COST_MAX,
}
WHOLE_USAGE = frozenset({"tokens_in", "tokens_out"})

# What a user's JMESPath expression may do to an untrusted answer (`bounded_jmespath`): the
# largest value it may build or return (as JSON), the values it may make in all, the nodes it
# may visit, and a last-resort time. An answer is at most ASSAY_TARGET_MAX_BYTES (4 MiB by
# default), so a whole answer fits; `join('', [@, @])` 27 times (411 characters) would have
# made a 513 MB string.
EXTRACT_VALUE_BYTES = 8 * 1024 * 1024
EXTRACT_BUILT_BYTES = 16 * 1024 * 1024
EXTRACT_STEPS = 1_000_000
EXTRACT_SECONDS = 5.0


class UsageOutOfBounds(ValueError):
    """A usage number that is not a number, negative, not finite or above its maximum."""

    def __init__(self, name: str, value: Any) -> None:
        self.name, self.value, self.maximum = name, value, USAGE_MAXIMA[name]
        kind = "a whole number" if name in WHOLE_USAGE else "a number"
        super().__init__(f"{name}: {value!r} is not {kind} from 0 to {self.maximum:,}")


def usage_bounded(name: str, value: Any) -> int | float:
    """`value` as the usage number `name` (`USAGE_MAXIMA`'s keys): an int for token counts
    (a whole float such as 12.0 is taken), a float otherwise; UsageOutOfBounds when it is not
    a number (booleans are not), negative, NaN or infinite, or above the maximum."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise UsageOutOfBounds(name, value)
    if not (0 <= value <= USAGE_MAXIMA[name]):  # NaN fails every comparison
        raise UsageOutOfBounds(name, value)
    if name in WHOLE_USAGE:
        if value != int(value):
            raise UsageOutOfBounds(name, value)
        return int(value)
    return float(value)


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
