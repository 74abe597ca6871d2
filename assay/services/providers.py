"""Model providers and their connection test."""

from __future__ import annotations

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from ..marking import BAGGAGE_HEADER, NO_RUN, baggage_marked
from ..models import (
    ModelProvider,
    Workspace,
)
from ..safety.outbound import outbound_policy, url_problem
from ..safety.redact import scrub
from .credentials import secret_reveal, secret_store


def provider_create(*, workspace: Workspace, api_key: str | None = None, **fields) -> ModelProvider:
    """Create a provider; the API key is encrypted into a Secret in the same transaction."""
    provider = ModelProvider(workspace=workspace)
    _provider_assign(provider=provider, fields=fields)
    with transaction.atomic():
        if api_key:
            provider.api_key = secret_store(workspace=workspace, value=api_key)
        provider.save()
    return provider


def provider_update(
    *, provider: ModelProvider, api_key: str | None = None, **fields
) -> ModelProvider:
    """Update fields; a non-empty api_key replaces the stored one, an empty one keeps it.

    A new base URL drops the stored key: the key was given for the old host, and keeping it
    would send it wherever the URL now points. The key must be entered again for the new one.
    """
    # Compared with the stored row: a bound ModelForm has already changed the instance.
    stored = ModelProvider.objects.filter(pk=provider.pk).values_list("base_url", flat=True)
    moved = "base_url" in fields and fields["base_url"] != stored.first()
    _provider_assign(provider=provider, fields=fields)
    with transaction.atomic():
        stale = provider.api_key if moved and not api_key and provider.api_key_id else None
        if api_key:
            provider.api_key = secret_store(
                workspace=provider.workspace, value=api_key, secret=provider.api_key
            )
        elif stale is not None:
            provider.api_key = None
        provider.save()
        if stale is not None:
            stale.delete()
    return provider


def provider_delete(*, provider: ModelProvider) -> None:
    """Delete a provider and its stored key."""
    with transaction.atomic():
        if provider.api_key_id:
            provider.api_key.delete()
        provider.delete()


def prices_problem(prices) -> str:
    """What is wrong with a provider's price table ('' when nothing is)."""
    if not isinstance(prices, dict) or len(prices) > 200:
        return _(
            'Give prices as {"model": {"input": USD per 1M tokens, "output": …}} (≤ 200 models).'
        )
    for model, price in prices.items():
        if not isinstance(price, dict) or set(price) - {"input", "output"}:
            return _("%(model)r: give input and output prices per million tokens.") % {
                "model": model
            }
        for side, value in price.items():
            if (
                isinstance(value, bool)
                or not isinstance(value, int | float)
                or not 0 <= value < 1e6
            ):
                return _(
                    "%(model)r: the %(side)s price must be a number ≥ 0 (USD per 1M tokens)."
                ) % {"model": model, "side": side}
    return ""


def _provider_assign(*, provider: ModelProvider, fields: dict) -> None:
    unknown = set(fields) - set(ModelProvider.EDITABLE_FIELDS)
    if unknown:
        raise ValidationError({name: "Unknown field." for name in sorted(unknown)})
    for name, value in fields.items():
        setattr(provider, name, value)
    provider.full_clean(exclude=["workspace", "api_key"], validate_unique=False)
    problem = url_problem(provider.base_url, outbound_policy(settings.ASSAY_OUTBOUND_ALLOW))
    if problem:
        raise ValidationError({"base_url": problem})
    problem = prices_problem(provider.prices)
    if problem:
        raise ValidationError({"prices": problem})
    clash = ModelProvider.objects.filter(workspace=provider.workspace, name=provider.name)
    if clash.exclude(pk=provider.pk).exists():
        raise ValidationError(
            {"name": _("A provider named %(name)r already exists.") % {"name": provider.name}}
        )


