"""How a pairwise judge is asked to answer ``{"reason": str, "verdict": "A" | "B" | "tie"}``,
and how its answer is read.

The schema puts the reason first (a model reasons before it decides) and lists the three
verdicts as an enum, so a provider with strict structured output can answer nothing else.
Without that support the answer is read as robustly as a judge's score (`parse.py`, whose
strategies this reuses): the whole answer as JSON, fenced JSON, objects inside prose, repaired
almost-JSON; then a ``verdict: A`` pattern; then an answer that is nothing but the verdict.
Only A, B and tie (any case) count. Anything else is an AnswerError keeping the raw answer,
never a guess: a guessed verdict would read as a judgement.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..pairing import TIE, A, B, parse_answer
from .parse import AnswerError, _excerpt, _reason_of, answer_read, field_key

VERDICTS = (A, B, TIE)
INSTRUCTION = (
    "Answer with a single JSON object and nothing else (no code fences, no text before or "
    'after it), in exactly this shape: {"reason": "<your reasoning, written first>", '
    '"verdict": "A" or "B" or "tie"}. "A" means the first answer is better, "B" the second, '
    '"tie" that neither is better than the other.'
)
INSTRUCTION_ZH = (
    "只回答一个 JSON 对象，不要有其他内容（不要代码块，对象前后不要有任何文字），格式必须是："
    '{"reason": "<你的比较理由，先写理由>", "verdict": "A" 或 "B" 或 "tie"}。'
    '"A" 表示第一个回答更好，"B" 表示第二个回答更好，"tie" 表示两者不分高下。'
)
_VERDICT_PATTERN_RE = re.compile(
    r"""["']?\bverdict\b["']?\s*[:=]\s*["'*]*\s*(A|B|tie)\b""", re.IGNORECASE
)
# An answer that is only the verdict, perhaps quoted, emphasised or followed by a full stop.
_BARE_RE = re.compile(r"""^[\s"'*`]*(A|B|tie)[\s"'*`.!]*$""", re.IGNORECASE)


@dataclass(frozen=True)
class ParsedChoice:
    """A readable pairwise answer, in the frame of the order it was asked in ("A": the output
    shown first); ``method`` names the strategy that found it."""

    verdict: str
    reason: str
    method: str = "json"


def choice_schema() -> dict[str, Any]:
    """JSON schema of the answer object: the reason first, then one of the three verdicts."""
    return {
        "type": "object",
        "properties": {
            "reason": {
                "type": "string",
                "description": "Your comparison of the two answers, written before deciding.",
            },
            "verdict": {
                "type": "string",
                "enum": list(VERDICTS),
                "description": 'The better answer: "A" (the first), "B" (the second) or "tie".',
            },
        },
        "required": ["reason", "verdict"],
        "additionalProperties": False,
    }


def choice_instruction(language: str = "en") -> str:
    """The strict JSON answer instruction appended to the system prompt in text modes, in the
    prompt's language ("zh": Chinese)."""
    return INSTRUCTION_ZH if language == "zh" else INSTRUCTION


def parse_choice(raw: str | Mapping[str, Any]) -> ParsedChoice:
    """The verdict and reason in ``raw`` (answer text or tool-call arguments); AnswerError when
    no verdict can be read or the verdict found is not A, B or tie."""
    return answer_read(raw, field="verdict", from_object=_from_object, from_text=_from_text)


def _from_object(obj: Mapping[str, Any], raw: Any, method: str) -> ParsedChoice:
    """Validate a decoded answer object; a verdict found here is final, valid or not."""
    key = field_key(dict(obj), "verdict")
    if key is None:
        raise AnswerError("the answer has no verdict field", raw)
    verdict = parse_answer(obj[key])
    if verdict is None:
        shown = json.dumps(obj[key], ensure_ascii=False)[:60]
        raise AnswerError(f'verdict must be "A", "B" or "tie", got {shown}', raw)
    return ParsedChoice(verdict=verdict, reason=_reason_of(obj), method=method)


def _from_text(text: str, raw: Any, saw_object: bool) -> ParsedChoice:
    """Last resorts: a ``verdict: B`` pattern (the reason is the text), or a bare verdict."""
    match = _VERDICT_PATTERN_RE.search(text)
    if match is not None:
        return ParsedChoice(parse_answer(match.group(1)), reason=text, method="pattern")
    match = _BARE_RE.match(text)
    if match is not None:
        return ParsedChoice(parse_answer(match.group(1)), reason="", method="bare")
    what = "the answer has no verdict field" if saw_object else "no verdict found in the answer"
    raise AnswerError(f"{what}: {_excerpt(text)}", raw)
