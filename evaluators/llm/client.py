"""Call an OpenAI-compatible judge: rate limit, cache, retries, parsing.

Retries are ours: they honour Retry-After, use full jitter, stop at a total deadline and
report how many attempts were made, so a 429 storm ends as an error with a clear message
instead of hanging a worker.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Callable, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

import aiohttp
import orjson

from assay.marking import BAGGAGE_HEADER, NO_RUN, baggage_marked
from assay.safety.caps import ANSWER_BYTES, cap_text
from assay.safety.outbound import outbound_policy, refused_in, ssl_context
from assay.safety.outbound_aio import client_session
from assay.safety.redact import scrub

from .attempts import Attempted, call_with_retries, final_message
from .cache import BatchCache, ResponseCache, get_many, set_many
from .parse import AnswerError, parse_answer
from .ratelimit import RateLimiter
from .retry import Failure, ProviderAnswerError, short, status_failure

logger = logging.getLogger(__name__)

# Servers without authentication still get a bearer token (as the SDK always sent one).
_NO_KEY = "no-key"
_USER_AGENT = "assay"
_FINAL_MESSAGES = {
    "rate_limited": "rate limited after {n} attempts ({detail})",
    "server": "provider error after {n} attempts: {detail}",
    "timeout": "timed out after {n} attempts ({detail})",
    "connection": "connection failed after {n} attempts: {detail}",
    "rejected": "provider rejected the request: {detail}",
    "refused": "{detail}",
    "too_large": "{detail}",
    "unexpected": "unexpected error calling the provider: {detail}",
}
# The most of a provider's answer read into the worker: far above any chat completion, and
# the rest of a longer one is never read (the connection is closed instead).
PROVIDER_MAX_BYTES = 8 * 1024 * 1024


@dataclass(frozen=True)
class ProviderSettings:
    """Where and how to call a provider. ``api_key`` is never shown in reprs or outcomes."""

    base_url: str
    api_key: str = field(default="", repr=False)
    model: str = ""
    timeout_s: float = 60.0
    rpm_limit: float | None = None
    tpm_limit: float | None = None
    structured_mode: str = "json_schema"
    max_retries: int = 4
    provider_key: str = ""
    deadline_s: float = 300.0
    backoff_base_s: float = 0.5
    backoff_cap_s: float = 20.0
    retry_after_cap_s: float = 60.0
    outbound_allow: str = "*"
    max_body_bytes: int = PROVIDER_MAX_BYTES
    # whose calls these are, sent as the `assay.experiment` baggage entry on every request
    # (`assay.marking`): the run's key ("experiment:<id>:judge"), else "debug" (no run)
    marker: str = NO_RUN

    @property
    def limiter_key(self) -> str:
        """The rate-limit / cache namespace: the provider key, else the base URL."""
        return self.provider_key or self.base_url


@dataclass
class CallResult:
    """What one judge call produced (after retries and parsing)."""

    status: str  # "success" | "error" | "timeout"
    parsed: Any = None  # a ParsedAnswer for a score; what the given parser returns otherwise
    raw_answer: str | None = None
    error: str = ""
    latency_ms: float = 0.0  # the attempts and the waits between them
    rate_limit_wait_ms: float = 0.0  # waiting for rate-limit slots, apart from latency_ms
    tokens_in: int = 0
    tokens_out: int = 0
    attempts: int = 0
    cached: bool = False
    failure: str = ""  # why the last attempt failed ("rejected", "timeout", …): retry.Failure


class ProviderClient:
    """A provider's chat completions endpoint over one aiohttp session (one connection pool,
    its connections checked by the outbound policy), with the headers an OpenAI-compatible
    server expects.

    It posts the ready JSON body and reads the answer, streamed up to `max_body_bytes`, as
    JSON, and nothing else (the openai SDK's request building was a third of a judged row's
    CPU; httpx's own ~1 ms a request, aiohttp's ~0.25 ms). Failures: a timeout (TimeoutError,
    `timeout_s` for the whole attempt), `ProviderStatus` for an HTTP error answer,
    `ProviderTooLarge`, and `ProviderConnectionError` for anything else that broke the request
    (`classify` tells them apart). Create it on the event loop that uses it."""

    def __init__(self, settings: ProviderSettings, concurrency: int = 16) -> None:
        policy = outbound_policy(settings.outbound_allow)
        self._http = client_session(policy, limit=concurrency, ssl_context=ssl_context())
        self._url = settings.base_url.rstrip("/") + "/chat/completions"
        self._limit = settings.max_body_bytes
        self._headers = {
            "Authorization": f"Bearer {settings.api_key or _NO_KEY}",
            "Content-Type": "application/json",
            "Accept": "application/json",
            "User-Agent": _USER_AGENT,
            # a gateway or app tracing these calls tags them as Assay's: online rules skip them
            BAGGAGE_HEADER: baggage_marked(baggage="", run=settings.marker),
        }

    async def post(self, body: dict[str, Any], timeout_s: float) -> bytes:
        """POST the body; the answer's bytes when it is not an HTTP error."""
        try:
            async with self._http.post(
                self._url,
                data=orjson.dumps(body),
                headers=self._headers,
                timeout=aiohttp.ClientTimeout(total=timeout_s),
            ) as response:
                status, headers = response.status, response.headers
                content = await read_capped(response, self._limit)
        except (TimeoutError, ProviderTooLarge):
            raise
        except Exception as exc:  # the SDK's "connection error": retried
            raise ProviderConnectionError(str(exc) or type(exc).__name__) from exc
        if status >= 400:
            raise ProviderStatus(status, headers, content)
        return content

    async def close(self) -> None:
        await self._http.close()


