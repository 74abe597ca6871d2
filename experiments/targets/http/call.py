"""Sending HTTP-target requests: one per row, `concurrency` in flight (for the whole run, across
every worker, when given the run's key), through the shared retry loop, rate limiter and
outbound policy. Secrets are filled in here and nowhere else; what is
stored and shown (`HttpCall.shown`) names them instead.

Every request says who sends it (`User-Agent: assay/<version>`, unless the config sets its own)
and carries an `Idempotency-Key` named by the run, the row and the repetition (and a simulated
user's turn): the same on every attempt and every retry round of that row, different for any
other, so an endpoint with side effects can recognise a request it has already acted on. The
answer is read streamed and never past `ASSAY_TARGET_MAX_BYTES`."""

from __future__ import annotations

import asyncio
import json
import threading
import uuid
from dataclasses import dataclass, field
from importlib.metadata import PackageNotFoundError, version
from typing import Any
from urllib.parse import urlsplit

import orjson
from django.conf import settings

from assay.marking import BAGGAGE_HEADER, baggage_marked
from assay.safety.origins import OriginError, origin_refusal, url_origin
from assay.safety.outbound import outbound_policy, refused_in, ssl_context
from assay.safety.redact import scrub_secrets
from evaluators.llm.attempts import (
    BatchCancelled,
    call_with_retries,
    final_message,
    gather_cancellable,
    run_blocking,
)
from evaluators.llm.retry import Failure, short, status_failure
from evaluators.runner import RunCancelled

from ..templating import PLACEHOLDER, SECRET_PREFIX, Renderer, RowError, placeholders

FINAL_MESSAGES = {
    "rate_limited": "rate limited after {n} attempts ({detail})",
    "server": "the endpoint failed after {n} attempts: {detail}",
    "timeout": "timed out after {n} attempts ({detail})",
    "connection": "connection failed after {n} attempts: {detail}",
    "rejected": "the endpoint refused the request: {detail}",
    "refused": "{detail}",
    "too_large": "{detail}",
    "redirect": "the endpoint answered with a redirect: {detail}",
    "deadline": "timed out after {n} attempts ({detail})",
    "unexpected": "the request failed: {detail}",
}


IDEMPOTENCY_HEADER = "Idempotency-Key"
# The keys are name-based UUIDs (version 5) in Assay's own namespace: stable, and no row's id
# can be read back out of one.
KEY_NAMESPACE = uuid.UUID("5d0c6f1e-3a51-4f0e-9a43-7a55a7e1d0b2")


def _user_agent() -> str:
    try:
        return f"assay/{version('assay')}"
    except PackageNotFoundError:  # run from a checkout that was never installed
        return "assay/0+unknown"


USER_AGENT = _user_agent()


def idempotency_key(*, run_id, item_id, repeat: int, turn: int | None = None) -> str:
    """The row's key: equal for every send of (run, item, repetition[, turn]), else different."""
    name = f"{run_id}/{item_id}/{repeat}" + ("" if turn is None else f"/{turn}")
    return str(uuid.uuid5(KEY_NAMESPACE, name))


def assay_headers(headers: dict[str, str], key: str, run_id) -> dict[str, str]:
    """The config's headers with ours: User-Agent unless the config names one (its own wins),
    the Idempotency-Key always (a config cannot set it: saving refuses the header, and one
    stored before that is replaced here), and the run's mark as a W3C baggage entry, added to
    any baggage the config sends (`assay.marking`)."""
    names = {name.lower() for name in headers}
    ours = {} if "user-agent" in names else {"User-Agent": USER_AGENT}
    kept = {k: v for k, v in headers.items() if k.lower() != IDEMPOTENCY_HEADER.lower()}
    return {**ours, **kept, IDEMPOTENCY_HEADER: key, **_baggage(kept, run_id)}


def _baggage(headers: dict[str, str], run_id) -> dict[str, str]:
    name = next((k for k in headers if k.lower() == BAGGAGE_HEADER), BAGGAGE_HEADER)
    return {name: baggage_marked(baggage=headers.get(name, ""), run=run_id)}


@dataclass
class Answer:
    """What one call ended with: a response (status, body) or a final failure message."""

    status_code: int | None = None
    body: str | None = None
    error: str = ""
    timed_out: bool = False
    latency_ms: float = 0.0


