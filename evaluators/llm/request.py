"""Build the exact chat completion request body for one turn."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .answer import answer_params
from .render import MediaResolver, render_messages

# Model parameters copied from the evaluator config into the request when present.
_MODEL_PARAMS = ("temperature", "max_tokens", "top_p")


def build_request(
    config: Mapping[str, Any],
    turn: Mapping[str, Any],
    *,
    structured_mode: str = "json_schema",
    default_model: str = "",
    media_resolver: MediaResolver | None = None,
    schema: dict[str, Any] | None = None,
    instruction: str | None = None,
) -> dict[str, Any]:
    """Return the request body (model, messages, params, answer format) for ``turn``.

    ``schema`` and ``instruction`` ask for another answer than a score (a pairwise verdict).
    Raises ``RenderError`` when the turn lacks a required variable, ``ValueError`` when no
    model is configured or the answer mode is unknown.
    """
    model_config = config.get("model") or {}
    model = model_config.get("model") or default_model
    if not model:
        raise ValueError("no model configured for this evaluator or its provider")
    messages = render_messages(
        config,
        turn,
        media_resolver=media_resolver,
        structured_mode=structured_mode,
        instruction=instruction,
    )
    body: dict[str, Any] = {"model": model, "messages": messages}
    body.update(_model_params(model_config))
    body.update(answer_params(structured_mode, schema))
    return body


def _model_params(model_config: Mapping[str, Any]) -> dict[str, Any]:
    """The sampling parameters the evaluator sets (absent ones use the provider default)."""
    return {key: model_config[key] for key in _MODEL_PARAMS if model_config.get(key) is not None}
