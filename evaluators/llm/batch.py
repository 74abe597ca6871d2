"""Run an LLM evaluator over a batch of turns: one outcome per turn, in order."""

from __future__ import annotations

import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

import openai

from .attempts import gather_cancellable, run_blocking
from .cache import ResponseCache, cache_key
from .client import CallResult, ProviderSettings, call_completion
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
    tokens_in: int = 0
    tokens_out: int = 0
    cached: bool = False
    attempts: int = 0
    parse_method: str = ""

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

    async def one(request: Mapping[str, Any]) -> CallResult:
        key = cache_key(namespace, request, settings.limiter_key) if cache else None
        async with pool.slot() as client:
            return await call_completion(
                settings, dict(request), client=client, limiter=limiter, cache=cache, cache_key=key
            )

    try:
        return await gather_cancellable([one(r) for r in requests], cancel)
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
    pool = ClientPool(settings, concurrency, run_limit=run_limit)
    job = _Job(config, settings, pool, limiter, cache if version_key else None, version_key)
    try:
        return await gather_cancellable([job.run(t, media_resolver) for t in turns], cancel)
    finally:
        await pool.close()


@dataclass
class _Job:
    """What every turn of a batch shares."""

    config: Mapping[str, Any]
    settings: ProviderSettings
    pool: ClientPool
    limiter: RateLimiter | None
    cache: ResponseCache | None
    version_key: str | None

    async def run(self, turn: Mapping[str, Any], resolver: MediaResolver | None) -> LlmOutcome:
        """Render, call and parse one turn."""
        started = time.monotonic()
        try:
            request = self._request(turn, resolver)
        except RenderError as exc:
            return LlmOutcome(status="skipped", error=f"{exc.lead}: {exc}")
        except ValueError as exc:
            return LlmOutcome(status="error", error=f"invalid evaluator config: {exc}")
        async with self.pool.slot() as client:
            result = await self._call(client, request)
        outcome = _outcome(request, result)
        if result.cached:
            outcome.latency_ms = (time.monotonic() - started) * 1000
        return outcome

    def _request(self, turn: Mapping[str, Any], resolver: MediaResolver | None) -> dict[str, Any]:
        return build_request(
            self.config,
            turn,
            structured_mode=self.settings.structured_mode,
            default_model=self.settings.model,
            media_resolver=resolver,
        )

    async def _call(self, client: openai.AsyncOpenAI, request: dict[str, Any]) -> CallResult:
        key = None
        if self.cache is not None and self.version_key:
            key = cache_key(self.version_key, request, self.settings.limiter_key)
        return await call_completion(
            self.settings,
            request,
            client=client,
            limiter=self.limiter,
            cache=self.cache,
            cache_key=key,
            parse=True,
        )


# What a judged turn's outcome takes over from its call as it is.
CALL_FIELDS = "status error raw_answer latency_ms tokens_in tokens_out cached".split()


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
