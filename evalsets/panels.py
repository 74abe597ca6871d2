"""Panels other apps add to an evalset's rows page.

evalsets imports no other app (the arrows in docs/design/architecture.md), yet runs on a set
belong on its page; so an app with something to show there registers a panel here from its
`AppConfig.ready()`, and the page renders whatever is registered, in order.
"""

from __future__ import annotations

from collections.abc import Callable

from django.utils.safestring import SafeString

from .models import EvalSet

# panel(request=, evalset=) -> HTML rendered from a template (autoescaped), or "" for nothing
Panel = Callable[..., SafeString | str]
_PANELS: list[Panel] = []


def panel_register(panel: Panel) -> None:
    """Add a panel to the rows page (once, however often the app is made ready)."""
    if panel not in _PANELS:
        _PANELS.append(panel)


def panels_render(*, request, evalset: EvalSet) -> list[SafeString | str]:
    """Each registered panel's HTML for this set, skipping the empty ones."""
    rendered = (panel(request=request, evalset=evalset) for panel in _PANELS)
    return [html for html in rendered if html]
