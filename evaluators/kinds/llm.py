"""The `llm` kind: an LLM judge whose prompt renders the turn and whose answer is a score.

Messages with `{{variable}}` placeholders (and `multi_part_variable` parts for media), a model
on one of the workspace's providers, the answer parsed robustly (`evaluators.llm`). Batches go to
the `llm` (IO-bound) queue. Optional keys for Conversation variables: `chat_history_variable`
(its messages go before the judge's user message) and `needs_tool_results` (a row whose
conversation has no tool result is not judged: unknown).
"""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from assay.vocabulary import MEDIA_TYPES, ContentType

from ..config import NAME_RE, PLACEHOLDER_RE, Errors, int_ranged, is_number, ranged
from .base import EvaluatorKindSpec

ROLES = ("system", "user")
MODEL_KEYS = {"provider_id", "model", "temperature", "max_tokens", "top_p"}
# What a {{placeholder}} can hold: text, or a conversation rendered as its transcript.
PLACEHOLDER_TYPES = (ContentType.TEXT, ContentType.CONVERSATION)
HISTORY, EVIDENCE = "chat_history_variable", "needs_tool_results"

JUDGE_SYSTEM = """\
You are a careful evaluator. Judge whether the answer below responds well to the question.
Score 1 when it answers the question correctly and completely, 0.5 when it is partly right or \
incomplete, 0 when it is wrong or does not answer.
Reply with only a JSON object:
{"reason": "<one or two sentences>", "score": <number from 0 to 1>}."""

JUDGE_USER = """\
<question>
{{input}}
</question>

<answer>
{{output}}
</answer>"""


class LlmKind(EvaluatorKindSpec):
    name = "llm"
    label = _("LLM judge")
    queue = "llm"
    keys = frozenset({"messages", "model", HISTORY, EVIDENCE})
    editor_template = "evaluators/kinds/_llm.html"

    def validate(self, config: dict, errors: Errors) -> dict:
        out = {
            "messages": _messages(config.get("messages"), errors),
            "model": _model(config.get("model", {}), errors),
        }
        out.update(_conversation_options(config, errors))
        return out

    def default_config(self, language: str | None) -> dict:
        variables = [
            {"name": "input", "content_type": "Text", "description": "The question or task."},
            {"name": "output", "content_type": "Text", "description": "The answer to judge."},
        ]
        messages = [
            {"role": "system", "content": JUDGE_SYSTEM},
            {"role": "user", "content": JUDGE_USER},
        ]
        return {"input_variables": variables, "messages": messages}

    def check(self, config: dict, errors: Errors, *, model_configured: bool) -> None:
        _check_prompt_variables(config, errors)
        _check_conversation_options(config, errors)
        _check_model(config, model_configured, errors)

    def model_configured(self, config: dict, *, workspace) -> bool:
        from ..providers import judge_provider

        return judge_provider(workspace, config) is not None

    def from_template(
        self, template, *, workspace, language: str | None, prompt_locale: str = "en"
    ) -> dict:
        """The preset's judge with its prompt in `prompt_locale`, pointed at the workspace's
        first provider and its model."""
        from assay.models import ModelProvider

        config = template.judge_config(prompt_locale)
        provider = ModelProvider.objects.filter(workspace=workspace).order_by("created_at").first()
        if provider is None:
            return config
        model = {
            **config.get("model", {}),
            "provider_id": str(provider.public_id),
            "model": provider.default_model,
        }
        return {**config, "model": model}

    def run(self, batch):
        from ..providers import judge_run_batch

        return judge_run_batch(batch=batch)

    def editor_context(self, *, workspace) -> dict:
        from assay.selectors import providers_list

        providers = [
            {"id": str(p.public_id), "name": p.name, "default_model": p.default_model}
            for p in providers_list(workspace=workspace)
        ]
        return {"providers": providers}


# --------------------------------------------------------------------------- validation


