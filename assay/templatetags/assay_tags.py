"""Template filters shared by every page."""

from __future__ import annotations

import json

from django import template

register = template.Library()

# An interval no wider than this (a fraction: 0.001 percentage points) is not drawn, as garak
# does not print one (its CI_DISPLAY_MIN_WIDTH, in the same units).
MIN_WHISKER = 0.001 / 100


@register.filter
def score(value) -> str:
    """A score for display: up to 4 decimals, trailing zeros dropped (stored at full precision)."""
    if value is None:
        return "—"
    return f"{float(value):.4f}".rstrip("0").rstrip(".") or "0"


@register.filter
def percent(value, digits: int = 1) -> str:
    """A fraction in [0, 1] as a percentage."""
    if value is None:
        return "—"
    return f"{float(value) * 100:.{int(digits)}f}%"


@register.filter
def pretty_json(value) -> str:
    """A JSON value indented for a <pre> block (autoescaped like any other text)."""
    return json.dumps(value, indent=2, ensure_ascii=False, default=str)


@register.filter
def structured(value) -> bool:
    """Whether a value is an object or a list (shown as JSON rather than inline)."""
    return isinstance(value, dict | list)


@register.filter
def usd(value) -> str:
    """An amount of money: more digits for the small sums a row costs."""
    if value is None:
        return "—"
    return (
        f"${value:,.2f}" if value >= 1 else f"${value:.4f}" if value >= 0.0001 else f"${value:.6f}"
    )


@register.inclusion_tag("partials/_empty.html")
def empty_state(title, text, action_label: str = "", action_url: str = "") -> dict:
    """What a page shows instead of an empty table: a title, a line, and maybe the next step."""
    return {"title": title, "text": text, "action_label": action_label, "action_url": action_url}


@register.inclusion_tag("partials/_whisker.html")
def ci_whisker(rate, ci=None, label: str = "") -> dict:
    """A 0–100 % strip with the point and, when it is wide enough to see, the interval."""
    wide = bool(ci) and ci[1] - ci[0] > MIN_WHISKER
    return {"rate": rate, "ci": ci if wide else None, "label": label}
