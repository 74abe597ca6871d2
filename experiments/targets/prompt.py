"""The `prompt` target: an LLM answers each row's `{{column}}` prompt, producing actual_output.

It calls the provider through the judges' call path (`evaluators.llm.run_completion_batch`):
the same client pool, shared rate limit, retries, deadline and response cache.
"""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext
from django.utils.translation import gettext as _t
from django.utils.translation import gettext_lazy as _

from assay.selectors import provider_find
from assay.vocabulary import ContentType, ResultStatus
from evaluators.config import PLACEHOLDER_RE
from evaluators.providers import llm_backends, provider_cost, provider_settings, run_limit

from .base import TargetSpec

KEYS = {"provider_id", "model", "messages", "temperature", "max_tokens"}
ROLES = ("system", "user")
# A failed call's status in a TargetResult (anything else is an error).
FAILED_STATUS = {"timeout": ResultStatus.TIMEOUT}


class PromptTarget(TargetSpec):
    name = "prompt"
    label = _("Prompt: an LLM answers each row first")
    outputs = ("actual_output",)
    form_template = "experiments/targets/_prompt.html"
    testable = True
    calls_are_rows = True

    def clean(self, *, workspace, config, evalset_version, errors) -> dict:
        unknown = set(config) - KEYS
        if unknown:
            errors["target"] = [
                gettext("Unknown field(s): %(names)s.") % {"names": ", ".join(sorted(unknown))}
            ]
        if provider_find(workspace=workspace, public_id=config.get("provider_id")) is None:
            errors["target.provider_id"] = [gettext("Choose a model provider of this workspace.")]
        messages = config.get("messages")
        if not _well_formed(messages):
            errors["target.messages"] = [
                gettext("Give messages as [{role: system|user, content: text}].")
            ]
        else:
            errors.update(_placeholder_problems(messages, evalset_version))
        return config

    def run_batch(self, *, experiment, items, repeat, cancel) -> list[dict]:
        # Cached per experiment and repetition: a chunk re-run after a crash (or a superseded
        # runner) does not pay for answers it already got, while a new experiment, or another
        # repetition, samples the target afresh.
        return prompt_rows(
            workspace=experiment.workspace,
            config=experiment.target_config,
            datas=[item.data for item in items],
            concurrency=experiment.concurrency,
            cache_namespace=f"prompt-target:{experiment.public_id}:{repeat}",
            cancel=cancel,
            run_key=f"experiment:{experiment.public_id}:target",
        )

    def summary(self, config: dict) -> str:
        return _t("Prompt on %(model)s") % {"model": config.get("model") or _t("the default model")}

    def form_fields(self, *, workspace) -> dict:
        from django import forms

        provider, model = model_fields(workspace=workspace, provider_label=_("Model provider"))
        return {
            "provider": provider,
            "model": model,
            "system_prompt": forms.CharField(
                label=_("System message"), required=False, widget=forms.Textarea(attrs={"rows": 2})
            ),
            "user_prompt": forms.CharField(
                label=_("User message"),
                required=False,
                widget=forms.Textarea(attrs={"rows": 3}),
                help_text=_("Use {{column}} to insert a Text column of the row, e.g. {{input}}."),
            ),
            "temperature": forms.FloatField(
                label=_("Temperature"), required=False, min_value=0, max_value=2
            ),
            "max_tokens": forms.IntegerField(label=_("Max tokens"), required=False, min_value=1),
        }

    def form_problems(self, data: dict) -> dict[str, str]:
        problems = {}
        if not data.get("provider"):
            problems["provider"] = _t("Choose the provider the target prompt runs on.")
        if not (data.get("user_prompt") or "").strip():
            problems["user_prompt"] = _t("The target needs a user message.")
        return problems

    def from_form(self, data: dict) -> dict:
        messages = [{"role": "user", "content": data["user_prompt"]}]
        if (data.get("system_prompt") or "").strip():
            messages.insert(0, {"role": "system", "content": data["system_prompt"]})
        target = {
            "kind": self.name,
            "provider_id": data["provider"],
            "model": data["model"],
            "messages": messages,
        }
        for key in ("temperature", "max_tokens"):
            if data.get(key) is not None:
                target[key] = data[key]
        return target


def model_fields(*, workspace, provider_label) -> tuple:
    """The form fields that choose a model: a picker of the workspace's providers (each with
    its default model) labelled `provider_label`, and the model (empty: the provider's
    default). The prompt target's form and the simulated user's ask for them alike."""
    from django import forms

    from assay.selectors import providers_list

    providers = [("", _t("Choose a provider"))] + [
        (str(p.public_id), f"{p.name} · {p.default_model}")
        for p in providers_list(workspace=workspace)
    ]
    provider = forms.ChoiceField(label=provider_label, required=False, choices=providers)
    model = forms.CharField(
        label=_("Model"),
        required=False,
        max_length=200,
        help_text=_("Empty: the provider's default model."),
    )
    return provider, model