def provider_test_connection(*, provider: ModelProvider) -> dict:
    """Test a saved provider with its stored key (see connection_test)."""
    key = secret_reveal(secret=provider.api_key) if provider.api_key_id else ""
    return connection_test(
        base_url=provider.base_url,
        key=key,
        model=provider.default_model,
        timeout_s=provider.timeout_s,
    )


def provider_try_connection(
    *,
    workspace: Workspace,
    base_url: str,
    api_key: str = "",
    default_model: str = "",
    timeout_s: float = 15.0,
    provider: ModelProvider | None = None,
) -> dict:
    """Test a provider form's values before they are saved: the typed key, else the stored
    key of `provider`, but only while the base URL is the stored one (a key given for one
    host never goes to another, as in provider_update)."""
    problem = url_problem(base_url, outbound_policy(settings.ASSAY_OUTBOUND_ALLOW))
    if problem:
        return {"ok": False, "message": problem, "models": [], "latency_ms": None}
    key = api_key
    if not key and provider is not None and provider.api_key_id:
        key = secret_reveal(secret=provider.api_key) if base_url == provider.base_url else ""
    return connection_test(base_url=base_url, key=key, model=default_model, timeout_s=timeout_s)


def connection_test(*, base_url: str, key: str, model: str, timeout_s: float) -> dict:
    """Ask an OpenAI-compatible endpoint for its models (GET <base_url>/models) or, where it
    lists none (404/405), for a 1-token chat with `model`: {"ok", "message", "models" (a
    few), "latency_ms"}. The key goes only to that address, through the outbound policy's
    transport, and is scrubbed from whatever comes back."""
    import time

    import httpx2

    from ..safety.outbound import refused_in, ssl_context, sync_transport

    # marked as Assay's, as every call to a provider is (a gateway tracing it tags it)
    headers = {BAGGAGE_HEADER: baggage_marked(baggage="", run=NO_RUN)}
    headers |= {"Authorization": f"Bearer {key}"} if key else {}
    transport = sync_transport(
        outbound_policy(settings.ASSAY_OUTBOUND_ALLOW), ssl_context=ssl_context()
    )
    started = time.perf_counter()
    try:
        with httpx2.Client(transport=transport, timeout=min(timeout_s or 15.0, 15.0)) as client:
            response = _connection_ask(client, base_url.rstrip("/"), headers, model)
    except Exception as exc:  # any failure to connect is the answer, not an error of ours
        refused = refused_in(exc)
        text = (
            str(refused)
            if refused
            else _("could not connect: %(error)s") % {"error": f"{type(exc).__name__}: {exc}"}
        )
        return {"ok": False, "message": scrub(text, key)[:500], "models": [], "latency_ms": None}
    return _connection_answer(response, key, (time.perf_counter() - started) * 1000)


def _connection_ask(client, base: str, headers: dict, model: str):
    response = client.get(base + "/models", headers=headers)
    if response.status_code in (404, 405) and model:
        body = {"model": model, "messages": [{"role": "user", "content": "ping"}], "max_tokens": 1}
        response = client.post(base + "/chat/completions", headers=headers, json=body)
    return response


def _connection_answer(response, key: str, latency_ms: float) -> dict:
    if response.status_code >= 400:
        body = scrub(response.text, key)[:300]
        message = _("the endpoint answered HTTP %(status)s: %(body)s") % {
            "status": response.status_code,
            "body": body,
        }
        return {"ok": False, "message": message, "models": [], "latency_ms": round(latency_ms)}
    try:
        listed = [m.get("id") for m in response.json().get("data", []) if isinstance(m, dict)]
    except (ValueError, AttributeError):
        listed = []
    models = [str(m)[:100] for m in listed if m][:10]
    message = (
        ngettext("connected; %(n)d model listed", "connected; %(n)d models listed", len(listed))
        % {"n": len(listed)}
        if listed
        else _("connected")
    )
    return {"ok": True, "message": message, "models": models, "latency_ms": round(latency_ms)}
