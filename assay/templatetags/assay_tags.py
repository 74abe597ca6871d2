"""Template filters shared by every page."""

from __future__ import annotations

from django import template

register = template.Library()


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