@dataclass(frozen=True)
class CallSettings:
    """How calls to one endpoint are made (the retry loop reads these names)."""

    timeout_s: float
    max_retries: int
    rpm_limit: float | None
    limiter_key: str
    tpm_limit: float | None = None
    deadline_s: float = 300.0
    backoff_base_s: float = 0.5
    backoff_cap_s: float = 20.0
    retry_after_cap_s: float = 60.0

    @classmethod
    def for_experiment(cls, experiment) -> CallSettings:
        config = experiment.target_config
        host = urlsplit(config["url"]).netloc
        return cls(
            timeout_s=float(config.get("timeout_s") or 30),
            max_retries=int(config.get("max_retries", 3)),
            rpm_limit=config.get("rpm_limit"),
            limiter_key=f"http-target:{experiment.workspace_id}:{host}",
            deadline_s=max(60.0, float(config.get("timeout_s") or 30) * 4),
        )


@dataclass
class HttpCall:
    """One row's request: what is sent (with secrets), what is shown (without), or why not."""

    method: str
    url: str = ""
    headers: dict[str, str] = field(default_factory=dict, repr=False)  # holds the secrets
    body: Any = None
    shown: dict = field(default_factory=dict)
    problem: str = ""
    secret_values: list[str] = field(default_factory=list, repr=False)

    @classmethod
    def for_items(cls, *, experiment, items, repeat: int = 0) -> list[HttpCall]:
        """One call per item (of repetition `repeat`); the secrets and the media resolver are
        looked up once."""
        secrets = experiment_secrets(experiment)
        media = media_link(experiment.workspace)
        return [cls.for_item(experiment, item, (media, secrets), repeat) for item in items]

    @classmethod
    def for_item(cls, experiment, item, looked_up: tuple, repeat: int) -> HttpCall:
        media, secrets = looked_up
        config = experiment.target_config
        named = Renderer(item, media, {n: f"[secret {n}]" for n in secrets_used(config)})
        call = cls(method=config.get("method", "POST"), secret_values=secrets.values())
        key = idempotency_key(
            run_id=experiment.public_id,
            item_id=item.item_id,
            repeat=repeat,
            turn=getattr(item, "turn", None),  # a simulated user's row at one turn
        )
        try:
            call.url = named.url(config["url"])  # never holds a secret (refused at save)
            call.problem = secrets_refused(config, secrets, call.url)
            # A refused row is not sent; its headers are built with the names alone.
            sent = named if call.problem else Renderer(item, media, secrets.values_by_name())
            call.headers = {k: sent.text(v) for k, v in (config.get("headers") or {}).items()}
            call.body = sent.json(config.get("body"))
        except RowError as exc:
            call.problem = call.problem or f"the request could not be built: {exc}"
        call.headers = assay_headers(call.headers, key, experiment.public_id)
        call.shown = {
            "method": call.method,
            "url": call.url,
            "headers": assay_headers(
                {k: named.text(v) for k, v in (config.get("headers") or {}).items()},
                key,
                experiment.public_id,
            ),
            "body": call.body,
        }
        return call


@dataclass(frozen=True)
class Secrets:
    """The workspace secrets a target's headers name: name → (plaintext, allowed origins)."""

    found: dict[str, tuple[str, list[str]]] = field(repr=False)  # never in a log line

    def values_by_name(self) -> dict[str, str]:
        return {name: value for name, (value, _o) in self.found.items()}

    def values(self) -> list[str]:
        return [value for value, _o in self.found.values()]


def secrets_used(config: dict) -> set[str]:
    """The names of the secrets a target config's headers use."""
    return {
        name.removeprefix(SECRET_PREFIX)
        for name, _f in placeholders(config.get("headers") or {})
        if name.startswith(SECRET_PREFIX)
    }


def experiment_secrets(experiment) -> Secrets:
    """The plaintext and origins of the workspace secrets the target's headers name."""
    from assay.selectors import secrets_named
    from assay.services import secret_reveal

    names = secrets_used(experiment.target_config)
    found = secrets_named(workspace=experiment.workspace, names=names)
    return Secrets({s.name: (secret_reveal(secret=s), list(s.origins)) for s in found})