def _well_formed(messages) -> bool:
    return (
        isinstance(messages, list)
        and bool(messages)
        and all(
            isinstance(m, dict) and m.get("role") in ROLES and isinstance(m.get("content"), str)
            for m in messages
        )
    )


def _placeholder_problems(messages, version) -> dict:
    columns = {c["name"]: c for c in version.columns}
    used = {n for m in messages for n in PLACEHOLDER_RE.findall(m["content"])}
    bad = sorted(
        n for n in used if n not in columns or columns[n]["content_type"] != ContentType.TEXT
    )
    if bad:
        return {
            "target.messages": [
                gettext("{{%(n)s}} is not a Text column of the evalset.") % {"n": n} for n in bad
            ]
        }
    return {}


def prompt_rows(
    *,
    workspace,
    config: dict,
    datas: list[dict],
    histories: list[list[dict]] | None = None,
    concurrency: int,
    cache_namespace: str,
    cancel,
    run_key: str | None = None,
) -> list[dict]:
    """TargetResult fields per row: the config's messages filled from the row's data, then its
    chat history when given (a simulated user's conversation so far), answered by the model."""
    provider = provider_find(workspace=workspace, public_id=config.get("provider_id"))
    if provider is None:
        return [_row(None, None, "the target's model provider no longer exists") for _ in datas]
    model = provider_settings(provider).model
    histories = histories or [[] for _ in datas]
    requests = [
        _request(config, data, model, history)
        for data, history in zip(datas, histories, strict=True)
    ]
    return completion_rows(
        provider=provider,
        requests=requests,
        concurrency=concurrency,
        cache_namespace=cache_namespace,
        cancel=cancel,
        run_key=run_key,
    )


def completion_rows(
    *,
    provider,
    requests: list[dict],
    concurrency: int,
    cache_namespace: str,
    cancel,
    run_key: str | None = None,
) -> list[dict]:
    """TargetResult fields for ready chat bodies sent to `provider` through the judges' call
    path (pool, rate limit, retries, response cache); a cancel raises RunCancelled. Calls of
    one `run_key` share `concurrency` across every worker."""
    from evaluators.llm import BatchCancelled, run_completion_batch
    from evaluators.runner import RunCancelled

    limiter, cache = llm_backends()
    try:
        results = run_completion_batch(
            requests,
            provider_settings(provider, marker=run_key),
            concurrency=concurrency,
            limiter=limiter,
            cache=cache,
            cache_namespace=cache_namespace,
            cancel=cancel,
            run_limit=run_limit(run_key),
        )
    except BatchCancelled:
        raise RunCancelled from None
    return [
        _row(request, result, cost=provider_cost(provider, request["model"], result))
        for request, result in zip(requests, results, strict=True)
    ]


def _request(config: dict, data: dict, default_model: str, history=()) -> dict[str, Any]:
    def fill(text: str) -> str:
        return PLACEHOLDER_RE.sub(lambda m: (data.get(m.group(1)) or {}).get("text") or "", text)

    messages = [{"role": m["role"], "content": fill(m["content"])} for m in config["messages"]]
    body = {
        "model": config.get("model") or default_model,
        "messages": messages + [{"role": m["role"], "content": m["content"]} for m in history],
    }
    for key in ("temperature", "max_tokens"):
        if config.get(key) is not None:
            body[key] = config[key]
    return body


def _row(request: dict | None, result, missing: str = "", cost: float | None = None) -> dict:
    """TargetResult fields from a call result (or a reason nothing was called)."""
    if result is None:
        status, output, error = ResultStatus.ERROR, "", missing
    elif result.status == ResultStatus.SUCCESS:
        status, output, error = ResultStatus.SUCCESS, result.raw_answer or "", ""
    else:
        status = FAILED_STATUS.get(result.status, ResultStatus.ERROR)
        output, error = "", result.error
    return {
        "status": status,
        "output": output,
        "error": error,
        "rendered_request": request,
        # the model's answer as it came back (capped and scrubbed of the key by the client),
        # also for a failed parse or an error the provider explained; Test request shows it
        "raw_response": result.raw_answer if result else None,
        "latency_ms": result.latency_ms if result else 0.0,
        "tokens_in": result.tokens_in if result else 0,
        "tokens_out": result.tokens_out if result else 0,
        "cost": cost,
    }
