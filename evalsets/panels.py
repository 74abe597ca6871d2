"""Panels other apps add to an evalset's rows page.

evalsets imports no other app (the arrows in docs/design/architecture.md), yet runs on a set
belong on its page; so an app with something to show there registers a panel here from its
`AppConfig.ready()` (`assay.web.panels`).
"""

from __future__ import annotations

from django.utils.safestring import SafeString

from assay.web.panels import Panel, Panels

from .models import EvalSet

# panel(request=, evalset=) -> HTML rendered from a template (autoescaped), or "" for nothing
_PANELS = Panels()


def panel_register(panel: Panel) -> None:
    """Add a panel to the rows page (once, however often the app is made ready)."""
    _PANELS.register(panel)


def panels_render(*, request, evalset: EvalSet) -> list[SafeString | str]:
    """Each registered panel's HTML for this set, skipping the empty ones."""
    return _PANELS.render(request=request, evalset=evalset)
