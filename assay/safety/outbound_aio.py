"""The outbound policy for aiohttp: the sessions the judges and HTTP targets send through.

Pure Python (no Django), imported only where a batch sends (aiohttp costs ~0.16 s to import).
The policy is checked where aiohttp turns a host into the addresses it dials: the resolver
checks every address a name resolves to, and the connector checks again what it is about to
dial — an IP-literal host never reaches the resolver, and a DNS cache hit skips it. Each
connection is then made to a checked address (aiohttp dials the resolved addresses, never the
name again), so a name that later resolves elsewhere (DNS rebinding) or a redirect to an
internal host is refused too. Proxies from the environment are never used (`trust_env` off).
"""

from __future__ import annotations

import ipaddress
import socket
import ssl
from collections.abc import Sequence
from typing import Any

import aiohttp
from aiohttp.abc import AbstractResolver, ResolveResult
from aiohttp.resolver import ThreadedResolver

from .outbound import OutboundPolicy, OutboundRefused, refusal

# Response header lines up to 16 KiB (h11's bound, which the httpx client had); aiohttp's
# default 8,190 would turn a provider's long header into a connection error.
HEADER_BYTES = 16 * 1024


def check_resolved(host: str, results: Sequence[ResolveResult], policy: OutboundPolicy) -> None:
    """Refuse (OutboundRefused) unless every address `host` resolved to may be dialled."""
    if policy.anything or policy.allows_host(host):
        return
    for result in results:
        address = str(result["host"])
        if not policy.allows_address(ipaddress.ip_address(address.split("%")[0])):
            raise OutboundRefused(refusal(host, address, policy))


class GuardedResolver(AbstractResolver):
    """aiohttp's threaded resolver, with every answer checked against the policy."""

    def __init__(self, policy: OutboundPolicy) -> None:
        self.policy = policy
        self.inner = ThreadedResolver()

    async def resolve(
        self, host: str, port: int = 0, family: socket.AddressFamily = socket.AF_INET
    ) -> list[ResolveResult]:
        results = await self.inner.resolve(host, port, family)
        check_resolved(host, results, self.policy)
        return results

    async def close(self) -> None:
        await self.inner.close()


class GuardedConnector(aiohttp.TCPConnector):
    """A TCP connector that checks the addresses it is about to dial: an IP-literal host is
    returned as it is without asking the resolver, and cached answers skip it."""

    def __init__(self, policy: OutboundPolicy, **options: Any) -> None:
        super().__init__(resolver=GuardedResolver(policy), **options)
        self.policy = policy

    async def _resolve_host(self, host: str, port: int, traces=None) -> list[ResolveResult]:
        results = await super()._resolve_host(host, port, traces=traces)
        check_resolved(host, results, self.policy)
        return results


def client_session(
    policy: OutboundPolicy,
    *,
    limit: int,
    ssl_context: ssl.SSLContext,
    timeout: aiohttp.ClientTimeout | None = None,
) -> aiohttp.ClientSession:
    """A session (one connection pool of `limit` connections) whose connections pass the
    policy; create it on the event loop that uses it, and close it there. No cookie jar: one
    row's answer never changes what another row sends."""
    connector = GuardedConnector(policy, limit=max(1, limit), ssl=ssl_context)
    return aiohttp.ClientSession(
        connector=connector,
        cookie_jar=aiohttp.DummyCookieJar(),
        timeout=timeout or aiohttp.ClientTimeout(total=None),
        trust_env=False,
        max_line_size=HEADER_BYTES,
        max_field_size=HEADER_BYTES,
    )
