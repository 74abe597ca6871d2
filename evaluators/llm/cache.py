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


class RedisCache:
    """Cache in Redis with a TTL, shared by all workers."""

    is_local = False

    def __init__(self, client: Any, ttl_s: int = DEFAULT_TTL_S, prefix: str = _REDIS_KEY_PREFIX):
        self._client = client
        self._ttl_s = ttl_s
        self._prefix = prefix

    def get(self, key: str) -> dict[str, Any] | None:
        """The cached value or None (an unreadable entry counts as a miss)."""
        data = self._client.get(self._prefix + key)
        if data is None:
            return None
        try:
            value = json.loads(data)
        except ValueError:
            return None
        return value if isinstance(value, dict) else None

    def set(self, key: str, value: dict[str, Any]) -> None:
        """Store a value with the configured TTL."""
        self._client.set(self._prefix + key, canonical_json(value), ex=self._ttl_s)


_memory_cache = MemoryCache()


def make_cache(redis_url: str | None, *, ttl_s: int = DEFAULT_TTL_S) -> ResponseCache:
    """A Redis cache when ``redis_url`` is set, else the process-wide memory cache."""
    if not redis_url:
        return _memory_cache
    import redis

    return RedisCache(redis.Redis.from_url(redis_url), ttl_s=ttl_s)
