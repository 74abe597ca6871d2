"""The one batch runner: an evaluator config + turns → one outcome per turn, with its verdict.

The debug runner calls it with a few turns; experiment tasks call it with a chunk. Code runs in
the sandbox; LLM judges call the configured provider through evaluators.llm.
"""

from __future__ import annotations

import base64
import mimetypes
import threading
from dataclasses import asdict, dataclass, field
from typing import Any

from django.conf import settings
from django.core.files.storage import default_storage

from assay import caps
from assay.caps import cap_json, cap_text
from assay.models import ModelProvider, Workspace
from assay.selectors import provider_find
from assay.services import secret_reveal
from assay.vocabulary import CONTENT_FIELD, Verdict

from .models import EvaluatorKind
from .policies import Policy, verdict

SANDBOX_STATUS = {"ok": "success", "timeout": "timeout", "memory": "error", "error": "error",
                  "refused": "error"}  # fmt: skip


@dataclass
class RunOutcome:
    """What one turn produced, in the Result vocabulary (status success|error|timeout|skipped)."""

    status: str
    score: float | None = None
    reason: str = ""
    verdict: str = Verdict.UNKNOWN
    error: str = ""
    stdout: str = ""
    rendered_request: dict | None = None
    raw_answer: str | None = None
    latency_ms: float = 0.0
    tokens_in: int = 0
    tokens_out: int = 0
    cached: bool = False
    extra: dict = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def evaluator_run_batch(
    *,
    workspace: Workspace,
    kind: str,
    config: dict,
    turns: list[dict],
    policy: dict,
    score_meaning: str,
    version_key: str | None = None,
    concurrency: int = 16,
    cancel: threading.Event | None = None,
) -> list[RunOutcome]:
    """Run `config` on every turn; a missing required variable skips that turn (unknown).

    Setting `cancel` stops the batch within a fraction of a second (the sandbox child is
    killed, calls in flight are dropped) and raises `RunCancelled`.
    """
    skipped = {i: _missing(config, turn) for i, turn in enumerate(turns)}
    runnable = [i for i, problem in skipped.items() if not problem]
    todo = [turns[i] for i in runnable]
    ran = _run(workspace, kind, config, todo, version_key, concurrency, cancel)
    outcomes: list[RunOutcome] = []
    results = dict(zip(runnable, ran, strict=True))
    for i in range(len(turns)):
        outcome = results.get(i) or RunOutcome(status="skipped", error=skipped[i])
        outcome.verdict = _verdict(outcome, policy, score_meaning)
        outcomes.append(_bounded(outcome))
    return outcomes


def _bounded(outcome: RunOutcome) -> RunOutcome:
    """Cap what a turn produced to its stored sizes, whoever reads it (debug, tests, runs)."""
    outcome.reason = cap_text(outcome.reason, caps.REASON_BYTES)
    outcome.error = cap_text(outcome.error, caps.ERROR_BYTES)
    outcome.stdout = cap_text(outcome.stdout, caps.STDOUT_BYTES)
    if outcome.raw_answer is not None:
        outcome.raw_answer = cap_text(outcome.raw_answer, caps.ANSWER_BYTES)
    if outcome.rendered_request is not None:
        outcome.rendered_request = cap_json(outcome.rendered_request)
    return outcome


class RunCancelled(Exception):
    """The batch was stopped by its cancel event; none of its outcomes should be stored."""


def _run(workspace, kind, config, turns, version_key, concurrency, cancel) -> list[RunOutcome]:
    if not turns:
        return []
    if kind == EvaluatorKind.CODE:
        return _run_code(config, turns, cancel)
    return _run_llm(workspace, config, turns, version_key, concurrency, cancel)


def _verdict(outcome: RunOutcome, policy: dict, meaning: str) -> str:
    if outcome.status != "success":
        return Verdict.UNKNOWN
    return verdict(outcome.score, Policy.from_dict(policy), meaning)


def _missing(config: dict, turn: dict) -> str:
    """Name the first required variable the turn lacks ('' when it has them all)."""
    fields = {**(turn.get("evaluate_dataset_fields") or {}),
              **(turn.get("evaluate_target_output_fields") or {})}  # fmt: skip
    for variable in config.get("input_variables") or []:
        if variable.get("required", True) and not _present(fields.get(variable["name"])):
            return f"required variable {variable['name']!r} is missing from the row"
    return ""


