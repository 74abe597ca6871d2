"""Template helpers for rendering content objects (always escaped: data is untrusted)."""

from django import template

from ..items.content import MEDIA_KEYS
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
