"""The registry of evaluator kinds: one module per kind, registered here and nowhere else.

Adding a kind is one module (a subclass of `EvaluatorKindSpec`) plus, optionally, its editor
partial under templates/evaluators/kinds/. Nothing outside this package branches on a kind.
"""

from __future__ import annotations

from .base import EvaluatorKindSpec

KINDS: dict[str, EvaluatorKindSpec] = {}


def register(kind: EvaluatorKindSpec) -> EvaluatorKindSpec:
    """Make a kind available everywhere (services, runner, experiments, pages)."""
    KINDS[kind.name] = kind
    return kind


def unregister(name: str) -> None:
    """Remove a kind (tests that register a toy kind clean up with this)."""
    KINDS.pop(name, None)


def kind_get(name: str) -> EvaluatorKindSpec:
    """The kind called `name`; ValueError (naming the known ones) for anything else."""
    try:
        return KINDS[name]
    except (KeyError, TypeError):
        known = " or ".join(repr(k) for k in KINDS)
        raise ValueError(f"Unknown kind {name!r}; use {known}.") from None


def kind_choices() -> list[tuple[str, str]]:
    return [(kind.name, kind.label) for kind in KINDS.values()]


def queues() -> set[str]:
    """The chunk queues the registered kinds use."""
    return {kind.queue for kind in KINDS.values()}


def _register_builtins() -> None:
    from .code import CodeKind
    from .llm import LlmKind
    from .metric import MetricKind
    from .pairwise import PairwiseKind

    register(LlmKind())
    register(CodeKind())
    register(PairwiseKind())
    register(MetricKind())


_register_builtins()

__all__ = ["KINDS", "EvaluatorKindSpec", "kind_choices", "kind_get", "queues", "register"]