def _messages(value: Any, errors: Errors) -> list[dict]:
    if not isinstance(value, list) or not value:
        errors.add("messages", gettext("Must be a non-empty list of messages."))
        return []
    out = [_message(item, f"messages[{i}]", errors) for i, item in enumerate(value)]
    if not any(m.get("role") == "user" for m in out):
        errors.add("messages", gettext("At least one message must have role 'user'."))
    return out


def _message(item: Any, path: str, errors: Errors) -> dict:
    if not isinstance(item, dict):
        errors.add(path, gettext("Must be an object with role and content."))
        return {}
    errors.unknown_keys(path, item, {"role", "content"})
    role = item.get("role")
    if role not in ROLES:
        errors.add(f"{path}.role", f"Unknown role {role!r}; expected 'system' or 'user'.")
    content = item.get("content")
    if isinstance(content, str):
        if not content.strip():
            errors.add(f"{path}.content", gettext("Must not be empty."))
    elif isinstance(content, list) and content:
        content = [_part(p, f"{path}.content[{i}]", errors) for i, p in enumerate(content)]
    else:
        errors.add(
            f"{path}.content",
            gettext("Must be a non-empty string or a non-empty list of parts."),
        )
    return {"role": role, "content": content}


def _text_part(part: dict, path: str, errors: Errors) -> dict:
    errors.unknown_keys(path, part, {"type", "text"})
    if not isinstance(part.get("text"), str):
        errors.add(f"{path}.text", gettext("Must be a string."))
    return {"type": "text", "text": part.get("text")}


def _variable_part(part: dict, path: str, errors: Errors) -> dict:
    errors.unknown_keys(path, part, {"type", "variable"})
    variable = part.get("variable")
    if not isinstance(variable, str) or not NAME_RE.match(variable):
        errors.add(f"{path}.variable", gettext("Must name a declared variable."))
    return {"type": "multi_part_variable", "variable": variable}


PARTS = {"text": _text_part, "multi_part_variable": _variable_part}


def _part(part: Any, path: str, errors: Errors) -> dict:
    if not isinstance(part, dict):
        errors.add(path, gettext("Must be an object with a type."))
        return {}
    check = PARTS.get(part.get("type"))
    if check is None:
        errors.add(
            f"{path}.type",
            gettext("Unknown part type %(type)r; expected 'text' or 'multi_part_variable'.")
            % {"type": part.get("type")},
        )
        return dict(part)
    return check(part, path, errors)


def _conversation_options(config: dict, errors: Errors) -> dict:
    """The optional Conversation keys, present only when set (so configs without them keep
    their hash)."""
    out: dict[str, Any] = {}
    history = config.get(HISTORY)
    if history not in (None, ""):
        if not isinstance(history, str) or not NAME_RE.match(history):
            errors.add(HISTORY, gettext("Must name a declared Conversation variable, or be null."))
        out[HISTORY] = history
    needs = config.get(EVIDENCE)
    if needs not in (None, []):
        if not isinstance(needs, list) or not all(isinstance(n, str) for n in needs):
            errors.add(EVIDENCE, gettext("Must be a list of Conversation variable names."))
        out[EVIDENCE] = needs
    return out


def _model(value: Any, errors: Errors) -> dict:
    if not isinstance(value, dict):
        errors.add("model", gettext("Must be an object."))
        return {}
    errors.unknown_keys("model", value, MODEL_KEYS)
    provider = value.get("provider_id")
    if provider is not None and not isinstance(provider, str):
        errors.add("model.provider_id", gettext("Must be a string or null."))
    name = value.get("model", "")
    if not isinstance(name, str):
        errors.add("model.model", gettext("Must be a string."))
    out = {
        "provider_id": provider,
        "model": name,
        "temperature": ranged(value, "temperature", 0.0, (0.0, 2.0), errors, prefix="model"),
        "max_tokens": int_ranged(value, "max_tokens", 1024, (1, 32768), errors, prefix="model"),
    }
    if value.get("top_p") is not None:
        top_p = value["top_p"]
        if not is_number(top_p) or not 0 < top_p <= 1:
            errors.add("model.top_p", gettext("Must be a number greater than 0 and at most 1."))
        out["top_p"] = float(top_p) if is_number(top_p) else top_p
    return out


