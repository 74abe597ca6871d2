"""`Authorization: Token <key>` authentication against hashed API tokens."""

from __future__ import annotations

from rest_framework import authentication, exceptions

from assay.services import token_authenticate


class TokenAuthentication(authentication.BaseAuthentication):
    """The token acts as its user inside the token's workspace."""

    keyword = "Token"

    def authenticate(self, request):
        header = authentication.get_authorization_header(request).decode("latin-1").split()
        if not header or header[0].lower() != self.keyword.lower():
            return None
        if len(header) != 2:
            raise exceptions.AuthenticationFailed(
                "Malformed Authorization header: use 'Token <key>'."
            )
        token = token_authenticate(key=header[1])
        if token is None:
            raise exceptions.AuthenticationFailed("Invalid or revoked API token.")
        return token.user, token

    def authenticate_header(self, request) -> str:
        return self.keyword
