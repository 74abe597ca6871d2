"""Keeping secrets out of text: a logging filter for provider API keys and Assay tokens in every
log line, and scrubbing a known secret out of what an endpoint wrote back."""

from __future__ import annotations

import base64
import json
import logging
import re

# OpenAI-style keys, Assay tokens and bearer headers; anything else secret is never logged.
_PATTERNS = [
    re.compile(r"sk-[A-Za-z0-9_\-]{8,}"),
    re.compile(r"asy_[A-Za-z0-9_\-]{8,}"),
    re.compile(r"(?i)(bearer|token)\s+[A-Za-z0-9_\-\.]{8,}"),
]


# A run of key-like characters; providers often echo a key partly masked ("sk-ab****wxyz").
_KEYLIKE = re.compile(r"[A-Za-z0-9_\-.*]{8,}")
_MASK = re.compile(r"\*+|\.{2,}")
_MIN_FRAGMENT = 6


def redact(text: str) -> str:
    """Replace anything that looks like a credential with a marker."""
    for pattern in _PATTERNS:
        text = pattern.sub("[redacted]", text)
    return text


def scrub(text: str, secret: str) -> str:
    """Remove `secret` from text an outsider wrote (a provider's error body), whole or in part.

    A key-like run is redacted when an unmasked piece of it of 6+ characters occurs in the
    secret: keys are random, so such a piece is an echo of the key, not a word.
    """
    if not text or not secret or len(secret) < _MIN_FRAGMENT:
        return text
    text = text.replace(secret, "[redacted]")

    def fragment(match: re.Match) -> str:
        pieces = [p for p in _MASK.split(match.group(0)) if len(p) >= _MIN_FRAGMENT]
        return "[redacted]" if any(p in secret for p in pieces) else match.group(0)

    return _KEYLIKE.sub(fragment, text)


def secret_forms(secret: str) -> list[str]:
    """The ways an endpoint may echo `secret`: as sent, as JSON escapes it, reversed (a
    JMESPath reverse()), and the base64 of it (standard and URL-safe) at each of the three
    alignments it can have inside a longer encoded text, such as a Basic credential — only the
    characters that depend on the secret alone, so any prefix or suffix still matches."""
    forms = {secret, json.dumps(secret)[1:-1], secret[::-1]}
    data = secret.encode()
    for offset in range(3):
        encoded = base64.b64encode(bytes(offset) + data).decode()
        start, end = (offset * 8 + 5) // 6, (offset + len(data)) * 8 // 6
        core = encoded[start:end]
        forms |= {core, core.replace("+", "-").replace("/", "_")}
    return sorted((f for f in forms if len(f) >= _MIN_FRAGMENT), key=len, reverse=True)


def scrub_secrets(text: str, secrets) -> str:
    """`text` (an endpoint's answer, or a message quoting it) without any of `secrets` in any
    of their `secret_forms`, whole or as the masked fragments `scrub` removes (one pass over
    the text for all of them). Like `scrub`, a secret shorter than 6 characters is left."""
    forms = [form for secret in secrets if secret for form in secret_forms(secret)]
    if not text or not forms:
        return text
    for form in forms:
        text = text.replace(form, "[redacted]")

    def fragment(match: re.Match) -> str:
        pieces = [p for p in _MASK.split(match.group(0)) if len(p) >= _MIN_FRAGMENT]
        return "[redacted]" if any(p in form for p in pieces for form in forms) else match.group(0)

    return _KEYLIKE.sub(fragment, text)


class RedactSecretsFilter(logging.Filter):
    """Rewrites the formatted message so credentials never reach a handler."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        cleaned = redact(message)
        if cleaned != message:
            record.msg, record.args = cleaned, None
        return True
