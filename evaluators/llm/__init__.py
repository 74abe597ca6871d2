"""LLM evaluators: render the judge prompt, call an OpenAI-compatible provider, parse the score.

Pure Python (no Django). The Django layer supplies provider settings, the media resolver,
the limiter / cache backends and stores the outcomes.
"""

from .answer import STRUCTURED_MODES, answer_instruction, answer_params, answer_schema
from .batch import BatchCancelled, LlmOutcome, arun_llm_batch, run_completion_batch, run_llm_batch
from .cache import MemoryCache, RedisCache, ResponseCache, cache_key, make_cache
from .client import CallResult, ProviderSettings, call_completion, make_client
from .parse import AnswerError, ParsedAnswer, parse_answer, validate_score
from .ratelimit import LocalRateLimiter, RateLimiter, RedisRateLimiter, make_limiter
from .render import RenderError, render_messages, template_variables
from .request import build_request

__all__ = [
    "STRUCTURED_MODES",
    "AnswerError",
    "BatchCancelled",
    "CallResult",
    "LlmOutcome",
    "LocalRateLimiter",
    "MemoryCache",
    "ParsedAnswer",
    "ProviderSettings",
    "RateLimiter",
    "RedisCache",
    "RedisRateLimiter",
    "RenderError",
    "ResponseCache",
    "answer_instruction",
    "answer_params",
    "answer_schema",
    "arun_llm_batch",
    "build_request",
    "cache_key",
    "call_completion",
    "make_cache",
    "make_client",
    "make_limiter",
    "parse_answer",
    "render_messages",
    "run_completion_batch",
    "run_llm_batch",
    "template_variables",
    "validate_score",
]
