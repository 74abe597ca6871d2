"""The registry of target kinds: one module per kind, registered here and nowhere else."""

from __future__ import annotations

from django.utils.translation import gettext as _

from .base import TargetSpec

TARGETS: dict[str, TargetSpec] = {}
DEFAULT = "none"


def register(target: TargetSpec) -> TargetSpec:
    TARGETS[target.name] = target
    return target


def target_get(name: str | None) -> TargetSpec:
    """The target kind called `name` (empty: none); ValueError naming the known ones."""
    try:
        return TARGETS[name or DEFAULT]
    except (KeyError, TypeError):
        known = " or ".join(repr(k) for k in TARGETS)
        raise ValueError(
            _("The target is %(known)s, not %(name)r.") % {"known": known, "name": name}
        ) from None


def target_choices() -> list[tuple[str, str]]:
    return [(target.name, target.label) for target in TARGETS.values()]


def _register_builtins() -> None:
    from .external import ExternalTarget
    from .http import HttpTarget
    from .none import NoTarget
    from .prompt import PromptTarget
    from .rescore import RescoreTarget
    from .simulated_user import SimulatedUserTarget

    register(NoTarget())
    register(PromptTarget())
    register(HttpTarget())
    register(ExternalTarget())
    register(RescoreTarget())
    register(SimulatedUserTarget())


_register_builtins()

__all__ = ["TARGETS", "TargetSpec", "register", "target_choices", "target_get"]
