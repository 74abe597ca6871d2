"""Template filters for pairwise judges: an outcome's words (the vocabulary's labels)."""

from __future__ import annotations

from django import template

from assay.vocabulary import PairOutcome

from ..pairing import SWAP

register = template.Library()


@register.filter
def pair_outcome(value) -> str:
    """ "A better", "B better", "tie" or "unknown" for a stored or answered outcome."""
    try:
        return str(PairOutcome(value).label)
    except ValueError:
        return str(PairOutcome.UNKNOWN.label)


@register.filter
def swapped_outcome(answer) -> str:
    """What an answer given with the outputs swapped means ("A" there: B better)."""
    return pair_outcome(SWAP.get(answer, answer))
