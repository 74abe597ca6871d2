"""Where Assay may send requests: the `ASSAY_OUTBOUND_ALLOW` policy, checked at connect time.

Pure Python (no Django). The judges and HTTP targets send through aiohttp sessions built in
`outbound_aio` on this policy; blocking calls (a provider's connection test) through
`sync_transport` here.
A URL is checked when it is saved (a literal address, or a host that resolves to a refused one,
is named at once), and again on every connection: the host is resolved, each address checked,
and the connection made to the checked address, so a name that later resolves elsewhere (DNS
rebinding) or a redirect to an internal host is refused too.

The policy is a comma-separated list:

- `*` — anything (the development default);
- `public` — public addresses only (the production default); loopback, private, link-local,
  shared, multicast and reserved ranges are refused, and so are the IPv6 forms that embed an
  IPv4 address (NAT64, 6to4, IPv4-compatible and -mapped);
- CIDR ranges or single addresses (`10.1.0.0/16`, `127.0.0.1`) and host names
  (`llm.internal`) allowed in addition.
"""

from __future__ import annotations

import functools
import ipaddress
import socket
import ssl
from dataclasses import dataclass
from functools import lru_cache
from urllib.parse import urlsplit

import httpcore2
import httpx2
from django.utils.translation import gettext as _

ANY, PUBLIC = "*", "public"
Address = ipaddress.IPv4Address | ipaddress.IPv6Address


class OutboundRefused(httpcore2.ConnectError):
    """A connection the policy does not allow (never retried: it will not change)."""


@dataclass(frozen=True)
class OutboundPolicy:
    """A parsed ASSAY_OUTBOUND_ALLOW value."""

    anything: bool
    public: bool
    networks: tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, ...]
    hosts: frozenset[str]
    text: str

    def allows_address(self, address: Address) -> bool:
        """Whether a connection to `address` may be made."""
        if self.anything or any(address in network for network in self.networks):
            return True
        return self.public and is_public(address)

    def allows_host(self, host: str) -> bool:
        return self.anything or host.lower().rstrip(".") in self.hosts


# IPv6 forms that carry an IPv4 address for a gateway or the host's stack to reach (NAT64 and
# its local-use prefix, 6to4, IPv4-compatible, IPv4-mapped, IPv4-translated): Python calls
# most of them global, but they lead to whatever IPv4 host they embed (64:ff9b::a9fe:a9fe is
# 169.254.169.254 behind a NAT64 gateway). Refused outright, whatever they embed.
EMBEDS_IPV4 = tuple(
    ipaddress.ip_network(prefix)
    for prefix in (
        "64:ff9b::/96",
        "64:ff9b:1::/48",
        "2002::/16",
        "::/96",
        "::ffff:0:0/96",
        "::ffff:0:0:0/96",
    )
)


def is_public(address: Address) -> bool:
    """Whether `address` is a public unicast destination (multicast never is one)."""
    if address.is_multicast or any(address in network for network in EMBEDS_IPV4):
        return False
    return address.is_global


@lru_cache(maxsize=16)
def outbound_policy(text: str) -> OutboundPolicy:
    """Parse a policy; a malformed entry is a ValueError naming it."""
    entries = [entry.strip() for entry in (text or "").split(",") if entry.strip()]
    networks, hosts = [], set()
    for entry in entries:
        if entry in (ANY, PUBLIC):
            continue
        try:
            networks.append(ipaddress.ip_network(entry, strict=False))
        except ValueError:
            if not _looks_like_host(entry):
                raise ValueError(
                    f"ASSAY_OUTBOUND_ALLOW: {entry!r} is not *, public, "
                    "an address range or a host name"
                ) from None
            hosts.add(entry.lower().rstrip("."))
    return OutboundPolicy(
        ANY in entries, PUBLIC in entries, tuple(networks), frozenset(hosts), text
    )


def _looks_like_host(entry: str) -> bool:
    return all(part and (part.isalnum() or "-" in part) for part in entry.rstrip(".").split("."))


def refusal(host: str, address: str, policy: OutboundPolicy) -> str:
    """The message for a refused destination (names the setting to change)."""
    where = host if host == address else f"{host} ({address})"
    return (
        f"outbound requests to {where} are not allowed: the address is not public and "
        f"ASSAY_OUTBOUND_ALLOW ({policy.text!r}) does not list it"
    )


def resolve_checked(host: str, port: int, policy: OutboundPolicy) -> str:
    """The address to connect to for `host`, after checking every address it resolves to."""
    if policy.anything:
        return host
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except socket.gaierror as exc:
        raise httpcore2.ConnectError(f"cannot resolve {host}: {exc}") from None
    addresses = list(dict.fromkeys(info[4][0] for info in infos))
    if policy.allows_host(host):
        return addresses[0]
    for address in addresses:
        if not policy.allows_address(ipaddress.ip_address(address.split("%")[0])):
            raise OutboundRefused(refusal(host, address, policy))
    return addresses[0]


def url_problem(url: str, policy: OutboundPolicy) -> str | None:
    """Why a URL cannot be used, checked when it is saved (None when it may be)."""
    parts = urlsplit(url or "")
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return _("Give an http:// or https:// URL.")
    try:
        resolve_checked(parts.hostname, parts.port or 443, policy)
    except OutboundRefused as exc:
        return f"{exc}."
    except httpcore2.ConnectError:
        return None  # not resolvable from here now; checked again at connect time
    return None


class GuardedSyncBackend(httpcore2.NetworkBackend):
    """httpcore's blocking network backend with the policy applied to every TCP connection
    (the async calls use aiohttp: `outbound_aio`)."""

    def __init__(self, policy: OutboundPolicy) -> None:
        self.policy = policy
        self.inner = httpcore2.SyncBackend()

    def connect_tcp(self, host, port, timeout=None, local_address=None, socket_options=None):
        address = resolve_checked(host, port, self.policy)
        return self.inner.connect_tcp(address, port, timeout, local_address, socket_options)

    def connect_unix_socket(self, path, timeout=None, socket_options=None):
        raise OutboundRefused("unix sockets are not outbound destinations")

    def sleep(self, seconds: float) -> None:
        self.inner.sleep(seconds)


@functools.cache
def ssl_context() -> ssl.SSLContext:
    """One verifying TLS context per process (httpx's, shared with aiohttp): loading the CA
    store costs ~20 ms per client."""
    return httpx2.create_ssl_context()


def sync_transport(policy: OutboundPolicy, *, ssl_context: ssl.SSLContext) -> httpx2.HTTPTransport:
    """A blocking transport whose connections pass the policy (connection tests)."""
    transport = httpx2.HTTPTransport(verify=ssl_context)
    transport._pool = httpcore2.ConnectionPool(
        ssl_context=ssl_context, network_backend=GuardedSyncBackend(policy)
    )
    return transport


def refused_in(exc: BaseException | None) -> OutboundRefused | None:
    """The OutboundRefused behind an exception (httpx and the SDK wrap it), if any."""
    depth = 0
    while exc is not None and depth < 10:
        if isinstance(exc, OutboundRefused):
            return exc
        exc, depth = exc.__cause__ or exc.__context__, depth + 1
    return None
