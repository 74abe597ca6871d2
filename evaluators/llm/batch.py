"""Run an LLM evaluator over a batch of turns: one outcome per turn, in order."""

from __future__ import annotations

import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from .attempts import gather_cancellable, run_blocking
from .cache import ResponseCache, cache_key
from .client import CallResult, ProviderSettings, batch_cache, call_completion
from .pool import ClientPool
from .ratelimit import RateLimiter, make_limiter
from .render import MediaResolver, RenderError
from .request import build_request
from .slots import RunLimit


@dataclass
class LlmOutcome:
    """The result of judging one turn.

    ``rendered_request`` is the exact body sent (never the API key); ``cached`` outcomes made no
    HTTP request (their token counts are the original call's, so exclude them from spend).
    """

    status: str  # "success" | "error" | "timeout" | "skipped"
    score: float | None = None
    reason: str = ""
    error: str = ""
    rendered_request: dict[str, Any] | None = None
    raw_answer: str | None = None
    latency_ms: float = 0.0
    rate_limit_wait_ms: float = 0.0  # apart from latency_ms: time waiting for rate-limit slots
    tokens_in: int = 0
    tokens_out: int = 0
    cached: bool = False
    attempts: int = 0
    parse_method: str = ""
    failure: str = ""  # a failed call's kind ("rejected": the provider refused the request)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-serialisable copy."""
        return asdict(self)


def run_llm_batch(config, turns, settings, **options) -> list[LlmOutcome]:
    """``arun_llm_batch``, blocking (for Celery tasks and debug runs), with the same options."""
    return run_blocking(arun_llm_batch(config, turns, settings, **options))


def run_completion_batch(
    requests: Sequence[Mapping[str, Any]],
    settings: ProviderSettings,
    *,
    concurrency: int = 16,
    limiter: RateLimiter | None = None,
    cache: ResponseCache | None = None,
    cache_namespace: str | None = None,
    cancel: threading.Event | None = None,
    run_limit: RunLimit | None = None,
) -> list[CallResult]:
    """Send ready chat completion bodies (a prompt target's); one CallResult per body, in order.

    The same pool, rate limit, retries and cache as the judges; answers are not parsed.
    """
    coroutine = _completions(
        requests,
        settings,
        (concurrency, run_limit),
        limiter,
        cache if cache_namespace else None,
        cache_namespace,
        cancel,
    )
    return run_blocking(coroutine)


async def _completions(requests, settings, slots, limiter, cache, namespace, cancel):
    limiter = _default_limiter(limiter, settings)
    concurrency, run_limit = slots
    pool = ClientPool(settings, concurrency, run_limit=run_limit)

    # `is not None`: an empty MemoryCache has len 0, so `if cache` skipped it (no key, no cache)
    keys = [
        cache_key(namespace, r, settings.limiter_key) if cache is not None else None
        for r in requests
    ]

    async def one(request: Mapping[str, Any], key: str | None, store) -> CallResult:
        async with pool.slot() as client:
            return await call_completion(
                settings, dict(request), client=client, limiter=limiter, cache=store, cache_key=key
            )

    try:
        async with batch_cache(cache, [k for k in keys if k]) as store:
            calls = [one(r, k, store) for r, k in zip(requests, keys, strict=True)]
            return await gather_cancellable(calls, cancel)
    finally:
        await pool.close()


def _default_limiter(limiter: RateLimiter | None, settings: ProviderSettings):
    if limiter is None and (settings.rpm_limit or settings.tpm_limit):
        return make_limiter(None)  # a configured limit always holds, at least per process
    return limiter


