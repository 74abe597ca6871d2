"""Panels other apps add to a trace's page.

traces imports no app above it (the arrows in docs/design/architecture.md), yet what they make
of a trace belongs on its page (online evaluation's scores); so an app with something to show
registers a panel here from its `AppConfig.ready()`, and the page renders whatever is
registered, in order, below the span tree.
"""

from __future__ import annotations

from collections.abc import Callable

from django.utils.safestring import SafeString

from .models import Span

# panel(request=, trace_id=, spans=) -> HTML rendered from a template (autoescaped), or ""
Panel = Callable[..., SafeString | str]
_PANELS: list[Panel] = []


def trace_panel_register(panel: Panel) -> None:
    """Add a panel to the trace page (once, however often the app is made ready)."""
    if panel not in _PANELS:
        _PANELS.append(panel)


def trace_panels_render(*, request, trace_id: str, spans: list[Span]) -> list[SafeString | str]:
    """Each registered panel's HTML for this trace, skipping the empty ones."""
    rendered = (panel(request=request, trace_id=trace_id, spans=spans) for panel in _PANELS)
    return [html for html in rendered if html]