def secrets_refused(config: dict, secrets: Secrets, url: str) -> str:
    """Why the request to `url` may not carry its secrets ('' when it may): each must exist
    and list the URL's origin. Checked for every request, so a secret's origins changed after
    the target was saved hold from the next row on."""
    names = secrets_used(config)
    if not names:
        return ""
    try:
        origin = url_origin(url)
    except OriginError as exc:
        return f"the request was not sent: {exc}"
    for name in sorted(names):
        if name not in secrets.found:
            return f"the request was not sent: the workspace has no secret named {name!r}"
        refusal = origin_refusal(name, secrets.found[name][1], origin)
        if refusal:
            return f"the request was not sent: {refusal}"
    return ""


def media_link(workspace):
    """content → a URL the endpoint can fetch: the medium's own, else a data: URL of it."""
    from evalsets.items.content import MEDIA_KEYS
    from evaluators.providers import storage_media_resolver

    resolve = storage_media_resolver(workspace)

    def link(content: dict) -> str:
        media = content.get(MEDIA_KEYS.get(content.get("content_type"), ""), {}) or {}
        if str(media.get("url", "")).startswith(("http://", "https://")):
            return media["url"]
        try:
            return resolve(media.get("uri") or "")
        except (ValueError, OSError) as exc:
            raise RowError(f"a medium could not be read ({exc})") from None

    return link


# ----------------------------------------------------------------------------- sending


def run_calls(
    *,
    experiment,
    calls: list[HttpCall],
    cancel: threading.Event | None,
    run_key: str | None = None,
    landed=None,
) -> list:
    """[(call, Answer)] in order, or with `landed` [landed(index, call, answer)]: each answer
    turned into what the caller keeps as it lands, while the other calls wait on the network, not
    all at once after the last one. Blocking (for the chunk runner and the test request).
    A cancel drops the calls in flight and raises RunCancelled, as evaluator batches do.
    Calls of one `run_key` (the run's target) share `concurrency` across every worker."""
    call_settings = CallSettings.for_experiment(experiment)
    slots = (experiment.concurrency, run_key)
    sending = _send_all(calls, call_settings, slots, cancel, landed or _pair)
    try:
        return run_blocking(sending)
    except BatchCancelled:
        raise RunCancelled from None


def _pair(_index: int, call: HttpCall, answer) -> tuple:
    return call, answer


async def _send_all(calls, call_settings, slots, cancel, landed) -> list:
    from assay.safety.outbound_aio import client_session  # aiohttp: only where rows are sent
    from evaluators.llm.slots import run_slots_open
    from evaluators.providers import llm_backends, run_limit

    limiter, _cache = llm_backends()
    concurrency, run_key = slots
    size = max(1, concurrency)
    shared = run_slots_open(run_limit(run_key), size) if run_key else None
    policy = outbound_policy(settings.ASSAY_OUTBOUND_ALLOW)
    local = asyncio.Semaphore(size)
    # one session (one connection pool) for the batch, on the batch's own event loop
    async with client_session(policy, limit=size, ssl_context=ssl_context()) as client:

        async def one(index: int, call: HttpCall):
            if call.problem:
                return landed(index, call, _answer())
            async with local:
                token = await shared.acquire() if shared else None
                try:
                    answer = await _send(client, call, call_settings, limiter)
                finally:
                    if token is not None:
                        await shared.release(token)
            return landed(index, call, answer)

        try:
            return await gather_cancellable([one(i, c) for i, c in enumerate(calls)], cancel)
        finally:
            if shared is not None:
                await shared.close()


class _BadStatus(Exception):
    def __init__(self, status: int, headers, body: str):
        super().__init__(f"HTTP {status}")
        self.status, self.headers, self.body = status, headers, body


class _Deadline(Exception):
    """No whole answer within timeout_s (retried, like a timeout)."""

    def __init__(self, timeout_s: float):
        super().__init__(f"{timeout_s:g} s per request, to the answer's last byte")


class _Redirect(Exception):
    """A 3xx answer: not followed, not retried (it would redirect again)."""

    def __init__(self, status: int, location: str):
        where = f"to {location[:300]}" if location else "without a Location"
        super().__init__(
            f"HTTP {status}, a redirect {where}; redirects are not followed, so give the URL "
            "that answers"
        )


class _TooLarge(Exception):
    """The answer is longer than ASSAY_TARGET_MAX_BYTES (never retried: it will not shrink)."""

    def __init__(self, limit: int):
        super().__init__(f"the answer is larger than {limit:,} bytes (ASSAY_TARGET_MAX_BYTES)")


