"""Encryption at rest for secrets: Fernet with a key derived from ASSAY_SECRETS_KEY by HKDF."""

from __future__ import annotations

import base64
import hashlib
import secrets
from functools import lru_cache

from cryptography.fernet import Fernet, InvalidToken
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from django.conf import settings


@lru_cache(maxsize=4)
def _fernet(key_material: str) -> Fernet:
    derived = HKDF(
        algorithm=hashes.SHA256(), length=32, salt=b"assay-secrets", info=b"fernet-v1"
    ).derive(key_material.encode())
    return Fernet(base64.urlsafe_b64encode(derived))


def encrypt(plaintext: str) -> str:
    """Encrypt a string with the workspace-independent secrets key."""
    return _fernet(settings.ASSAY_SECRETS_KEY).encrypt(plaintext.encode()).decode()


def decrypt(ciphertext: str) -> str:
    """Decrypt; a wrong key is reported as such rather than as garbage."""
    try:
        return _fernet(settings.ASSAY_SECRETS_KEY).decrypt(ciphertext.encode()).decode()
    except InvalidToken:
        raise ValueError("secret cannot be decrypted: ASSAY_SECRETS_KEY has changed") from None


def new_token_key() -> str:
    """A fresh API key: a recognisable prefix and 40 bytes of randomness."""
    return "asy_" + secrets.token_urlsafe(30)


def hash_token_key(key: str) -> str:
    """API keys are high-entropy, so one round of SHA-256 is enough and allows indexed lookup."""
    return hashlib.sha256(key.encode()).hexdigest()
