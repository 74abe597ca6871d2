"""What a trace page shows of one span, read from its stored columns and raw attributes:
its input and output as a transcript (messages), a tool call and its result, retrieved
documents, JSON or text; its attributes as a table; the whole span as raw JSON.

Plain values only: the templates escape every text (`templates/traces/_span_*.html`).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

from ..models import Span, SpanKind

DOCUMENT = re.compile(r"^retrieval\.documents\.(\d+)\.document\.(id|score|content|metadata)$")
TOOL_NAME_KEYS = ("gen_ai.tool.name", "tool.name")
RAW_FIELDS = (
    "trace_id", "span_id", "parent_span_id", "name", "service", "kind", "model", "status",
    "error", "session_id", "user_id", "environment", "tokens_in", "tokens_out", "cost",
    "duration_ms", "input_text", "output_text", "input_messages", "output_messages",
)  # fmt: skip


@dataclass
class Part:
    """One side (input or output) of a span: messages, JSON or text; empty when none."""

    messages: dict | None = None
    json: str = ""
    text: str = ""

    def __bool__(self) -> bool:
        return bool(self.messages or self.json or self.text)


@dataclass
class Document:
    """One retrieved document: its id, relevance score and text, in the retriever's order."""

    position: int
    id: str = ""
    score: float | None = None
    content: str = ""
    metadata: str = ""


@dataclass
class SpanView:
    input: Part
    output: Part
    tool_name: str = ""
    documents: list[Document] = field(default_factory=list)
    attributes: list[tuple[str, str]] = field(default_factory=list)
    raw: str = ""


def span_view(span: Span) -> SpanView:
    """The span as the trace page draws it."""
    attributes = span.attributes or {}
    documents = documents_read(attributes)
    output = _part(span.output_messages, span.output_text)
    if documents and span.kind == SpanKind.RETRIEVER:
        output = Part()  # the documents are the output; their joined text says it again
    return SpanView(
        input=_part(span.input_messages, span.input_text),
        output=output,
        tool_name=_tool_name(span, attributes),
        documents=documents,
        attributes=[(key, _shown(value)) for key, value in sorted(attributes.items())],
        raw=json.dumps(_raw(span), indent=2, ensure_ascii=False, default=str),
    )


def documents_read(attributes: dict) -> list[Document]:
    """OpenInference's `retrieval.documents.<i>.document.*` as documents, by position."""
    found: dict[int, Document] = {}
    for key, value in attributes.items():
        match = DOCUMENT.match(key)
        if match is None:
            continue
        position, part = int(match.group(1)), match.group(2)
        document = found.setdefault(position, Document(position=position))
        if part == "score":
            document.score = _number(value)
        else:
            setattr(document, part, _shown(value))
    return [found[position] for position in sorted(found)]


def _part(messages: dict | None, text: str) -> Part:
    if messages and messages.get("messages"):
        return Part(messages=messages)
    pretty = _pretty_json(text)
    return Part(json=pretty) if pretty else Part(text=text or "")


def _pretty_json(text: str) -> str:
    """The text indented when it is a JSON object or list (tool arguments, a response)."""
    if not text or text.lstrip()[:1] not in ("{", "["):
        return ""
    try:
        return json.dumps(json.loads(text), indent=2, ensure_ascii=False)
    except ValueError:  # cut by the caps, or not JSON after all
        return ""


def _tool_name(span: Span, attributes: dict) -> str:
    if span.kind != SpanKind.TOOL:
        return ""
    return next((str(attributes[k]) for k in TOOL_NAME_KEYS if attributes.get(k)), "")


def _shown(value) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def _number(value) -> float | None:
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


def _raw(span: Span) -> dict:
    raw = {name: getattr(span, name) for name in RAW_FIELDS}
    raw |= {"start_time": span.start_time.isoformat(), "end_time": span.end_time.isoformat()}
    return raw | {"attributes": span.attributes or {}}
