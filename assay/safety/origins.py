"""The origins a workspace secret may be sent to, and the origin a request really goes to.

An owner binds each named secret to a list of origins, `scheme://host[:port]`; an HTTP target
may send the secret only to a URL of one of them (checked when the target is saved and again
for every request). A secret with no origins goes nowhere. Origins are compared normalised, as
browsers compare them: scheme and host in lower case, a host's trailing dot dropped, the
default port (80 for http, 443 for https) left out, an IPv6 host in brackets. A URL's origin is
read by the HTTP client that sends the request (IDNA hosts in their ASCII form), so
`https://app.example.com@evil.example/` is evil.example's origin.
"""

from __future__ import annotations

from urllib.parse import urlsplit

import httpx2
from django.utils.translation import gettext as _

DEFAULT_PORTS = {"http": 80, "https": 443}
MAX_ORIGINS = 20
MAX_ORIGIN_CHARS = 300


class OriginError(ValueError):
    """Not an origin (or not a URL an origin can be read from); the message says why."""


def url_origin(url: str) -> str:
    """The normalised origin of an http(s) URL, as the client that sends the request reads
    it (so a user name before an @ is not mistaken for the host)."""
    try:
        parts = httpx2.URL(url.strip())
    except (httpx2.InvalidURL, TypeError, ValueError):
        raise OriginError(_("%(url)r is not a URL.") % {"url": str(url)[:100]}) from None
    scheme, host = parts.scheme.lower(), parts.raw_host.decode("ascii").lower().rstrip(".")
    if scheme not in DEFAULT_PORTS or not host:
        raise OriginError(
            _("%(url)r: give scheme://host[:port] with http or https.") % {"url": url[:100]}
        )
    if ":" in host:  # IPv6
        host = f"[{host}]"
    port = "" if parts.port in (None, DEFAULT_PORTS[scheme]) else f":{parts.port}"
    return f"{scheme}://{host}{port}"


def origin_normalized(text: str) -> str:
    """An owner's origin entry, normalised; OriginError when it has more than an origin
    (a path other than "/", a query, a fragment, a user name) or is not one."""
    if not isinstance(text, str) or not text.strip() or len(text) > MAX_ORIGIN_CHARS:
        raise OriginError(
            _("Give each origin as scheme://host[:port], at most %(n)s characters.")
            % {"n": MAX_ORIGIN_CHARS}
        )
    parts = urlsplit(text.strip())
    if parts.path not in ("", "/") or parts.query or parts.fragment or "@" in parts.netloc:
        raise OriginError(
            _(
                "%(text)r is not an origin: give scheme://host[:port] (for example "
                "https://app.example.com), without a path or query."
            )
            % {"text": text[:100]}
        )
    return url_origin(text)


def origins_normalized(values) -> list[str]:
    """An owner's list of origins, normalised, duplicates dropped, in the order given."""
    if not isinstance(values, list | tuple) or len(values) > MAX_ORIGINS:
        raise OriginError(_("Give at most %(n)s origins.") % {"n": MAX_ORIGINS})
    normalised = [origin_normalized(value) for value in values]
    return list(dict.fromkeys(normalised))


def origin_refusal(name: str, origins: list[str], origin: str) -> str:
    """Why the secret `name` may not be sent to `origin` ('' when it may)."""
    if origin in origins:
        return ""
    if not origins:
        return _(
            "The secret %(name)s may not be sent to %(origin)s: it has no allowed origins yet "
            "(an owner adds them in Settings → Secrets)."
        ) % {"name": name, "origin": origin}
    return _(
        "The secret %(name)s may not be sent to %(origin)s: it may go only to %(origins)s "
        "(an owner changes that in Settings → Secrets)."
    ) % {"name": name, "origin": origin, "origins": ", ".join(origins)}
