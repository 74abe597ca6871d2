"""Model providers as the evaluators use them: which provider a judge config points at, the
call settings (the one place a key is decrypted), the shared rate limiter and response cache,
the media resolver, and a judge's batch. The prompt target uses the same pieces.
"""

from __future__ import annotations

import base64
import mimetypes

from django.conf import settings
from django.core.files.storage import default_storage

from assay.marking import NO_RUN
from assay.models import ModelProvider, Workspace
from assay.pricing import token_cost
from assay.selectors import provider_find
from assay.services import secret_reveal


def judge_run_batch(*, batch) -> list:
    """Judge a kind `Batch` with its LLM config on the workspace's provider: one RunOutcome a
    turn."""
    # imported here: the HTTP client stack costs time to import, which code-only workers never pay
    from .llm import run_llm_batch

    return provider_batch_run(batch=batch, run=run_llm_batch, outcome=_judge_outcome)


def provider_batch_run(*, batch, run, outcome) -> list:
    """A kind `Batch` run by `run` (`run_llm_batch` or `run_pairwise_batch`: the same arguments)
    on the workspace's provider with the shared limiter, cache, media and run slots; each answer
    becomes `outcome(provider, answer)`. No provider: an error outcome a turn."""
    from .llm import BatchCancelled
    from .runner import RunCancelled, RunOutcome

    provider = judge_provider(batch.workspace, batch.config)
    if provider is None:
        error = "no model provider is configured for this evaluator"
        return [RunOutcome(status="error", error=error) for _ in batch.turns]
    limiter, cache = llm_backends()
    try:
        answers = run(
            batch.config,
            batch.turns,
            provider_settings(provider, marker=batch.run_key),
            concurrency=batch.concurrency,
            limiter=limiter,
            cache=cache,
            version_key=batch.version_key,
            media_resolver=storage_media_resolver(batch.workspace),
            cancel=batch.cancel,
            run_limit=run_limit(batch.run_key),
        )
    except BatchCancelled:
        raise RunCancelled from None
    return [outcome(provider, answer) for answer in answers]


def _judge_outcome(provider, r):
    """One judge call's answer as the runner's outcome, with its cost and call details."""
    from .runner import RunOutcome

    return RunOutcome.like(
        r,
        cost=provider_cost(provider, (r.rendered_request or {}).get("model"), r),
        extra={
            "attempts": r.attempts,
            "parse_method": r.parse_method,
            "rate_limit_wait_ms": r.rate_limit_wait_ms,  # latency_ms leaves it out
            "failure": r.failure,  # "rejected": the provider refused the request itself
        },
    )


_SHARED: dict = {}


def shared_backend(factory):
    """One limiter / cache per process, on Redis when REDIS_URL is set (shared by all workers)."""
    if factory not in _SHARED:
        _SHARED[factory] = factory(settings.REDIS_URL or None)
    return _SHARED[factory]


def llm_backends():
    """(rate limiter, response cache) for provider calls, shared by judges and targets."""
    from .llm import make_cache, make_limiter

    return shared_backend(make_limiter), shared_backend(make_cache)


def run_limit(key: str | None):
    """The run-wide slots of `key` (None: no run): in Redis when REDIS_URL is set, shared by
    every worker, else in this process."""
    from .llm.slots import RunLimit

    return RunLimit(key, settings.REDIS_URL or None) if key else None


def judge_provider(workspace: Workspace, config: dict) -> ModelProvider | None:
    """The provider an LLM config points at (under "model"), if it is this workspace's."""
    return provider_find(
        workspace=workspace, public_id=(config.get("model") or {}).get("provider_id")
    )


def provider_cost(provider: ModelProvider, model: str, result) -> float | None:
    """USD one call cost by the provider's price for `model` (None: no price for it; 0 for a
    cached answer, which made no request)."""
    price = (provider.prices or {}).get(model)
    if price is None:
        return None
    if getattr(result, "cached", False):
        return 0.0
    return token_cost(price, result.tokens_in, result.tokens_out)


def provider_settings(provider: ModelProvider, *, marker: str | None = None):
    """The call settings for a provider; the key is decrypted here and nowhere else. `marker`
    names whose calls they are (a run's key; none: a debug run's), sent on every request as
    Assay's baggage entry so that traced calls are never scored as traffic."""
    from .llm import ProviderSettings

    return ProviderSettings(
        base_url=provider.base_url,
        api_key=secret_reveal(secret=provider.api_key) if provider.api_key_id else "unused",
        model=provider.default_model,
        **{name: getattr(provider, name) for name in ModelProvider.CALL_FIELDS},
        provider_key=f"provider:{provider.public_id}",
        outbound_allow=settings.ASSAY_OUTBOUND_ALLOW,
        marker=marker or NO_RUN,
    )


def storage_media_resolver(workspace: Workspace):
    """uri → data URL for media in this workspace's storage area; others are refused."""
    from evalsets.items.media import workspace_prefix

    prefix = workspace_prefix(workspace)

    def resolve(uri: str) -> str:
        if not uri.startswith(prefix) or ".." in uri:
            raise ValueError(f"media {uri!r} is not in this workspace")
        with default_storage.open(uri, "rb") as handle:
            data = handle.read()
        mime = mimetypes.guess_type(uri)[0] or "application/octet-stream"
        return f"data:{mime};base64,{base64.b64encode(data).decode()}"

    return resolve
