"""Actions other apps add to an experiment's page.

experiments imports no app above it (the arrows in docs/design/architecture.md), yet an
experiment's page is where one saves its set-up as a template (schedules); so an app with an
action there registers it here from its `AppConfig.ready()`, and the page renders whatever is
registered, in order, beside its own buttons.
"""

from __future__ import annotations

from collections.abc import Callable

from django.utils.safestring import SafeString

from .models import Experiment

# action(request=, experiment=) -> HTML rendered from a template (autoescaped), or "" for none
Action = Callable[..., SafeString | str]
_ACTIONS: list[Action] = []


def action_register(action: Action) -> None:
    """Add an action to the experiment page (once, however often the app is made ready)."""
    if action not in _ACTIONS:
        _ACTIONS.append(action)


def actions_render(*, request, experiment: Experiment) -> list[SafeString | str]:
    """Each registered action's HTML for this experiment, skipping the empty ones."""
    rendered = (action(request=request, experiment=experiment) for action in _ACTIONS)
    return [html for html in rendered if html]