async def read_capped(response: aiohttp.ClientResponse, limit: int) -> bytes:
    """The body, decoded (a compressed answer counts as it unpacks), read streamed; past
    `limit` bytes ProviderTooLarge, and the rest is never read."""
    if (response.content_length or 0) > limit:
        raise ProviderTooLarge(limit)
    data = bytearray()
    async for piece in response.content.iter_any():
        data += piece
        if len(data) > limit:
            raise ProviderTooLarge(limit)
    return bytes(data)


class ProviderConnectionError(Exception):
    """The request did not get an answer (connection refused, reset, a proxy failure...)."""


class ProviderTooLarge(Exception):
    """The answer is longer than the provider's cap (never retried: it will not shrink)."""

    def __init__(self, limit: int) -> None:
        super().__init__(f"the provider's answer is larger than {limit:,} bytes")


class ProviderStatus(Exception):
    """An HTTP error answer: its status, headers and the provider's message."""

    def __init__(self, status: int, headers: Mapping[str, str], content: bytes) -> None:
        self.status_code, self.headers = status, headers
        self.message = _error_message(status, content)
        super().__init__(self.message)


def _error_message(status: int, content: bytes) -> str:
    """The provider's own message (an OpenAI-style `{"error": {"message"}}` body), else the
    status and the body, as the SDK said it."""
    text = content.decode("utf-8", errors="replace").strip()
    try:
        body = json.loads(text)
    except ValueError:
        return text or f"Error code: {status}"
    data = body.get("error", body) if isinstance(body, dict) else body
    if isinstance(data, Mapping) and isinstance(data.get("message"), str):
        return data["message"]
    return f"Error code: {status} - {body}"


def make_client(settings: ProviderSettings, concurrency: int = 16) -> ProviderClient:
    """A client with a connection pool large enough for ``concurrency`` calls."""
    return ProviderClient(settings, concurrency)


async def call_completion(
    settings: ProviderSettings,
    request: dict[str, Any],
    *,
    client: ProviderClient,
    limiter: RateLimiter | None = None,
    cache: ResponseCache | None = None,
    cache_key: str | None = None,
    parse: bool | Callable[[str], Any] = False,
) -> CallResult:
    """The one call path of judges and prompt targets: cache, rate limit, retries, deadline.

    With ``parse`` the answer must be a judge's score — or what ``parse``, when it is a parser
    raising AnswerError, accepts (a pairwise verdict): invalid answers are errors and are not
    cached; without it any answer is a success (a target's output).
    """
    if cache is not None and cache_key:
        hit = await _cache_get(cache, cache_key)
        if hit is not None:
            return _from_cache(hit, parse)
    result = await _call_with_retries(settings, request, client, limiter, parse)
    if result.status == "success" and cache is not None and cache_key:
        await _cache_set(cache, cache_key, _cache_value(result))
    return result


