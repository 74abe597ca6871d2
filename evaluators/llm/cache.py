"""Response cache: re-running an evaluator version on the same rendered request costs nothing.

The key is the SHA-256 of the evaluator version key and the canonical JSON of the exact
request body (model, messages, params, answer format), so any change to the prompt, the data,
the model or its parameters misses the cache. Values are small dicts (raw answer, token usage).
Any store with ``get(key) -> dict | None`` and ``set(key, value)`` works.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections import OrderedDict
from collections.abc import Mapping
from typing import Any, Protocol

_REDIS_KEY_PREFIX = "assay:llmcache:"
DEFAULT_TTL_S = 14 * 24 * 3600


class ResponseCache(Protocol):
    """The cache interface the client uses."""

    def get(self, key: str) -> dict[str, Any] | None: ...

    def set(self, key: str, value: dict[str, Any]) -> None: ...


def canonical_json(value: Any) -> str:
    """Deterministic JSON (sorted keys, no spaces) so equal requests hash equally."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def cache_key(version_key: str, body: Mapping[str, Any], provider_key: str = "") -> str:
    """SHA-256 hex of the version key, the provider and the exact request body."""
    material = canonical_json([version_key, provider_key, body])
    return hashlib.sha256(material.encode("utf-8")).hexdigest()


class MemoryCache:
    """In-process LRU cache (embedded default and tests)."""

    is_local = True

    def __init__(self, max_entries: int = 100_000) -> None:
        self._entries: OrderedDict[str, dict[str, Any]] = OrderedDict()
        self._lock = threading.Lock()
        self._max = max_entries

    def get(self, key: str) -> dict[str, Any] | None:
        """The cached value or None."""
        with self._lock:
            value = self._entries.get(key)
            if value is not None:
                self._entries.move_to_end(key)
            return None if value is None else dict(value)

    def set(self, key: str, value: dict[str, Any]) -> None:
        """Store a value, evicting the least recently used entry when full."""
        with self._lock:
            self._entries[key] = dict(value)
            self._entries.move_to_end(key)
            while len(self._entries) > self._max:
                self._entries.popitem(last=False)

    def __len__(self) -> int:
        return len(self._entries)


class BatchCache:
    """One batch's view of a shared store: the values of every key the batch will ask for,
    read before its calls (`found`), and the answers it stores meanwhile (`fresh`, written to
    the store in groups by the caller). A row later in the batch sees what an earlier row
    stored, as with the store itself. Methods run on the batch's event loop, never blocking."""

    is_local = True

    def __init__(self, found: dict[str, dict[str, Any]]) -> None:
        self._found = found
        self.fresh: dict[str, dict[str, Any]] = {}
        self.pending: dict[str, dict[str, Any]] = {}  # stored, not yet written to the store

    def get(self, key: str) -> dict[str, Any] | None:
        value = self.fresh.get(key) or self._found.get(key)
        return None if value is None else dict(value)

    def set(self, key: str, value: dict[str, Any]) -> None:
        self.fresh[key] = self.pending[key] = dict(value)

    def take_pending(self) -> dict[str, dict[str, Any]]:
        pending, self.pending = self.pending, {}
        return pending


def get_many(store: Any, keys: list[str]) -> dict[str, dict[str, Any]]:
    """The stored values of `keys` (misses left out): one round trip for a store that has
    `get_many`, else a `get` a key."""
    if hasattr(store, "get_many"):
        return store.get_many(keys)
    return {key: value for key in keys if (value := store.get(key)) is not None}


def set_many(store: Any, values: dict[str, dict[str, Any]]) -> None:
    """Store every value: one round trip for a store that has `set_many`."""
    if hasattr(store, "set_many"):
        store.set_many(values)
        return
    for key, value in values.items():
        store.set(key, value)


class RedisCache:
    """Cache in Redis with a TTL, shared by all workers."""

    is_local = False

    def __init__(self, client: Any, ttl_s: int = DEFAULT_TTL_S, prefix: str = _REDIS_KEY_PREFIX):
        self._client = client
        self._ttl_s = ttl_s
        self._prefix = prefix

    def get(self, key: str) -> dict[str, Any] | None:
        """The cached value or None (an unreadable entry counts as a miss)."""
        return _decoded(self._client.get(self._prefix + key))

    def set(self, key: str, value: dict[str, Any]) -> None:
        """Store a value with the configured TTL."""
        self._client.set(self._prefix + key, canonical_json(value), ex=self._ttl_s)

    def get_many(self, keys: list[str]) -> dict[str, dict[str, Any]]:
        """The values of `keys` that are stored and readable, in one MGET."""
        if not keys:
            return {}
        stored = self._client.mget([self._prefix + key for key in keys])
        values = {key: _decoded(data) for key, data in zip(keys, stored, strict=True)}
        return {key: value for key, value in values.items() if value is not None}

    def set_many(self, values: dict[str, dict[str, Any]]) -> None:
        """Store every value with the TTL in one pipelined round trip."""
        pipe = self._client.pipeline(transaction=False)
        for key, value in values.items():
            pipe.set(self._prefix + key, canonical_json(value), ex=self._ttl_s)
        pipe.execute()


def _decoded(data: bytes | None) -> dict[str, Any] | None:
    """A stored value; an unreadable entry counts as a miss."""
    if data is None:
        return None
    try:
        value = json.loads(data)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


_memory_cache = MemoryCache()


def make_cache(redis_url: str | None, *, ttl_s: int = DEFAULT_TTL_S) -> ResponseCache:
    """A Redis cache when ``redis_url`` is set, else the process-wide memory cache."""
    if not redis_url:
        return _memory_cache
    import redis

    return RedisCache(redis.Redis.from_url(redis_url), ttl_s=ttl_s)
