"""Embeddings from a workspace provider's OpenAI-compatible `POST {base_url}/embeddings`.

Every distinct text of a batch is embedded once: cached vectors (the judges' response cache,
keyed by the provider, the model and the text) are read first, and the rest go in requests of
up to BATCH_INPUTS texts. The call goes through the outbound policy's transport, carries the
key only to the provider and Assay's baggage mark, and its failure is said without the key.
"""

from __future__ import annotations

from assay.marking import BAGGAGE_HEADER, NO_RUN, baggage_marked
from assay.safety.redact import scrub

BATCH_INPUTS = 64
MAX_TEXT_CHARS = 32_000  # longer texts are cut: every embedding model has a token limit
CACHE_VERSION = "embedding:1"


class EmbeddingError(Exception):
    """The provider gave no usable vectors; the message never holds the key."""


def embeddings_fetch(*, provider, model: str, texts: list[str], marker: str | None) -> dict:
    """{text: vector} for every distinct text, from the cache or the provider."""
    from ..llm.cache import get_many, set_many
    from ..providers import llm_backends, provider_settings

    call = provider_settings(provider, marker=marker)
    _, store = llm_backends()
    distinct = list(dict.fromkeys(text[:MAX_TEXT_CHARS] for text in texts))
    keys = {t: _key(call, model, t) for t in distinct}
    found = get_many(store, list(keys.values()))
    vectors = {t: found[k]["embedding"] for t, k in keys.items() if k in found}
    missing = [t for t in distinct if t not in vectors]
    fresh = _requested(call, model, missing)
    set_many(store, {keys[t]: {"embedding": v} for t, v in fresh.items()})
    return {text: (vectors | fresh)[text[:MAX_TEXT_CHARS]] for text in texts}


def _key(call, model: str, text: str) -> str:
    """One text's cache key: the provider, the model and the text (any version reuses it)."""
    from ..llm.cache import cache_key

    return cache_key(CACHE_VERSION, {"model": model, "input": text}, call.limiter_key)


def _requested(call, model: str, texts: list[str]) -> dict:
    """The vectors of `texts`, asked BATCH_INPUTS at a time on one connection."""
    if not texts:
        return {}
    import httpx2

    from assay.safety.outbound import outbound_policy, ssl_context, sync_transport

    transport = sync_transport(outbound_policy(call.outbound_allow), ssl_context=ssl_context())
    with httpx2.Client(transport=transport, timeout=call.timeout_s) as client:
        vectors = {}
        for start in range(0, len(texts), BATCH_INPUTS):
            part = texts[start : start + BATCH_INPUTS]
            vectors.update(zip(part, _ask(client, call, model, part), strict=True))
    return vectors


def _ask(client, call, model: str, texts: list[str]) -> list[list[float]]:
    headers = {
        "Authorization": f"Bearer {call.api_key or 'no-key'}",
        BAGGAGE_HEADER: baggage_marked(baggage="", run=call.marker or NO_RUN),
    }
    url = call.base_url.rstrip("/") + "/embeddings"
    try:
        response = client.post(url, json={"model": model, "input": texts}, headers=headers)
    except Exception as exc:  # any failure to connect is the rows' error, said without the key
        raise EmbeddingError(scrub(f"could not reach the provider: {exc}", call.api_key)) from None
    if response.status_code >= 400:
        body = scrub(response.text[:300], call.api_key)
        raise EmbeddingError(f"the provider answered HTTP {response.status_code}: {body}")
    return _vectors(response, len(texts))


def _vectors(response, count: int) -> list[list[float]]:
    """The answer's vectors in input order (`data[].index`), each a list of numbers."""
    try:
        data = sorted(response.json()["data"], key=lambda d: d["index"])
        vectors = [[float(x) for x in item["embedding"]] for item in data]
    except (ValueError, KeyError, TypeError) as exc:
        raise EmbeddingError(f"the provider's answer has no embeddings ({exc})") from None
    if len(vectors) != count or not all(vectors):
        raise EmbeddingError(f"the provider returned {len(vectors)} vectors for {count} texts")
    return vectors
