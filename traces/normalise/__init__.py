"""The normalisers, in the order they are asked (the first to give a field keeps it), and the
one function the worker calls: a span's source → its typed columns."""

from __future__ import annotations

from assay.safety.caps import cap_json
from evalsets.items.cells import TEXT_CELL_CAP, CellError
from evalsets.items.conversation import conversation_content

from ..models import SpanKind
from . import genai, openinference
from .base import Fields, Normaliser, SpanSource

MARKER_ROOM = 64  # the '… truncated N bytes' a cut text ends with
NORMALISERS: tuple[Normaliser, ...] = (openinference.SPEC, genai.SPEC)


def span_fields(span: SpanSource) -> Fields:
    """What every convention the span speaks says about it; messages become Conversation
    content (a list that is not a valid conversation is dropped, and the reason kept in
    `messages_problem`); the texts are the messages' last user and assistant turns when
    there are messages."""
    fields = Fields()
    for normaliser in NORMALISERS:
        if normaliser.applies(span):
            normaliser.fill(span, fields)
    fields.put("kind", SpanKind.OTHER)
    for key, last_role in (("input_messages", "user"), ("output_messages", "assistant")):
        messages = fields.pop(key, None)
        if messages:
            fields[key] = _conversation(messages, fields)
            # the message's text over input.value/output.value, which for an LLM call is often
            # the whole request or response as JSON (OpenInference's OpenAI instrumentation)
            text_key = "input_text" if key == "input_messages" else "output_text"
            fields[text_key] = _last_text(messages, last_role) or fields.get(text_key, "")
    return fields


def _conversation(messages: list, fields: Fields) -> dict | None:
    try:
        # each text cut (and marked) to fit a text cell, as a stored conversation's texts must
        return conversation_content(cap_json(messages, TEXT_CELL_CAP - MARKER_ROOM))
    except CellError as exc:
        fields["messages_problem"] = str(exc.problem)
        return None


def _last_text(messages: list, role: str) -> str:
    """The last message of `role` with text (any message's when none has that role)."""
    texts = [m for m in messages if isinstance(m, dict) and isinstance(m.get("content"), str)]
    chosen = [m for m in texts if m.get("role") == role] or texts
    return chosen[-1]["content"] if chosen else ""