async def _call_with_retries(
    settings: ProviderSettings,
    request: dict[str, Any],
    client: ProviderClient,
    limiter: RateLimiter | None,
    parse: bool | Callable[[str], Any],
) -> CallResult:
    """Attempt the call until it succeeds, fails for good, or the deadline is reached."""

    async def send(timeout_s: float) -> dict[str, Any]:
        return _json_body(await client.post(request, timeout_s))

    done = await call_with_retries(
        settings, send, classify, limiter=limiter, tokens=_estimated_tokens(request)
    )
    if done.failure is not None:
        return _failure_result(done, settings)
    return _answer_result(done.answer, done, parse, settings)


def _json_body(content: bytes) -> dict[str, Any]:
    """The decoded completion; a non-JSON 200 (e.g. a proxy's HTML page) is an error."""
    try:
        body = json.loads(content)
    except ValueError:
        text = content[:800].decode("utf-8", errors="replace")[:200]
        raise ProviderAnswerError(f"the provider answered with non-JSON: {text}") from None
    if not isinstance(body, dict):
        raise ProviderAnswerError("the provider answered with JSON that is not an object")
    return body


def _estimated_tokens(request: dict[str, Any]) -> int:
    """A rough token count for the TPM budget: ~4 characters per prompt token + max output."""
    prompt_chars = sum(len(str(message.get("content"))) for message in request["messages"])
    return prompt_chars // 4 + int(request.get("max_tokens") or 0)


def _answer_result(
    response: dict[str, Any], done: Attempted, parse, settings: ProviderSettings
) -> CallResult:
    """A successful HTTP answer as a result (parsed for a judge), capped and scrubbed."""
    raw, truncated = _raw_answer(response)
    if raw is not None:
        raw = scrub(cap_text(raw, ANSWER_BYTES), settings.api_key)
    usage = response.get("usage") or {}
    result = CallResult(
        status="success",
        raw_answer=raw,
        latency_ms=done.elapsed_ms,
        rate_limit_wait_ms=done.waited_ms,
        tokens_in=_int(usage.get("prompt_tokens")),
        tokens_out=_int(usage.get("completion_tokens")),
        attempts=done.attempts,
    )
    if not parse:
        return result
    return _with_parse(result, truncated, _parser(parse))


def _raw_answer(response: dict[str, Any]) -> tuple[str | None, bool]:
    """The answer text (tool-call arguments win over content) and whether it was cut off."""
    choices = response.get("choices") or []
    if not choices or not isinstance(choices[0], dict):
        return None, False
    choice = choices[0]
    message = choice.get("message") or {}
    truncated = choice.get("finish_reason") == "length"
    for call in message.get("tool_calls") or []:
        arguments = (call.get("function") or {}).get("arguments")
        if arguments:
            return arguments if isinstance(arguments, str) else json.dumps(arguments), truncated
    content = message.get("content")
    return (content if isinstance(content, str | None) else json.dumps(content)), truncated


def _int(value: Any) -> int:
    """A token count from the usage block (absent or odd values count as 0)."""
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _parser(parse) -> Callable[[str], Any]:
    """The parser `parse` asks for: a judge's score (True), or the one given."""
    return parse if callable(parse) else parse_answer


def _with_parse(result: CallResult, truncated: bool = False, parser=parse_answer) -> CallResult:
    """Fill in the parsed answer, or turn the result into an error keeping the raw answer."""
    if result.raw_answer is None:
        result.status, result.error = "error", "the model returned no answer"
        return result
    try:
        result.parsed = parser(result.raw_answer)
    except AnswerError as exc:
        cut = " (the answer was cut off at max_tokens)" if truncated else ""
        result.status, result.error = "error", f"invalid answer: {exc.message}{cut}"
    return result


_FINAL_STATUS = {"timeout": "timeout"}  # every other failure kind ends as an error


def _failure_result(done: Attempted, settings: ProviderSettings) -> CallResult:
    """The final result after the last failed attempt."""
    message = scrub(final_message(done, settings, _FINAL_MESSAGES), settings.api_key)
    status = _FINAL_STATUS.get(done.failure.kind, "error")
    return CallResult(
        status=status,
        error=message,
        latency_ms=done.elapsed_ms,
        rate_limit_wait_ms=done.waited_ms,
        attempts=done.attempts,
        failure=done.failure.kind,
    )


def _cache_value(result: CallResult) -> dict[str, Any]:
    """What the cache keeps: the raw answer and its token usage."""
    return {
        "raw_answer": result.raw_answer,
        "tokens_in": result.tokens_in,
        "tokens_out": result.tokens_out,
    }