# --------------------------------------------------------------------------- placeholders


def _text_fields(config: dict):
    """Yield (path, text) for every text a prompt renders, in message order."""
    for i, message in enumerate(config.get("messages") or []):
        content = message.get("content") if isinstance(message, dict) else None
        if isinstance(content, str):
            yield f"messages[{i}].content", content
        for j, part in enumerate(content if isinstance(content, list) else []):
            if isinstance(part, dict) and isinstance(part.get("text"), str):
                yield f"messages[{i}].content[{j}].text", part["text"]


def _variable_parts(config: dict):
    """Yield (path, variable name) for every multi_part_variable part."""
    for i, message in enumerate(config.get("messages") or []):
        content = message.get("content") if isinstance(message, dict) else None
        for j, part in enumerate(content if isinstance(content, list) else []):
            if isinstance(part, dict) and part.get("type") == "multi_part_variable":
                yield f"messages[{i}].content[{j}].variable", part.get("variable")


def placeholders(config: dict) -> set[str]:
    """Names referenced by ``{{name}}`` in message text and by multi_part_variable parts."""
    names = {m for _, text in _text_fields(config) for m in PLACEHOLDER_RE.findall(text)}
    names.update(v for _, v in _variable_parts(config) if isinstance(v, str))
    return names


# --------------------------------------------------------------------------- submit checks


def _check_prompt_variables(config: dict, errors: Errors) -> None:
    declared = {v["name"]: v["content_type"] for v in config["input_variables"]}
    for path, text in _text_fields(config):
        for name in dict.fromkeys(PLACEHOLDER_RE.findall(text)):
            if name not in declared:
                errors.add(
                    path,
                    gettext("Variable %(name)r is not declared in input_variables.")
                    % {"name": name},
                )
            elif declared[name] not in PLACEHOLDER_TYPES:
                errors.add(
                    path,
                    gettext(
                        "Variable %(name)r is %(type)s; only Text and Conversation "
                        "variables can go in {{...}}; use a multi_part_variable part for "
                        "media."
                    )
                    % {"name": name, "type": declared[name]},
                )
    for path, name in _variable_parts(config):
        if name not in declared:
            errors.add(
                path,
                gettext("Variable %(name)r is not declared in input_variables.") % {"name": name},
            )
        elif declared[name] not in MEDIA_TYPES:
            errors.add(
                path,
                f"Variable {name!r} is {declared[name]}; multi_part_variable needs Image, Audio "
                "or MultiPart.",
            )
    used = placeholders(config) | {config.get(HISTORY)}
    for i, variable in enumerate(config["input_variables"]):
        if variable["required"] and variable["name"] not in used:
            errors.add(
                f"input_variables[{i}].name",
                gettext("Required variable %(name)r is not used in any message.")
                % {"name": variable["name"]},
            )


def _check_conversation_options(config: dict, errors: Errors) -> None:
    """The chat history and the evidence lists must name declared Conversation variables."""
    declared = {v["name"]: v["content_type"] for v in config["input_variables"]}
    named = [(HISTORY, config[HISTORY])] if config.get(HISTORY) else []
    named += [(f"{EVIDENCE}[{i}]", n) for i, n in enumerate(config.get(EVIDENCE) or [])]
    for path, name in named:
        if declared.get(name) != ContentType.CONVERSATION:
            what = gettext("is not declared") if name not in declared else f"is {declared[name]}"
            errors.add(
                path,
                gettext("Variable %(name)r %(what)s; this needs a Conversation variable.")
                % {"name": name, "what": what},
            )


def _check_model(config: dict, model_configured: bool, errors: Errors) -> None:
    if not config["model"]["model"].strip():
        errors.add("model.model", gettext("Choose a model."))
    if not model_configured:
        errors.add(
            "model.provider_id",
            gettext("No usable model provider is configured for this evaluator."),
        )
