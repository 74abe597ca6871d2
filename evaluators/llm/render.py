"""Render an LLM evaluator's messages for one turn into OpenAI chat messages.

``{{ name }}`` placeholders in text are replaced by Text variables (a Conversation gives its
transcript); a ``multi_part_variable`` part expands an Image / Audio / MultiPart variable into
OpenAI content parts; the ``chat_history_variable`` Conversation goes before the judge's own user
message as chat messages. A missing required variable raises ``RenderError`` (the row is skipped
with an unknown verdict): rendering an empty string instead would make the judge score a prompt
that silently lost its input. So does a conversation listed in ``needs_tool_results`` that has
no tool result: the evidence the judge would check is missing.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

from assay.vocabulary import CONTENT_FIELD, ContentType

from ..turns import DATASET, TARGET
from .answer import answer_instruction
from .conversation import call_text, has_tool_results, history_messages, transcript

TEXT, IMAGE, AUDIO, MULTIPART, CONVERSATION = (t.value for t in ContentType)

MediaResolver = Callable[[str], str]

PLACEHOLDER_RE = re.compile(r"\{\{\s*([A-Za-z_][A-Za-z0-9_.-]*)\s*\}\}")
_DATA_URL_RE = re.compile(r"^data:([^;,]*)(?:;[^,]*)?;base64,(.*)$", re.DOTALL)
_INSTRUCTION_MODES = ("text", "json_object")
_CJK_RE = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_LATIN_RE = re.compile(r"[A-Za-z]")
# MIME types of data URLs mapped to the format names the chat API expects.
_AUDIO_FORMATS = {"audio/mpeg": "mp3", "audio/mp3": "mp3", "audio/wav": "wav", "audio/x-wav": "wav"}


class RenderError(ValueError):
    """The turn cannot be rendered (e.g. a required variable is missing)."""

    lead = "cannot render the prompt"  # how the skipped row's message begins

    def __init__(self, message: str, variable: str | None = None) -> None:
        super().__init__(message)
        self.variable = variable


class MissingEvidence(RenderError):
    """The turn renders, but lacks what the judge is asked to check (no tool results)."""

    lead = "not judged"


def render_messages(
    config: Mapping[str, Any],
    turn: Mapping[str, Any],
    *,
    media_resolver: MediaResolver | None = None,
    structured_mode: str = "json_schema",
    instruction: str | None = None,
) -> list[dict[str, Any]]:
    """Return the OpenAI chat messages for ``turn``; raise ``RenderError`` if it cannot render.

    For the ``text`` and ``json_object`` answer modes the strict JSON answer instruction is
    appended to the system prompt (a system message is added if there is none);
    ``instruction`` replaces the score's for a judge that answers something else.
    """
    ctx = _Context(config, turn, media_resolver)
    ctx.check_required()
    ctx.check_evidence(config.get("needs_tool_results") or ())
    messages = [_render_message(message, ctx) for message in config.get("messages") or []]
    if structured_mode in _INSTRUCTION_MODES:
        rule = instruction or answer_instruction(prompt_language(config))
        messages = _with_instruction(messages, rule)
    history = _history(config.get("chat_history_variable"), ctx, structured_mode)
    return _with_history(messages, history)


class _Context:
    """Variable declarations and values for one turn."""

    def __init__(
        self, config: Mapping[str, Any], turn: Mapping[str, Any], resolver: MediaResolver | None
    ) -> None:
        self.declared = {v["name"]: v for v in config.get("input_variables") or []}
        self.turn = turn
        self.resolver = resolver

    def check_required(self) -> None:
        """Raise for the first required variable the turn does not provide."""
        for name, declaration in self.declared.items():
            if declaration.get("required") and self.lookup(name) is None:
                raise RenderError(f"required variable {name!r} is missing", name)

    def check_evidence(self, names) -> None:
        """Raise for the first listed conversation that has no tool result (or is absent)."""
        for name in names:
            content = self.lookup(name)
            if content is None or not has_tool_results(content):
                raise MissingEvidence(
                    f"conversation {name!r} has no tool results, so there is nothing to check "
                    "its answers against",
                    name,
                )

    def lookup(self, name: str) -> dict[str, Any] | None:
        """The variable's content: target output fields first, then dataset fields."""
        for section in (TARGET, DATASET):
            fields = self.turn.get(section) or {}
            content = _as_content(fields.get(name))
            if content is not None:
                return content
        return None

    def value(self, name: str) -> dict[str, Any] | None:
        """The content for ``name``; None if optional and absent; raise if it must exist."""
        content = self.lookup(name)
        if content is None and self._must_exist(name):
            raise RenderError(f"required variable {name!r} is missing", name)
        return content

    def _must_exist(self, name: str) -> bool:
        # An undeclared placeholder has no "optional" flag, so its absence is an error too.
        declaration = self.declared.get(name)
        return declaration is None or bool(declaration.get("required"))


