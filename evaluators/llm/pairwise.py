"""Run a pairwise judge over a batch of turns: each turn asked twice, its two outputs in order
(A, B) and swapped (B, A), the two answers folded into one outcome (`evaluators.pairing`).

Both orders of every turn go through the judges' one call path — the same client pool, rate
limit, retries, deadline and response cache — at most ``concurrency`` calls in flight, so a
provider's limits hold as they do for a score judge. Answers are read by `choice.parse_choice`.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from ..pairing import SWAP, UNKNOWN, pair_verdict, swapped_turn
from .attempts import gather_cancellable, run_blocking
from .batch import JudgeCalls, _default_limiter, pooled_call, unsendable
from .cache import ResponseCache
from .choice import choice_instruction, choice_schema, parse_choice
from .client import CallResult, ProviderSettings
from .pool import ClientPool
from .ratelimit import RateLimiter
from .render import MediaResolver, prompt_language
from .slots import RunLimit

ORDERS = ("A, B", "B, A")  # which output the judge saw first, in each call
# A pair whose orders ended differently ends as the worst of them.
_WORST_FIRST = ("skipped", "timeout", "error")


@dataclass
class OrderAnswer:
    """One of the two calls: ``verdict`` as the judge said it, in that call's own frame ("A" is
    the output shown first), None when the call failed or its answer could not be read."""

    order: str
    status: str  # "success" | "error" | "timeout" | "skipped"
    verdict: str | None = None
    reason: str = ""
    error: str = ""
    rendered_request: dict[str, Any] | None = None
    raw_answer: str | None = None
    latency_ms: float = 0.0
    tokens_in: int = 0
    tokens_out: int = 0
    cached: bool = False
    attempts: int = 0

    @property
    def unswapped(self) -> str | None:
        """The verdict in the frame A = baseline, B = candidate."""
        if self.verdict is None or self.order == ORDERS[0]:
            return self.verdict
        return SWAP[self.verdict]

    def to_dict(self) -> dict[str, Any]:
        return asdict(self) | {"unswapped": self.unswapped}


@dataclass
class PairJudgement:
    """One pair, both orders: ``outcome`` in the unswapped frame (A, B, tie or unknown) and
    whether the orders disagreed (`evaluators.pairing.pair_verdict`)."""

    status: str
    outcome: str
    position_inconsistent: bool
    error: str = ""
    orders: list[OrderAnswer] = field(default_factory=list)

    @property
    def first(self) -> OrderAnswer:
        return self.orders[0]

    def total(self, name: str) -> float:
        """Latency or tokens of both calls together."""
        return sum(getattr(order, name) for order in self.orders)


def run_pairwise_batch(config, turns, settings, **options) -> list[PairJudgement]:
    """``arun_pairwise_batch``, blocking (Celery tasks and debug runs), with the same options."""
    return run_blocking(arun_pairwise_batch(config, turns, settings, **options))


async def arun_pairwise_batch(
    config: Mapping[str, Any],
    turns: Sequence[Mapping[str, Any]],
    settings: ProviderSettings,
    *,
    concurrency: int = 16,
    limiter: RateLimiter | None = None,
    cache: ResponseCache | None = None,
    version_key: str | None = None,
    media_resolver: MediaResolver | None = None,
    cancel: threading.Event | None = None,
    run_limit: RunLimit | None = None,
) -> list[PairJudgement]:
    """Judge every turn in both orders; one PairJudgement per turn, in order. Setting
    ``cancel`` drops the calls in flight and raises ``BatchCancelled``, as for score judges;
    a ``run_limit`` bounds the run's calls in flight across every worker."""
    pool = ClientPool(settings, concurrency, run_limit=run_limit)
    asker = _Asker(config, settings, pool, _default_limiter(limiter, settings), cache, version_key)
    calls = [asker.ask(turn, order, media_resolver) for turn in turns for order in ORDERS]
    try:
        answers = await gather_cancellable(calls, cancel)
    finally:
        await pool.close()
    return [judgement(answers[i], answers[i + 1]) for i in range(0, len(answers), 2)]


def judgement(in_order: OrderAnswer, swapped: OrderAnswer) -> PairJudgement:
    """Fold the two calls of one pair: the outcome when both answered, else unknown with the
    worst status and each order's error."""
    orders = [in_order, swapped]
    failed = [order for order in orders if order.status != "success"]
    if not failed:
        outcome, inconsistent = pair_verdict(in_order.verdict, swapped.verdict)
        return PairJudgement("success", outcome, inconsistent, orders=orders)
    status = next(s for s in _WORST_FIRST if any(o.status == s for o in failed))
    errors = list(dict.fromkeys(order.error for order in failed))
    error = errors[0] if len(errors) == 1 else "; ".join(f"{o.order}: {o.error}" for o in failed)
    return PairJudgement(status, UNKNOWN, False, error=error, orders=orders)


class _Asker(JudgeCalls):
    """A pairwise judge's batch: each turn asked in both orders."""

    async def ask(self, turn, order: str, resolver: MediaResolver | None) -> OrderAnswer:
        """Render, call and read one order of one turn."""
        shown = turn if order == ORDERS[0] else swapped_turn(turn)
        try:
            request = self.request(
                shown,
                resolver,
                schema=choice_schema(),
                instruction=choice_instruction(prompt_language(self.config)),
            )
        except ValueError as exc:  # RenderError included
            status, error = unsendable(exc)
            return OrderAnswer(order, status, error=error)
        key = self.key(request)
        result = await pooled_call(
            self.pool,
            self.settings,
            request,
            limiter=self.limiter,
            cache=self.cache if key else None,
            key=key,
            parse=parse_choice,
        )
        return _answer(order, request, result)


# What an order's answer takes over from its call as it is.
CALL_FIELDS = "status error raw_answer latency_ms tokens_in tokens_out cached attempts".split()


def _answer(order: str, request: dict[str, Any], result: CallResult) -> OrderAnswer:
    parsed = result.parsed
    return OrderAnswer(
        order=order,
        **{name: getattr(result, name) for name in CALL_FIELDS},
        rendered_request=request,
        verdict=parsed.verdict if parsed else None,
        reason=parsed.reason if parsed else "",
    )
