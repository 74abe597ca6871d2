"""A logging filter that keeps provider API keys and Assay tokens out of every log line."""

from __future__ import annotations

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


class RedactSecretsFilter(logging.Filter):
    """Rewrites the formatted message so credentials never reach a handler."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        cleaned = redact(message)
        if cleaned != message:
            record.msg, record.args = cleaned, None
        return True
