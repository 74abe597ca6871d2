"""Panels: what apps add to a page of an app below them, which may not import them.

An app keeps a `Panels` for a page (the arrows in docs/design/architecture.md keep it from
importing the apps above it); an app above registers a panel from its `AppConfig.ready()`, and
the page renders whatever is registered, in order.
"""

from __future__ import annotations

from collections.abc import Callable

from django.utils.safestring import SafeString

# panel(**the page's objects) -> HTML rendered from a template (autoescaped), or "" for nothing
Panel = Callable[..., SafeString | str]


class Panels:
    """The panels registered for one page."""

    def __init__(self) -> None:
        self._panels: list[Panel] = []

    def register(self, panel: Panel) -> None:
        """Add a panel (once, however often the app is made ready)."""
        if panel not in self._panels:
            self._panels.append(panel)

    def render(self, **objects) -> list[SafeString | str]:
        """Each panel's HTML for the page's objects, skipping the empty ones."""
        rendered = (panel(**objects) for panel in self._panels)
        return [html for html in rendered if html]