def _from_cache(hit: dict[str, Any], parse) -> CallResult:
    """A result rebuilt from a cached answer (parsed again: parsing is cheap and may improve)."""
    result = CallResult(
        status="success",
        raw_answer=hit.get("raw_answer"),
        tokens_in=int(hit.get("tokens_in") or 0),
        tokens_out=int(hit.get("tokens_out") or 0),
        attempts=0,
        cached=True,
    )
    return _with_parse(result, parser=_parser(parse)) if parse else result


# How often a batch's new cache entries are written to a shared store (and once at its end):
# a call's answer is stored within this, one round trip for all of them.
CACHE_FLUSH_S = 0.1


@asynccontextmanager
async def batch_cache(store: ResponseCache | None, keys: list[str]):
    """The cache a batch's calls use: a local store as it is; a shared one (Redis) through a
    `BatchCache` — every key of the batch read in one round trip first, new answers written
    every CACHE_FLUSH_S and at the end — instead of two round trips (and two thread hops) a
    call. A failing store counts as empty and is logged; it never fails a row."""
    if store is None or getattr(store, "is_local", False) or not keys:
        yield store
        return
    view = BatchCache(await _store_call(get_many, store, keys, default={}))
    done = asyncio.Event()
    writer = asyncio.ensure_future(_write_every(store, view, done))
    try:
        yield view
    finally:
        # not cancelled: a cancel would drop the await of a write already in a thread, and the
        # batch (and its run) could end before that write lands; the writer ends on `done`
        # after its current write and one last one
        done.set()
        await writer


async def _write_every(store: ResponseCache, view: BatchCache, done: asyncio.Event) -> None:
    while True:
        finished = done.is_set()  # set before this write: it is the last one
        if not finished:
            try:
                await asyncio.wait_for(done.wait(), CACHE_FLUSH_S)
                finished = True
            except TimeoutError:
                pass
        await _write_pending(store, view)
        if finished:
            return


async def _write_pending(store: ResponseCache, view: BatchCache) -> None:
    pending = view.take_pending()
    if pending:
        await _store_call(set_many, store, pending, default=None)


async def _store_call(function, store, argument, *, default):
    try:
        return await asyncio.to_thread(function, store, argument)
    except Exception:  # the answers are still valid without the cache
        logger.warning("LLM response cache %s failed", function.__name__, exc_info=True)
        return default


async def _cache_get(cache: ResponseCache, key: str) -> dict[str, Any] | None:
    """A cached value; a broken cache store counts as a miss (it only saves money)."""
    try:
        if getattr(cache, "is_local", False):
            return cache.get(key)
        # Network or database stores block: keep them off the event loop.
        return await asyncio.to_thread(cache.get, key)
    except Exception:  # any store failure: call the model instead
        logger.warning("LLM response cache read failed; calling the model", exc_info=True)
        return None


async def _cache_set(cache: ResponseCache, key: str, value: dict[str, Any]) -> None:
    """Store a value; a broken cache store must not turn a good answer into an error."""
    try:
        if getattr(cache, "is_local", False):
            cache.set(key, value)
        else:
            await asyncio.to_thread(cache.set, key, value)
    except Exception:  # the answer is still valid without the cache
        logger.warning("LLM response cache write failed", exc_info=True)


# ----------------------------------------------------------------------------- failures


def classify(exc: BaseException) -> Failure:
    """Classify an exception raised by the provider call."""
    if isinstance(exc, ProviderAnswerError):
        return Failure("unexpected", short(str(exc)), False)
    refused = refused_in(exc)
    if refused is not None:  # the outbound policy will refuse every retry too
        return Failure("refused", short(str(refused)), False)
    if isinstance(exc, ProviderTooLarge):
        return Failure("too_large", str(exc), False)
    if isinstance(exc, TimeoutError):  # aiohttp's own timeouts are TimeoutErrors too
        return Failure("timeout", "the request timed out", True)
    if isinstance(exc, ProviderConnectionError):
        return Failure("connection", short(str(exc.__cause__ or exc)), True)
    if isinstance(exc, ProviderStatus):
        return status_failure(exc.status_code, exc.headers, short(exc.message))
    return Failure("unexpected", short(f"{type(exc).__name__}: {exc}"), False)
