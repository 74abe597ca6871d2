"""Template helpers for rendering content objects (always escaped: data is untrusted)."""

from django import template

from assay.vocabulary import CHAT_ROLES, ChatRole

from ..items.content import MEDIA_KEYS
from ..items.conversation import MESSAGES
from ..items.media import media_url

register = template.Library()


@register.simple_tag
def media_src(content, workspace) -> str:
    """The address an <img>/<audio> reads a content's media from: its URL, or the media view."""
    kind = (content or {}).get("content_type")
    media = (content or {}).get(MEDIA_KEYS.get(kind, ""), {}) or {}
    if media.get("url"):
        return media["url"]
    if media.get("uri"):
        return media_url(workspace, media["uri"])
    return ""


@register.filter
def media_of(content) -> dict:
    """The inner media object of an Image/Audio content."""
    kind = (content or {}).get("content_type")
    return (content or {}).get(MEDIA_KEYS.get(kind, ""), {}) or {}


@register.filter
def media_column(data, name):
    """data[name] in a template (column names are not always valid template variables)."""
    return (data or {}).get(name)


PREVIEW_MESSAGES = 2  # a table cell shows the first turns of a conversation, then a count


@register.filter
def chat_messages(content) -> list[dict]:
    """A conversation's messages as the transcript shows them: each with its role's label,
    and each tool result with the name of the call it answers."""
    messages = (content or {}).get(MESSAGES) or []
    names = {
        call["id"]: call["function"]["name"] for m in messages for call in m.get("tool_calls") or []
    }
    return [
        {
            **m,
            "role_label": _role_label(m.get("role")),
            "tool_name": names.get(m.get("tool_call_id")),
        }
        for m in messages
    ]


@register.filter
def chat_preview(messages: list[dict]) -> list[dict]:
    """The first turns worth showing in a table: system prompts are left to the full view."""
    return [m for m in messages if m.get("role") != ChatRole.SYSTEM][:PREVIEW_MESSAGES]


def _role_label(role) -> str:
    return ChatRole(role).label if role in CHAT_ROLES else str(role)
