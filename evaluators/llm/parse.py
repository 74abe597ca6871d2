"""Parse a judge model's answer into a score in [0, 1] and a reason.

Models wrap JSON in code fences, surround it with prose or emit almost-JSON; the strategies
below are tried in order and the first one that yields an object with a ``score`` key decides.
A score that is not a finite number in [0, 1] is an error that keeps the raw answer: we never
clamp and never default to 0, because a silent 0 looks like a real verdict.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import json_repair

_FENCE_RE = re.compile(r"```[ \t]*[A-Za-z0-9_-]*[ \t]*\r?\n?(.*?)```", re.DOTALL)
_SCORE_PATTERN_RE = re.compile(
    r"""["']?\bscore\b["']?\s*[:=]\s*["']?(-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)""",
    re.IGNORECASE,
)
_MAX_RAW_IN_MESSAGE = 200
_MAX_BRACE_STARTS = 32


@dataclass(frozen=True)
class ParsedAnswer:
    """A valid judge answer; ``method`` names the strategy that found it."""

    score: float
    reason: str
    method: str = "json"


class AnswerError(ValueError):
    """The answer has no usable score; ``raw`` keeps the model's answer for display."""

    def __init__(self, message: str, raw: Any) -> None:
        super().__init__(message)
        self.message = message
        self.raw = raw


def parse_answer(raw: str | Mapping[str, Any]) -> ParsedAnswer:
    """Return the score and reason in ``raw`` (answer text or tool-call arguments).

    Raises ``AnswerError`` when no score can be found or the score is invalid.
    """
    return answer_read(raw, field="score", from_object=_from_object, from_text=_from_pattern)


def answer_read(raw: str | Mapping[str, Any], *, field: str, from_object, from_text):
    """Read a judge's answer whose deciding key is ``field`` (a score judge's and a pairwise
    judge's alike): tool-call arguments as they are, else the first JSON object in the text
    that has the key (best strategy first), else ``from_text(text, raw, saw_object)``.
    ``from_object(obj, raw, method)`` validates what was found. AnswerError for an answer that
    is neither text nor an object, or is empty."""
    if isinstance(raw, Mapping):
        return from_object(raw, raw, "tool")
    if not isinstance(raw, str):
        raise AnswerError(f"answer must be text or an object, got {type(raw).__name__}", raw)
    text = raw.strip()
    if not text:
        raise AnswerError("the model returned an empty answer", raw)
    saw_object = False
    for method, obj in _candidates(text):
        if field_key(obj, field) is not None:
            return from_object(obj, raw, method)
        saw_object = True
    return from_text(text, raw, saw_object)


def _candidates(text: str) -> Iterator[tuple[str, Any]]:
    """Yield (method, decoded object) for every JSON object the text may contain, best first."""
    direct = _loads(text)
    if isinstance(direct, dict):
        yield "json", direct
    for block in _FENCE_RE.findall(text):
        yield from _objects("fenced", _loads(block.strip()))
    for fragment in _balanced_objects(text):
        yield from _objects("embedded", _loads(fragment))
    for fragment in _repair_targets(text):
        yield from _objects("repaired", _repair(fragment))


def _objects(method: str, value: Any) -> Iterator[tuple[str, Any]]:
    """Yield dicts from a decoded value (a list of objects counts too)."""
    if isinstance(value, dict):
        yield method, value
    elif isinstance(value, list):
        for item in value:
            if isinstance(item, dict):
                yield method, item


def _loads(text: str) -> Any:
    """Strict JSON decode; None when the text is not JSON."""
    try:
        return json.loads(text)
    except ValueError:
        return None


def _repair(text: str) -> Any:
    """Decode almost-JSON (single quotes, trailing commas, missing brackets); None on failure."""
    try:
        return json_repair.loads(text)
    except Exception:  # the repair library may raise anything on hostile input
        return None


