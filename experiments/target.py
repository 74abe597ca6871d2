"""The prompt target: an LLM answers each row's `{{column}}` prompt, producing actual_output."""

from __future__ import annotations

import asyncio
import time
from typing import Any

from assay.selectors import provider_find
from evalsets.models import EvalSetItem
from evaluators.config import PLACEHOLDER_RE
from evaluators.llm.client import make_client
from evaluators.llm.retry import classify, retry_delay
from evaluators.runner import provider_settings, shared_backend

from .models import Experiment, ResultStatus


def target_run_batch(*, experiment: Experiment, items: list[EvalSetItem]) -> list[dict]:
    """One TargetResult field dict per item, in order; failures are rows, never exceptions."""
    config = experiment.target_config
    provider = provider_find(workspace=experiment.workspace, public_id=config.get("provider_id"))
    if provider is None:
        return [_failed("the target's model provider no longer exists") for _ in items]
    settings = provider_settings(provider)
    requests = [_request(config, item.data, settings.model) for item in items]
    return asyncio.run(_run_all(settings, requests, experiment.concurrency))


def _request(config: dict, data: dict, default_model: str) -> dict[str, Any]:
    def fill(text: str) -> str:
        return PLACEHOLDER_RE.sub(lambda m: (data.get(m.group(1)) or {}).get("text") or "", text)

    body = {"model": config.get("model") or default_model,
            "messages": [{"role": m["role"], "content": fill(m["content"])}
                         for m in config["messages"]]}  # fmt: skip
    for key in ("temperature", "max_tokens"):
        if config.get(key) is not None:
            body[key] = config[key]
    return body


async def _run_all(settings, requests: list[dict], concurrency: int) -> list[dict]:
    from evaluators.llm import make_limiter

    client = make_client(settings, concurrency)
    semaphore = asyncio.Semaphore(max(1, concurrency))
    limiter = shared_backend(make_limiter)
    try:
        return list(
            await asyncio.gather(*(_one(client, settings, limiter, semaphore, r) for r in requests))
        )
    finally:
        await client.close()


async def _one(client, settings, limiter, semaphore, request: dict) -> dict:
    started = time.monotonic()
    async with semaphore:
        for attempt in range(1, settings.max_retries + 2):
            await limiter.acquire(settings.limiter_key, rpm=settings.rpm_limit)
            try:
                response = await client.chat.completions.create(**request)
            except Exception as exc:  # classified: retry the transient, report the rest
                failure = classify(exc)
                if not failure.retryable or attempt > settings.max_retries:
                    return _failed(failure.message, request, started, failure.kind)
                await asyncio.sleep(
                    retry_delay(
                        failure,
                        attempt,
                        base_s=settings.backoff_base_s,
                        cap_s=settings.backoff_cap_s,
                        retry_after_cap_s=settings.retry_after_cap_s,
                    )
                )
                continue
            return _succeeded(response, request, started)
    return _failed("no attempt was made", request, started)


def _succeeded(response, request: dict, started: float) -> dict:
    usage = getattr(response, "usage", None)
    text = (response.choices[0].message.content or "") if response.choices else ""
    return {
        "status": ResultStatus.SUCCESS,
        "output": text,
        "error": "",
        "rendered_request": request,
        "latency_ms": (time.monotonic() - started) * 1000,
        "tokens_in": getattr(usage, "prompt_tokens", 0) or 0,
        "tokens_out": getattr(usage, "completion_tokens", 0) or 0,
    }


def _failed(
    message: str, request: dict | None = None, started: float | None = None, kind: str = "error"
) -> dict:
    elapsed = (time.monotonic() - started) * 1000 if started else 0.0
    status = ResultStatus.TIMEOUT if kind == "timeout" else ResultStatus.ERROR
    return {
        "status": status,
        "output": "",
        "error": message,
        "rendered_request": request,
        "latency_ms": elapsed,
        "tokens_in": 0,
        "tokens_out": 0,
    }
