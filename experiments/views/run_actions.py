"""Cancel and retry-failed from a page, for every kind of run: the run's service from
`runs.services`, its message, and back to the run's page."""

from __future__ import annotations

from collections.abc import Callable

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.shortcuts import redirect

from ..runs.services import run_cancel, run_retry_failed


def run_cancel_page(request, *, kind, run, success: str, page: str):
    """POST cancel: a message of what happens now, back to `page` (the run's URL name)."""
    return _act(request, run_cancel, kind, run, lambda _run: success, page)


def run_retry_page(request, *, kind, run, success: Callable[..., str], page: str):
    """POST retry: `success(answer)` says what runs again (the kind's retry answer)."""
    return _act(request, run_retry_failed, kind, run, success, page)


def _act(request, service, kind, run, success, page: str):
    try:
        answer = service(kind=kind, run=run)
    except ValidationError as exc:
        messages.error(request, " ".join(exc.messages))
    else:
        messages.success(request, success(answer))
    return redirect(page, ws=request.workspace.slug, id=run.public_id)