async def _send(client, call: HttpCall, call_settings: CallSettings, limiter):
    last: dict[str, Any] = {}
    limit = int(settings.ASSAY_TARGET_MAX_BYTES)
    headers, data = _request_parts(call)

    async def send(timeout_s: float):
        try:
            # timeout_s bounds the whole attempt, not each read: an answer trickling a byte
            # a second would pass every read timeout. Past it the connection is closed.
            async with asyncio.timeout(timeout_s):
                async with client.request(
                    call.method, call.url, headers=headers, data=data, allow_redirects=False
                ) as response:
                    body, whole = await _read(response, limit)
        except TimeoutError:
            raise _Deadline(timeout_s) from None
        last["status"], last["body"] = response.status, body
        _check_answer(response, body, whole, limit)
        return response.status, body

    done = await call_with_retries(call_settings, send, classify, limiter=limiter)
    if done.failure is None:
        status, body = done.answer
        return _answer(status_code=status, body=body, latency_ms=done.elapsed_ms)
    message = scrub_secrets(final_message(done, call_settings, FINAL_MESSAGES), call.secret_values)
    return _answer(
        status_code=last.get("status"),
        body=last.get("body"),
        error=message,
        timed_out=done.failure.kind in ("timeout", "deadline"),
        latency_ms=done.elapsed_ms,
    )


def _request_parts(call: HttpCall) -> tuple[dict[str, str], bytes | None]:
    """The headers and the body as sent: the body as compact JSON (as httpx sent `json=`),
    with `Content-Type: application/json` unless the config's headers name a type."""
    if call.body is None:
        return call.headers, None
    try:
        data = orjson.dumps(call.body)
    except TypeError:  # what orjson refuses (an integer past 64 bits) json still writes
        data = json.dumps(call.body, ensure_ascii=False, separators=(",", ":")).encode()
    if any(name.lower() == "content-type" for name in call.headers):
        return call.headers, data
    return {**call.headers, "Content-Type": "application/json"}, data


def _check_answer(response, body: str, whole: bool, limit: int) -> None:
    """An error status, a redirect (never followed: the secrets in the headers were meant
    for this URL) or an answer past the cap ends the attempt."""
    if response.status >= 400:
        raise _BadStatus(response.status, response.headers, body)
    if response.status >= 300:
        raise _Redirect(response.status, response.headers.get("location", ""))
    if not whole:
        raise _TooLarge(limit)


async def _read(response, limit: int) -> tuple[str, bool]:
    """The body as text, read streamed up to `limit` bytes (decoded, so a compressed answer
    counts as it unpacks), and whether that was all of it. Past the limit the rest is never
    read: leaving the response with its body unread closes the connection instead of
    draining it."""
    declared = response.content_length
    if declared is not None and declared > limit and response.status < 400:
        return "", False
    data = bytearray()
    async for piece in response.content.iter_any():
        data += piece
        if len(data) > limit:
            return _decoded(data[:limit]), False
    return _decoded(data), True


def _decoded(data: bytes | bytearray) -> str:
    return bytes(data).decode("utf-8", errors="replace")


def _answer(**fields) -> Answer:
    return Answer(**fields)


def classify(exc: BaseException) -> Failure:
    """Classify a failed attempt of an HTTP-target call."""
    refused = refused_in(exc)
    if refused is not None:
        return Failure("refused", short(str(refused)), False)
    if isinstance(exc, _TooLarge):
        return Failure("too_large", str(exc), False)
    if isinstance(exc, _Redirect):
        return Failure("redirect", str(exc), False)
    if isinstance(exc, _Deadline):
        return Failure("deadline", str(exc), True)
    if isinstance(exc, _BadStatus):
        return status_failure(exc.status, exc.headers, exc.body)
    if isinstance(exc, TimeoutError):
        return Failure("timeout", "the request timed out", True)
    if _broke_in_transport(exc):
        return Failure("connection", short(str(exc) or type(exc).__name__), True)
    return Failure("unexpected", short(f"{type(exc).__name__}: {exc}"), False)


def _broke_in_transport(exc: BaseException) -> bool:
    """A connection refused, reset or closed early, a malformed answer: aiohttp's client
    errors except a URL it cannot use (that one will not change on a retry)."""
    import aiohttp

    return isinstance(exc, aiohttp.ClientError | OSError) and not isinstance(
        exc, aiohttp.InvalidURL
    )


__all__ = ["PLACEHOLDER", "Answer", "CallSettings", "HttpCall", "classify", "run_calls"]
