"""How the judge is asked to answer ``{"reason": str, "score": number}``.

Providers differ in what they support, so each provider has a ``structured_mode``:

- ``json_schema``: ``response_format`` with a strict JSON schema (OpenAI, vLLM, recent others);
- ``tool``: a single ``eval(reason, score)`` tool forced with ``tool_choice``;
- ``json_object``: JSON mode (the prompt must mention JSON, so the instruction is appended);
- ``text``: no API support, the strict JSON instruction alone (parsed robustly afterwards).

The schema carries no minimum/maximum: several compatible servers reject those keywords in
strict mode, and the range is validated after parsing anyway.
"""

from __future__ import annotations

from typing import Any

STRUCTURED_MODES = ("json_schema", "tool", "json_object", "text")
TOOL_NAME = "eval"

_INSTRUCTION = (
    "Answer with a single JSON object and nothing else (no code fences, no text before or "
    'after it), in exactly this shape: {"reason": "<your reasoning, written first>", '
    '"score": <a number from 0 to 1>}. The score must be a JSON number between 0 and 1 '
    "inclusive, not a string."
)
# The same rule for a judge whose prompt is written in Chinese: a Chinese prompt ending in an
# English rule reads as two voices, and the judge then tends to reason in English. The JSON
# keys stay as they are, the parser reads them.
_INSTRUCTION_ZH = (
    "只回答一个 JSON 对象，不要有其他内容（不要代码块，对象前后不要有任何文字），格式必须是："
    '{"reason": "<你的理由，先写理由>", "score": <0 到 1 之间的数字>}。'
    "score 必须是 0 到 1 之间（含 0 和 1）的 JSON 数字，不能是字符串。"
)

_REASON_DESCRIPTION = "Your reasoning for the score, written before deciding the score."
_SCORE_DESCRIPTION = "The score, a number from 0.0 to 1.0 inclusive."


def answer_instruction(language: str = "en") -> str:
    """The strict JSON answer instruction appended to the system prompt in text modes, in the
    prompt's language ("zh": Chinese; see render.prompt_language)."""
    return _INSTRUCTION_ZH if language == "zh" else _INSTRUCTION


def answer_schema() -> dict[str, Any]:
    """JSON schema of the answer object (reason first so the model reasons before scoring)."""
    return {
        "type": "object",
        "properties": {
            "reason": {"type": "string", "description": _REASON_DESCRIPTION},
            "score": {"type": "number", "description": _SCORE_DESCRIPTION},
        },
        "required": ["reason", "score"],
        "additionalProperties": False,
    }


def answer_params(mode: str, schema: dict[str, Any] | None = None) -> dict[str, Any]:
    """Extra request body fields for an answer mode; `schema` is the answer's JSON schema (a
    judge's score by default; a pairwise judge passes its verdict's)."""
    schema = schema or answer_schema()
    if mode == "json_schema":
        wrapped = {"name": "evaluation", "strict": True, "schema": schema}
        return {"response_format": {"type": "json_schema", "json_schema": wrapped}}
    if mode == "tool":
        return {"tools": [_eval_tool(schema)], "tool_choice": _forced_tool()}
    if mode == "json_object":
        return {"response_format": {"type": "json_object"}}
    if mode == "text":
        return {}
    raise ValueError(f"unknown structured_mode {mode!r}; expected one of {STRUCTURED_MODES}")


def _eval_tool(schema: dict[str, Any]) -> dict[str, Any]:
    """The ``eval(reason, score)`` function tool (or whatever `schema` asks for)."""
    function = {
        "name": TOOL_NAME,
        "description": "Record the evaluation result.",
        "parameters": schema,
    }
    return {"type": "function", "function": function}


def _forced_tool() -> dict[str, Any]:
    """``tool_choice`` that forces the eval tool."""
    return {"type": "function", "function": {"name": TOOL_NAME}}