def _as_content(value: Any) -> dict[str, Any] | None:
    """Normalise a field value to a content object; a bare string counts as Text."""
    if value is None:
        return None
    if isinstance(value, str):
        return {"content_type": "Text", "text": value}
    if not isinstance(value, Mapping) or _is_empty(value):
        return None
    return dict(value)


def _is_empty(content: Mapping[str, Any]) -> bool:
    """A content object that carries no value at all (text None, no image, ...)."""
    kind = content.get("content_type", TEXT)
    return content.get(CONTENT_FIELD.get(kind, CONTENT_FIELD[TEXT])) is None


def _render_message(message: Mapping[str, Any], ctx: _Context) -> dict[str, Any]:
    """Render one message; system messages are always plain text."""
    role = message.get("role", "user")
    content = message.get("content")
    if isinstance(content, str) or content is None:
        return {"role": role, "content": _substitute(content or "", ctx)}
    parts = [rendered for part in content for rendered in _render_part(part, ctx)]
    if role == "system":
        return {"role": role, "content": _system_text(parts)}
    return {"role": role, "content": parts}


def _system_text(parts: list[dict[str, Any]]) -> str:
    """Join a system message's text parts; media is only allowed in user messages."""
    if any(part["type"] != "text" for part in parts):
        raise RenderError("images and audio are only allowed in user messages")
    return "".join(part["text"] for part in parts)


def _text_part(part: Mapping[str, Any], ctx: _Context) -> list[dict[str, Any]]:
    return [{"type": "text", "text": _substitute(part.get("text") or "", ctx)}]


def _variable_part(part: Mapping[str, Any], ctx: _Context) -> list[dict[str, Any]]:
    name = part.get("variable") or part.get("text") or ""
    content = ctx.value(name)
    return [] if content is None else _expand(content, name, ctx)


PART_RENDERERS = {"text": _text_part, "multi_part_variable": _variable_part}


def _render_part(part: Mapping[str, Any], ctx: _Context) -> list[dict[str, Any]]:
    """Render one content part of a message into zero or more OpenAI parts."""
    render = PART_RENDERERS.get(part.get("type"))
    if render is None:
        raise RenderError(f"unknown message part type {part.get('type')!r}")
    return render(part, ctx)


def _substitute(text: str, ctx: _Context) -> str:
    """Replace ``{{ name }}`` placeholders with the variables' text."""
    return PLACEHOLDER_RE.sub(lambda match: _text_of(match.group(1), ctx), text)


def _plain_text(content: Mapping[str, Any]) -> str:
    return str(content.get("text", ""))


def _multipart_text(content: Mapping[str, Any]) -> str:
    parts = content.get("multi_part") or []
    return "".join(str(p.get("text", "")) for p in parts if p.get("content_type") == TEXT)


# The text a content gives in a {{placeholder}}: Text its text, MultiPart its text parts, a
# Conversation its transcript.
TEXT_OF = {TEXT: _plain_text, MULTIPART: _multipart_text, CONVERSATION: transcript}


def _text_of(name: str, ctx: _Context) -> str:
    """Text for a placeholder; media must go in a multi_part_variable part instead."""
    content = ctx.value(name)
    if content is None:
        return ""
    content_type = content.get("content_type", TEXT)
    text = TEXT_OF.get(content_type)
    if text is None:
        raise RenderError(
            f"variable {name!r} is {content_type}: put it in a multi_part_variable "
            "part, not in text",
            name,
        )
    return text(content)


def _expand(content: Mapping[str, Any], name: str, ctx: _Context) -> list[dict[str, Any]]:
    """OpenAI content parts for a variable's content (MultiPart flattens in order)."""
    content_type = content.get("content_type", TEXT)
    expand = EXPANDERS.get(content_type)
    if expand is None:
        raise RenderError(f"variable {name!r} has unknown content type {content_type!r}", name)
    return expand(content, name, ctx)


def _expand_text(content, name, ctx) -> list[dict[str, Any]]:
    return [{"type": "text", "text": _plain_text(content)}]


def _expand_image(content, name, ctx) -> list[dict[str, Any]]:
    return [_image_part(content.get("image") or {}, name, ctx)]


def _expand_audio(content, name, ctx) -> list[dict[str, Any]]:
    return [_audio_part(content.get("audio") or {}, name, ctx)]


def _expand_multipart(content, name, ctx) -> list[dict[str, Any]]:
    return [out for part in content.get("multi_part") or [] for out in _expand(part, name, ctx)]


EXPANDERS = {
    TEXT: _expand_text,
    IMAGE: _expand_image,
    AUDIO: _expand_audio,
    MULTIPART: _expand_multipart,
}


