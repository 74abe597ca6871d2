"""Panels other apps add to a trace's page and to a session's.

traces imports no app above it (the arrows in docs/design/architecture.md), yet what they make
of a trace belongs on its page (online evaluation's scores); so an app with something to show
registers a panel here from its `AppConfig.ready()`, and the page renders whatever is
registered, in order, below the span tree (a session's: below its chat).
"""

from __future__ import annotations

from collections.abc import Callable

from django.utils.safestring import SafeString

from ..models import Span

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


# session panel(request=, session_id=, traces=) -> HTML, or "" (traces: its TraceSummary rows)
_SESSION_PANELS: list[Panel] = []


def session_panel_register(panel: Panel) -> None:
    """Add a panel to the session page (once, however often the app is made ready)."""
    if panel not in _SESSION_PANELS:
        _SESSION_PANELS.append(panel)


def session_panels_render(*, request, session_id: str, traces: list) -> list[SafeString | str]:
    """Each registered session panel's HTML for this session, skipping the empty ones."""
    rendered = (
        panel(request=request, session_id=session_id, traces=traces) for panel in _SESSION_PANELS
    )
    return [html for html in rendered if html]
