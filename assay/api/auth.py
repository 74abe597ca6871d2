"""`Authorization: Token <key>` (or `Bearer <key>`, as most clients send) authentication
against hashed API tokens."""

from __future__ import annotations

from django.utils.translation import gettext as _
from rest_framework import authentication, exceptions

from assay.services import token_authenticate


class TokenAuthentication(authentication.BaseAuthentication):
    """The token acts as its user inside the token's workspace."""

    keyword = "Token"
    schemes = ("token", "bearer")

    def authenticate(self, request):
        header = authentication.get_authorization_header(request).decode("latin-1").split()
        # Basic is left alone: a proxy in front of the platform may use it for itself
        if not header or header[0].lower() == "basic":
            return None
        if header[0].lower() not in self.schemes:
            raise exceptions.AuthenticationFailed(
                f"Unsupported Authorization scheme {header[0][:20]!r}: "
                "send 'Token <key>' or 'Bearer <key>'."
            )
        if len(header) != 2:
            raise exceptions.AuthenticationFailed(
                "Malformed Authorization header: use 'Token <key>' or 'Bearer <key>'."
            )
        token = token_authenticate(key=header[1])
        if token is None:
            raise exceptions.AuthenticationFailed(_("Invalid or revoked API token."))
        return token.user, token

    def authenticate_header(self, request) -> str:
        return self.keyword