def _media_url(media: Mapping[str, Any], name: str, ctx: _Context) -> str:
    """The URL to send: the resolver's answer for a storage uri, else the content url."""
    uri, url = media.get("uri"), media.get("url")
    if uri and ctx.resolver is not None:
        return ctx.resolver(uri)
    if url:
        return str(url)
    raise RenderError(f"variable {name!r} has media without a url", name)


def _image_part(image: Mapping[str, Any], name: str, ctx: _Context) -> dict[str, Any]:
    """An ``image_url`` part (a data URL or a fetchable URL)."""
    return {"type": "image_url", "image_url": {"url": _media_url(image, name, ctx)}}


def _audio_part(audio: Mapping[str, Any], name: str, ctx: _Context) -> dict[str, Any]:
    """An ``input_audio`` part; the API wants inline base64, so the URL must be a data URL."""
    url = _media_url(audio, name, ctx)
    match = _DATA_URL_RE.match(url)
    if match is None:
        raise RenderError(
            f"audio variable {name!r} must resolve to a base64 data URL, got a link", name
        )
    mime, data = match.groups()
    audio_format = audio.get("format") or _AUDIO_FORMATS.get(mime.lower(), "wav")
    return {"type": "input_audio", "input_audio": {"data": data, "format": audio_format}}


def _history(name: str | None, ctx: _Context, structured_mode: str) -> list[dict[str, Any]]:
    """The chat history variable's messages ([] when none is set or an optional one is absent)."""
    content = ctx.value(name) if name else None
    if content is None:
        return []
    if content.get("content_type") != CONVERSATION:
        kind = content.get("content_type", TEXT)
        raise RenderError(f"chat history variable {name!r} is {kind}, not a Conversation", name)
    return history_messages(content, tools_as_text=structured_mode == "tool")


def _with_history(messages: list[dict[str, Any]], history: list[dict[str, Any]]):
    """The history after the judge's leading system messages, before its own user message."""
    lead = next((i for i, m in enumerate(messages) if m["role"] != "system"), len(messages))
    return [*messages[:lead], *history, *messages[lead:]]


def prompt_language(config: Mapping[str, Any]) -> str:
    """ "zh" when the evaluator's own prompt is written in Chinese, else "en": the language of
    the answer rule Assay appends. Only the prompt's text counts (placeholders out, row values
    never): a Chinese character weighs like a few Latin letters, as a word does."""
    texts = []
    for message in config.get("messages") or []:
        content = message.get("content")
        parts = [{"type": "text", "text": content}] if isinstance(content, str) else content or []
        texts += [p.get("text") or "" for p in parts if p.get("type") == "text"]
    text = PLACEHOLDER_RE.sub(" ", " ".join(texts))
    cjk = len(_CJK_RE.findall(text))
    return "zh" if cjk and cjk * 3 >= len(_LATIN_RE.findall(text)) else "en"


def _with_instruction(messages: list[dict[str, Any]], instruction: str) -> list[dict[str, Any]]:
    """Append the answer instruction to the first system message (adding one if needed)."""
    for index, message in enumerate(messages):
        if message["role"] == "system":
            text = message["content"].rstrip()
            joined = f"{text}\n\n{instruction}" if text else instruction
            updated = {"role": "system", "content": joined}
            return [*messages[:index], updated, *messages[index + 1 :]]
    return [{"role": "system", "content": instruction}, *messages]


def template_variables(config: Mapping[str, Any]) -> set[str]:
    """Names referenced by placeholders or multi_part_variable parts (for config checks)."""
    names: set[str] = set()
    for message in config.get("messages") or []:
        content = message.get("content")
        parts = [{"type": "text", "text": content}] if isinstance(content, str) else content or []
        for part in parts:
            if part.get("type") == "multi_part_variable":
                names.add(part.get("variable") or part.get("text") or "")
            else:
                names.update(PLACEHOLDER_RE.findall(part.get("text") or ""))
    return names


def prompt_text(request: dict | None) -> str:
    """The rendered messages as readable text; media parts shown as markers, not data."""
    if not request:
        return ""
    return "\n\n".join(_shown_message(m) for m in request.get("messages") or [])


def _shown_message(message: Mapping[str, Any]) -> str:
    """One sent message: its role (and the call a tool result answers), text, tool calls."""
    content = message.get("content")
    if isinstance(content, list):
        content = "\n".join(
            part.get("text", "") if part.get("type") == "text" else f"<{part.get('type')}>"
            for part in content
        )
    head = f"[{message.get('role')}" + (
        f" {message['tool_call_id']}]" if message.get("tool_call_id") else "]"
    )
    calls = [f"[tool call {call_text(c)}]" for c in message.get("tool_calls") or []]
    return "\n".join([head, *([content] if content is not None else []), *calls])
