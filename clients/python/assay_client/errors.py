"""Errors raised by the client: every failed API call becomes an `AssayError`."""

from __future__ import annotations

from typing import Any

EXIT_FAILED = 1  # the run did not complete, had too many task errors, or the gate failed
EXIT_ERROR = 2  # a usage error, a missing configuration or an error answer of the API


class AssayError(Exception):
    """An error answer of the Assay API, or a call that could not be made (status 0).

    The API answers errors with `{"error": {"code", "message", "details"}}`; `details` maps a
    field (such as `bindings[0].mapping` or `outputs[3]`) to its problems.
    """

    def __init__(self, status: int, code: str, message: str, details: Any = None):
        super().__init__(status, code, message, details)
        self.status = status
        self.code = code
        self.message = message
        self.details = details if details is not None else {}

    def __str__(self) -> str:
        where = f"HTTP {self.status} {self.code}" if self.status else self.code
        text = f"{self.message} ({where})"
        lines = detail_lines(self.details)
        if len(lines) > 1:
            text += "".join(f"\n  {line}" for line in lines)
        return text

    def one_line(self) -> str:
        """The error as one line for a terminal: the message, every detail the message does
        not already say (field: problem), and where it came from."""
        extra = [line for line in detail_lines(self.details) if line not in self.message]
        text = self.message
        if extra:
            text += (" " if text.endswith((".", ":", "!", "?")) else "; ") + "; ".join(extra)
        return f"{text} (HTTP {self.status} {self.code})" if self.status else text

    @classmethod
    def from_response(cls, response) -> AssayError:
        """The error an `httpx.Response` with a 4xx/5xx status stands for (its body read)."""
        try:
            body = response.json()
        except ValueError:
            body = None
        error = body.get("error") if isinstance(body, dict) else None
        if isinstance(error, dict):
            return cls(
                response.status_code,
                str(error.get("code") or "error"),
                str(error.get("message") or response.reason_phrase),
                error.get("details"),
            )
        text = response.text.strip()[:300] or response.reason_phrase
        return cls(response.status_code, "http_error", f"{response.request.url}: {text}")


class AssayTimeout(AssayError):
    """The run did not finish within the time the caller allowed."""

    def __init__(self, message: str):
        super().__init__(0, "timeout", message)


def detail_lines(details: Any) -> list[str]:
    """`details` as "field: problem; problem" lines."""
    if not isinstance(details, dict):
        return [str(details)] if details else []
    lines = []
    for field, problems in details.items():
        if isinstance(problems, list):
            problems = "; ".join(str(p) for p in problems)
        lines.append(f"{field}: {problems}")
    return lines