async def arun_llm_batch(
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
) -> list[LlmOutcome]:
    """Judge ``turns`` with the evaluator ``config``: at most ``concurrency`` calls in flight,
    clients per batch; with a ``run_limit``, at most ``concurrency`` for the whole run across
    every worker.

    The cache is used only with a ``version_key`` (drafts change without a new key). Setting
    ``cancel`` stops the batch within ~0.1 s: requests in flight are dropped and
    ``BatchCancelled`` is raised.
    """
    limiter = _default_limiter(limiter, settings)
    cache = cache if version_key else None
    job = _Job(config, settings, None, limiter, cache, version_key)
    # every turn rendered first: the cache's keys are then read in one round trip
    prepared = [job.prepare(t, media_resolver) for t in turns]
    keys = [key for _request, key in prepared if key]
    pool = ClientPool(settings, concurrency, run_limit=run_limit)
    try:
        async with batch_cache(cache, keys) as job.cache:
            job.pool = pool
            return await gather_cancellable([job.run(*p) for p in prepared], cancel)
    finally:
        await pool.close()


@dataclass
class JudgeCalls:
    """What every call of a judge batch shares, for score and pairwise judges: the request a
    turn becomes and its cache key."""

    config: Mapping[str, Any]
    settings: ProviderSettings
    pool: ClientPool | None
    limiter: RateLimiter | None
    cache: ResponseCache | None
    version_key: str | None

    def request(self, turn, resolver: MediaResolver | None, **extra) -> dict[str, Any]:
        """The chat completion body for ``turn`` (``extra``: a kind's own build options)."""
        return build_request(
            self.config,
            turn,
            structured_mode=self.settings.structured_mode,
            default_model=self.settings.model,
            media_resolver=resolver,
            **extra,
        )

    def key(self, request: dict[str, Any]) -> str | None:
        """The request's cache key, or None when nothing is cached."""
        # drafts have no version key: they change without one, so nothing is cached for them
        if self.cache is None or not self.version_key:
            return None
        return cache_key(self.version_key, request, self.settings.limiter_key)


class _Job(JudgeCalls):
    """A score judge's batch: each turn prepared first, then called and parsed."""

    def prepare(self, turn: Mapping[str, Any], resolver: MediaResolver | None):
        """(the request body, its cache key or None), or (the outcome of a turn that cannot
        be sent, None)."""
        try:
            request = self.request(turn, resolver)
        except ValueError as exc:  # RenderError included
            status, error = unsendable(exc)
            return LlmOutcome(status=status, error=error), None
        return request, self.key(request)

    async def run(self, request: dict[str, Any] | LlmOutcome, key: str | None) -> LlmOutcome:
        """Call and parse one prepared turn."""
        if isinstance(request, LlmOutcome):
            return request
        result = await pooled_call(
            self.pool, self.settings, request, limiter=self.limiter, cache=self.cache, key=key
        )
        return _outcome(request, result)


def unsendable(exc: ValueError) -> tuple[str, str]:
    """The status and error of a turn whose request cannot be built, for score and pairwise
    judges alike: skipped when its prompt cannot be rendered (a RenderError, whose lead starts
    the message), error when the config is invalid."""
    if isinstance(exc, RenderError):
        return "skipped", f"{exc.lead}: {exc}"
    return "error", f"invalid evaluator config: {exc}"


async def pooled_call(pool, settings, request, *, limiter, cache, key, parse=True) -> CallResult:
    """One judge call through the batch's client pool (a score judge's, or with `parse` a
    pairwise judge's): `call_completion`'s retries, rate limit and cache. An answer read from
    the cache gets the time that took as its latency, not the original call's."""
    started = time.monotonic()
    async with pool.slot() as client:
        result = await call_completion(
            settings,
            request,
            client=client,
            limiter=limiter,
            cache=cache,
            cache_key=key,
            parse=parse,
        )
    if result.cached:
        result.latency_ms = (time.monotonic() - started) * 1000
    return result


# What a judged turn's outcome takes over from its call as it is.
CALL_FIELDS = (
    "status error raw_answer latency_ms rate_limit_wait_ms tokens_in tokens_out cached failure"
).split()


def _outcome(request: dict[str, Any], result: CallResult) -> LlmOutcome:
    """Combine the request and the call result into the row's outcome."""
    parsed = result.parsed
    return LlmOutcome(
        **{name: getattr(result, name) for name in CALL_FIELDS},
        attempts=result.attempts,
        rendered_request=request,
        score=parsed.score if parsed else None,
        reason=parsed.reason if parsed else "",
        parse_method=parsed.method if parsed else "",
    )
