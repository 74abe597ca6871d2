"""Panels other apps add to an evaluator version's page.

evaluators imports neither experiments nor annotation (the arrows in
docs/design/architecture.md), yet what they measure of a version belongs on its page (its
calibrations against people, from labelled runs and reviewers' gold labels); so an app with
something to show registers a panel here from its `AppConfig.ready()`, and the page renders
whatever is registered, in order.
"""

from __future__ import annotations

from collections.abc import Callable

from django.utils.safestring import SafeString

from .models import EvaluatorVersion

# panel(request=, version=) -> HTML rendered from a template (autoescaped), or "" for nothing
Panel = Callable[..., SafeString | str]
_PANELS: list[Panel] = []


def version_panel_register(panel: Panel) -> None:
    """Add a panel to the version page (once, however often the app is made ready)."""
    if panel not in _PANELS:
        _PANELS.append(panel)


def version_panels_render(*, request, version: EvaluatorVersion) -> list[SafeString | str]:
    """Each registered panel's HTML for this version, skipping the empty ones."""
    rendered = (panel(request=request, version=version) for panel in _PANELS)
    return [html for html in rendered if html]
