"""Response headers and debug-page rules.

- Every response carries a Content-Security-Policy: scripts only from our own origin (no
  inline scripts or handlers: page glue lives in static/js/), no framing, no plugins.
- Django's debug page (development only, and only with ASSAY_DEBUG_TRACEBACKS=1) is shown to
  local addresses only, and never with a database URL, broker URL or secret value in it.
"""

from __future__ import annotations

import ipaddress
import logging
import re

from django.conf import settings
from django.http import Http404
from django.views.debug import SafeExceptionReporterFilter

logger = logging.getLogger("django.request")

CSP = "; ".join(
    [
        "default-src 'self'",
        "script-src 'self'",
        # htmx and Swagger UI set inline styles; styles cannot run code.
        "style-src 'self' 'unsafe-inline'",
        # evalset images may be links to other sites; data: for uploaded previews
        "img-src 'self' data: blob: https: http:",
        "media-src 'self' data: blob: https: http:",
        "font-src 'self' data:",
        "connect-src 'self'",
        "object-src 'none'",
        "base-uri 'self'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    ]
)


class SecurityHeadersMiddleware:
    """Adds the CSP (Django's SecurityMiddleware sets nosniff, Referrer-Policy and HSTS)."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        response.headers.setdefault("Content-Security-Policy", CSP)
        return response


class SecureCookiesMiddleware:
    """Marks every cookie Secure on a request that came over HTTPS (directly, or through a
    proxy whose X-Forwarded-Proto is trusted), so HTTPS gets Secure cookies while plain HTTP on
    a LAN address still signs in (settings: ASSAY_HTTPS, ASSAY_TRUST_FORWARDED_PROTO)."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        if request.is_secure():
            for morsel in response.cookies.values():
                morsel["secure"] = True
        return response


def is_local(request) -> bool:
    """A request from this machine, not relayed by a proxy."""
    if request.META.get("HTTP_X_FORWARDED_FOR") or request.META.get("HTTP_FORWARDED"):
        return False
    try:
        return ipaddress.ip_address(request.META.get("REMOTE_ADDR", "")).is_loopback
    except ValueError:
        return False


class LocalDebugMiddleware:
    """With DEBUG on, a 500 is the plain error page unless ASSAY_DEBUG_TRACEBACKS asks for
    Django's traceback page (it lists the request's environment and the settings), and then
    only for a local address."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        return self.get_response(request)

    def process_exception(self, request, exception):
        if not settings.DEBUG or isinstance(exception, Http404):
            return None
        if settings.ASSAY_DEBUG_TRACEBACKS and is_local(request):
            return None
        from ..api.errors import json_server_error

        logger.error("Internal Server Error: %s", request.path, exc_info=exception)
        return json_server_error(request)


class SecretsReporterFilter(SafeExceptionReporterFilter):
    """Hides connection URLs and any value that contains a configured secret."""

    hidden_settings = re.compile(
        "API|TOKEN|KEY|SECRET|PASS|SIGNATURE|HTTP_COOKIE|DATABASE|REDIS|BROKER|BACKEND|DSN|URL",
        flags=re.IGNORECASE,
    )

    def cleanse_setting(self, key, value):
        if isinstance(value, str) and any(secret in value for secret in _secret_values()):
            return self.cleansed_substitute
        return super().cleanse_setting(key, value)


def _secret_values() -> list[str]:
    """The configured values that must never appear on a page."""
    values = [settings.SECRET_KEY, settings.ASSAY_SECRETS_KEY]
    for url in (settings.DATABASE_URL, settings.REDIS_URL):
        values.extend(re.findall(r"//[^/@]*:([^@/]+)@", url or ""))  # a password in a URL
        values.append(url)
    return [value for value in values if value and len(value) >= 4]