def _balanced_objects(text: str) -> Iterator[str]:
    """Yield balanced ``{...}`` substrings, outermost first, honouring JSON strings.

    Only the first few opening braces are tried: the scan is quadratic and a judge answer
    with more objects than that is not worth rescuing this way.
    """
    starts = [index for index, char in enumerate(text) if char == "{"][:_MAX_BRACE_STARTS]
    for start in starts:
        end = _matching_brace(text, start)
        if end is not None:
            yield text[start : end + 1]


def _matching_brace(text: str, start: int) -> int | None:
    """Index of the brace closing the one at ``start``, or None if it never closes."""
    depth, in_string, escaped = 0, False, False
    for index in range(start, len(text)):
        char = text[index]
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
            continue
        if char == '"':
            in_string = True
        elif char in "{}":
            depth += 1 if char == "{" else -1
            if depth == 0:
                return index
    return None


def _repair_targets(text: str) -> list[str]:
    """Texts worth repairing: fenced blocks, then from the first brace on, then everything."""
    targets = [block.strip() for block in _FENCE_RE.findall(text)]
    first = text.find("{")
    if first >= 0:
        last = text.rfind("}")
        targets.append(text[first : last + 1] if last > first else text[first:])
    targets.append(text)
    return targets


def field_key(obj: Any, name: str) -> str | None:
    """The key of ``obj`` that is ``name`` matched case-insensitively, or None (also when
    ``obj`` is not an object)."""
    if not isinstance(obj, dict):
        return None
    return next((k for k in obj if isinstance(k, str) and k.strip().lower() == name), None)


def _reason_of(obj: Mapping[str, Any]) -> str:
    """The reason as text; a missing reason is an empty string (the score is what counts)."""
    for key, value in obj.items():
        if isinstance(key, str) and key.strip().lower() == "reason":
            if value is None:
                return ""
            return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return ""


def _from_object(obj: Mapping[str, Any], raw: Any, method: str) -> ParsedAnswer:
    """Validate a decoded answer object."""
    key = field_key(dict(obj), "score")
    if key is None:
        raise AnswerError("the answer has no score field", raw)
    score = validate_score(obj[key], raw)
    return ParsedAnswer(score=score, reason=_reason_of(obj), method=method)


def _from_pattern(text: str, raw: Any, saw_object: bool = False) -> ParsedAnswer:
    """Last resort: a ``score: 0.8`` pattern anywhere in the text; the reason is the text."""
    match = _SCORE_PATTERN_RE.search(text)
    if match is None:
        what = "the answer has no score field" if saw_object else "no score found in the answer"
        raise AnswerError(f"{what}: {_excerpt(text)}", raw)
    return ParsedAnswer(score=validate_score(match.group(1), raw), reason=text, method="pattern")


def validate_score(value: Any, raw: Any) -> float:
    """Return ``value`` as a float in [0, 1] at full precision, or raise ``AnswerError``."""
    if isinstance(value, bool):
        raise AnswerError(f"score must be a number, got a boolean ({json.dumps(value)})", raw)
    if isinstance(value, str):
        value = _number_from_text(value, raw)
    if not isinstance(value, int | float):
        raise AnswerError(f"score must be a number, got {type(value).__name__}", raw)
    score = float(value)
    if not math.isfinite(score):
        raise AnswerError(f"score is not a finite number ({score})", raw)
    if not 0.0 <= score <= 1.0:
        raise AnswerError(f"score {value!r} is outside [0, 1]", raw)
    return score


def _number_from_text(value: str, raw: Any) -> float:
    """A numeric string such as "0.7"; anything else is an error."""
    try:
        return float(value.strip())
    except ValueError:
        raise AnswerError(f"score is not a number: {_excerpt(value)}", raw) from None


def _excerpt(text: str) -> str:
    """A short, single-line quote of the answer for error messages."""
    flat = " ".join(text.split())
    if len(flat) <= _MAX_RAW_IN_MESSAGE:
        return repr(flat)
    return repr(flat[:_MAX_RAW_IN_MESSAGE] + "…")
