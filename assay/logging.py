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


def redact(text: str) -> str:
    """Replace anything that looks like a credential with a marker."""
    for pattern in _PATTERNS:
        text = pattern.sub("[redacted]", text)
    return text


class RedactSecretsFilter(logging.Filter):
    """Rewrites the formatted message so credentials never reach a handler."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        cleaned = redact(message)
        if cleaned != message:
            record.msg, record.args = cleaned, None
        return True
