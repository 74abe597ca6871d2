"""The price of tokens, one formula for every app: a model's price is USD per million input
and output tokens ({"input": …, "output": …}, as `ModelProvider.prices` holds it)."""

from __future__ import annotations


def token_cost(price: dict, tokens_in: int | None, tokens_out: int | None) -> float:
    """USD for the tokens at `price`; a missing count is no tokens."""
    spent = (tokens_in or 0) * price.get("input", 0) + (tokens_out or 0) * price.get("output", 0)
    return spent / 1_000_000
