"""The prompt target: an LLM answers each row's `{{column}}` prompt, producing actual_output.

It calls the provider through the judges' call path (`evaluators.llm.run_completion_batch`):
the same client pool, shared rate limit, retries, deadline and response cache.
"""

from __future__ import annotations

import threading
from typing import Any

from assay.selectors import provider_find
from evalsets.models import EvalSetItem
from evaluators.config import PLACEHOLDER_RE
from evaluators.runner import llm_backends, provider_settings

from .models import Experiment, ResultStatus


def target_run_batch(
    *, experiment: Experiment, items: list[EvalSetItem], cancel: threading.Event | None = None
) -> list[dict]:
    """One TargetResult field dict per item, in order; failures are rows, never exceptions."""
    from evaluators.llm import run_completion_batch

    config = experiment.target_config
    provider = provider_find(workspace=experiment.workspace, public_id=config.get("provider_id"))
    if provider is None:
        return [_row(None, None, "the target's model provider no longer exists") for _ in items]
    settings = provider_settings(provider)
    requests = [_request(config, item.data, settings.model) for item in items]
    limiter, cache = llm_backends()
    # Cached per experiment: a chunk re-run after a crash (or a superseded runner) does not pay
    # for answers it already got, while a new experiment samples the target afresh.
    results = run_completion_batch(
        requests, settings, concurrency=experiment.concurrency, limiter=limiter, cache=cache,
        cache_namespace=f"prompt-target:{experiment.public_id}", cancel=cancel,
    )  # fmt: skip
    return [_row(request, result) for request, result in zip(requests, results, strict=True)]


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


def _row(request: dict | None, result, missing: str = "") -> dict:
    """TargetResult fields from a call result (or a reason nothing was called)."""
    if result is None:
        status, output, error = ResultStatus.ERROR, "", missing
    elif result.status == "success":
        status, output, error = ResultStatus.SUCCESS, result.raw_answer or "", ""
    else:
        status = ResultStatus.TIMEOUT if result.status == "timeout" else ResultStatus.ERROR
        output, error = "", result.error
    return {
        "status": status,
        "output": output,
        "error": error,
        "rendered_request": request,
        "latency_ms": result.latency_ms if result else 0.0,
        "tokens_in": result.tokens_in if result else 0,
        "tokens_out": result.tokens_out if result else 0,
    }
