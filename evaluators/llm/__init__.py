"""LLM evaluators: render the judge prompt, call an OpenAI-compatible provider, parse the score.

Pure Python (no Django). The Django layer supplies provider settings, the media resolver,
the limiter / cache backends and stores the outcomes.

The names below load their module on first use: the HTTP client and Redis stack cost time and
memory to import, and a process that only renders prompts or runs code evaluators never pays.
"""

from __future__ import annotations

import importlib

_HOMES = {
    "answer": ["STRUCTURED_MODES", "answer_instruction", "answer_params", "answer_schema"],
    "attempts": [
        "Attempted",
        "BatchCancelled",
        "call_with_retries",
        "gather_cancellable",
        "run_blocking",
    ],
    "batch": ["LlmOutcome", "arun_llm_batch", "run_completion_batch", "run_llm_batch"],
    "cache": ["MemoryCache", "RedisCache", "ResponseCache", "cache_key", "make_cache"],
    "client": ["CallResult", "ProviderSettings", "call_completion", "make_client"],
    "parse": ["AnswerError", "ParsedAnswer", "parse_answer", "validate_score"],
    "ratelimit": ["LocalRateLimiter", "RateLimiter", "RedisRateLimiter", "make_limiter"],
    "render": ["RenderError", "render_messages", "template_variables"],
    "request": ["build_request"],
}
_MODULE_OF = {name: module for module, names in _HOMES.items() for name in names}
__all__ = sorted(_MODULE_OF)


def __getattr__(name: str):
    module = _MODULE_OF.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value
