"""One pair judged in both orders: the rule a pairwise judge and the pairwise statistics share.

A pairwise judge sees one input and two outputs, `output_a` (the baseline) and `output_b` (the
candidate), and answers "A", "B" or "tie". Every pair is asked twice, in order and swapped;
`pair_verdict` folds the two answers into one outcome in the unswapped frame and flags orders
that disagree. It lives here, beside the kinds, because the judge kind (its debug panel) and
the statistics of runs (`experiments.stats.pairwise`, which re-exports it) must read answers
the same way, and evaluators may not import experiments.

Plain values in and out; no Django set-up and no LLM SDK needed.
"""

from __future__ import annotations

from collections.abc import Mapping

from assay.vocabulary import PairOutcome

from .turns import GROUPS

# Plain strings, so numpy arrays and JSON see "A", not an enum member.
A, B, TIE, UNKNOWN = (outcome.value for outcome in PairOutcome)
OUTPUT_A, OUTPUT_B = "output_a", "output_b"
SLOTS = (OUTPUT_A, OUTPUT_B)

_ANSWERS = {"a": A, "b": B, "tie": TIE}
SWAP = {A: B, B: A, TIE: TIE}
# B's share of one pair: what a pairwise outcome scores (1: the candidate is better).
B_SHARE = {B: 1.0, TIE: 0.5, A: 0.0}


def parse_answer(answer: object) -> str | None:
    """A judge's answer as "A", "B" or "tie" (case and surrounding space ignored), else None.

    Only those three words count: the judge kind's own parser extracts them from free text, so
    anything else reaching here ("draw", "", None, "A or B") is an answer we could not read."""
    if not isinstance(answer, str):
        return None
    return _ANSWERS.get(answer.strip().casefold())


def pair_verdict(first: object, swapped: object) -> tuple[str, bool]:
    """The outcome of one pair judged in both orders, and whether the orders disagreed.

    ``first`` is the answer with the outputs in order (A = baseline, B = candidate), ``swapped``
    the answer with them swapped, so a swapped "A" means the candidate won. Returns (outcome in
    the unswapped frame, position_inconsistent): agreeing orders give their outcome; any
    disagreement — including a win in one order and a tie in the other — is a tie and flagged.
    An unreadable answer in either order makes the pair ("unknown", False): it is not counted
    in a win rate and is reported apart, and consistency is not judged on half a pair.
    """
    one, other = parse_answer(first), parse_answer(swapped)
    if one is None or other is None:
        return UNKNOWN, False
    other = SWAP[other]
    if one == other:
        return one, False
    return TIE, True


def swapped_turn(turn: Mapping) -> dict:
    """The same turn with the contents of `output_a` and `output_b` traded (each name keeps
    its group of the turn), for the second order."""
    out = {k: dict(v) if k in GROUPS and isinstance(v, Mapping) else v for k, v in turn.items()}
    group_of = {name: group for group in GROUPS for name in (out.get(group) or {}) if name in SLOTS}
    a, b = group_of.get(OUTPUT_A), group_of.get(OUTPUT_B)
    value_a = out[a].pop(OUTPUT_A) if a else None
    value_b = out[b].pop(OUTPUT_B) if b else None
    if value_b is not None:
        out[a or b][OUTPUT_A] = value_b
    if value_a is not None:
        out[b or a][OUTPUT_B] = value_a
    return out