def _present(content: Any) -> bool:
    if not isinstance(content, dict):
        return False
    value = CONTENT_FIELD.get(content.get("content_type"))
    return value is not None and content.get(value) not in (None, "", [], {})


# ----------------------------------------------------------------------------- code


def _run_code(config: dict, turns: list[dict], cancel) -> list[RunOutcome]:
    import sandbox

    from .code_runner import code_run_batch

    try:
        outcomes = code_run_batch(config=config, turns=turns, cancel=cancel)
    except sandbox.Cancelled:
        raise RunCancelled from None
    return [
        RunOutcome(
            status=SANDBOX_STATUS.get(o.status, "error"),
            score=o.score if o.ok else None,
            reason=o.reason,
            error=_code_error(o),
            stdout=o.stdout,
            latency_ms=o.duration_ms,
            extra={"sandbox_status": o.status},
        )
        for o in outcomes
    ]


def _code_error(outcome) -> str:
    if outcome.status == "memory":
        return outcome.error or "memory limit exceeded"
    if outcome.status == "timeout":
        return outcome.error or "time limit exceeded"
    return outcome.error


# ----------------------------------------------------------------------------- LLM


def _run_llm(workspace, config, turns, version_key, concurrency, cancel) -> list[RunOutcome]:
    # imported here: the SDK costs ~0.4 s to import, which code-only workers never pay
    from .llm import BatchCancelled, run_llm_batch

    provider = judge_provider(workspace, config)
    if provider is None:
        error = "no model provider is configured for this evaluator"
        return [RunOutcome(status="error", error=error) for _ in turns]
    limiter, cache = llm_backends()
    try:
        results = run_llm_batch(
            config,
            turns,
            provider_settings(provider),
            concurrency=concurrency,
            limiter=limiter,
            cache=cache,
            version_key=version_key,
            media_resolver=storage_media_resolver(workspace),
            cancel=cancel,
        )
    except BatchCancelled:
        raise RunCancelled from None
    return [
        RunOutcome(
            status=r.status,
            score=r.score,
            reason=r.reason,
            error=r.error,
            rendered_request=r.rendered_request,
            raw_answer=r.raw_answer,
            latency_ms=r.latency_ms,
            tokens_in=r.tokens_in,
            tokens_out=r.tokens_out,
            cached=r.cached,
            extra={"attempts": r.attempts, "parse_method": r.parse_method},
        )
        for r in results
    ]


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


def judge_provider(workspace: Workspace, config: dict) -> ModelProvider | None:
    """The provider an LLM config points at (under "model"), if it is this workspace's."""
    return provider_find(
        workspace=workspace, public_id=(config.get("model") or {}).get("provider_id")
    )


def provider_settings(provider: ModelProvider):
    """The call settings for a provider; the key is decrypted here and nowhere else."""
    from .llm import ProviderSettings

    return ProviderSettings(
        base_url=provider.base_url,
        api_key=secret_reveal(secret=provider.api_key) if provider.api_key_id else "unused",
        model=provider.default_model,
        timeout_s=provider.timeout_s,
        rpm_limit=provider.rpm_limit,
        tpm_limit=provider.tpm_limit,
        structured_mode=provider.structured_mode,
        max_retries=provider.max_retries,
        provider_key=f"provider:{provider.public_id}",
        outbound_allow=settings.ASSAY_OUTBOUND_ALLOW,
    )


def storage_media_resolver(workspace: Workspace):
    """uri → data URL for media in this workspace's storage area; others are refused."""
    from evalsets.media import workspace_prefix

    prefix = workspace_prefix(workspace)

    def resolve(uri: str) -> str:
        if not uri.startswith(prefix) or ".." in uri:
            raise ValueError(f"media {uri!r} is not in this workspace")
        with default_storage.open(uri, "rb") as handle:
            data = handle.read()
        mime = mimetypes.guess_type(uri)[0] or "application/octet-stream"
        return f"data:{mime};base64,{base64.b64encode(data).decode()}"

    return resolve
