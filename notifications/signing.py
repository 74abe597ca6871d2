"""Standard Webhooks signing (https://www.standardwebhooks.com): secrets, signatures, headers.

Pure Python. A secret is `whsec_` + base64 of random bytes; a signature is `v1,` + base64 of
HMAC-SHA256 keyed with those bytes over `{id}.{timestamp}.{body}`. While a rotated secret
overlaps the new one, both sign and the header carries both, space-separated: a receiver that
knows either accepts the message.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets

PREFIX = "whsec_"
SECRET_BYTES = 32


def secret_new() -> str:
    """A fresh endpoint secret."""
    return PREFIX + base64.b64encode(secrets.token_bytes(SECRET_BYTES)).decode()


def signature(secret: str, *, message_id: str, timestamp: int, body: str) -> str:
    """One `v1,` signature of a message with one secret."""
    key = base64.b64decode(secret.removeprefix(PREFIX))
    signed = f"{message_id}.{timestamp}.{body}".encode()
    return "v1," + base64.b64encode(hmac.new(key, signed, hashlib.sha256).digest()).decode()


def signed_headers(
    secrets_: list[str], *, message_id: str, timestamp: int, body: str
) -> dict[str, str]:
    """The three Standard Webhooks headers, signed with every secret given (newest first)."""
    signatures = [
        signature(secret, message_id=message_id, timestamp=timestamp, body=body)
        for secret in secrets_
    ]
    return {
        "webhook-id": message_id,
        "webhook-timestamp": str(timestamp),
        "webhook-signature": " ".join(signatures),
    }
