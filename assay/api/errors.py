"""One error body for the whole API: {"error": {"code", "message", "details"}}."""

from __future__ import annotations

from django.core.exceptions import PermissionDenied, RequestDataTooBig, SuspiciousOperation
from django.core.exceptions import ValidationError as DjangoValidationError
from django.http import Http404, JsonResponse
from django.utils.translation import gettext as _
from rest_framework import exceptions, status
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler


def error_body(code: str, message: str, details=None) -> dict:
    return {"error": {"code": code, "message": message, "details": details or {}}}


def _django_validation_details(exc: DjangoValidationError) -> dict:
    if hasattr(exc, "error_dict"):
        return {
            field: [m for e in errs for m in e.messages] for field, errs in exc.error_dict.items()
        }
    return {"non_field_errors": exc.messages}


def _first_message(details) -> str:
    """Name the first problem in the message so a human reading one line knows what to fix."""
    if isinstance(details, dict):
        for field, value in details.items():
            inner = _first_message(value)
            return inner if field == "non_field_errors" else f"{field}: {inner}"
    if isinstance(details, list) and details:
        return _first_message(details[0])
    return str(details)


def exception_handler(exc, context):
    """Map DRF, Django validation and 404 errors onto the shared error body."""
    if isinstance(exc, DjangoValidationError):
        details = _django_validation_details(exc)
        return Response(error_body("invalid", _first_message(details), details), status=400)
    if isinstance(exc, RequestDataTooBig):
        return Response(error_body("too_large", _too_large()), status=413)
    if isinstance(exc, SuspiciousOperation):
        return Response(error_body("bad_request", str(exc) or "Bad request."), status=400)
    if isinstance(exc, Http404):
        exc = exceptions.NotFound()
    if isinstance(exc, PermissionDenied):
        exc = exceptions.PermissionDenied(str(exc) or None)
    if isinstance(exc, exceptions.NotAuthenticated):
        # no credentials we take (none, or Basic, which a proxy in front may use): say which
        exc.detail = exceptions.ErrorDetail(
            _(
                "Authentication credentials were not provided: send an API token as "
                "'Authorization: Bearer <key>' (or 'Token <key>'), or sign in."
            ),
            code="not_authenticated",
        )
    response = drf_exception_handler(exc, context)
    if response is None:
        return None
    if isinstance(exc, exceptions.ValidationError):
        details = exc.detail if isinstance(exc.detail, dict) else {"non_field_errors": exc.detail}
        response.data = error_body("invalid", _first_message(details), details)
    else:
        code = exc.get_codes() if isinstance(exc, exceptions.APIException) else "error"
        detail = getattr(exc, "detail", str(exc))
        response.data = error_body(str(code), str(detail))
    return response


def _too_large() -> str:
    from django.conf import settings

    limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
    return _("The request body (files aside) is over the limit: the limit is %(limit)s bytes.") % {
        "limit": format(limit, ",")
    }


def json_bad_request(request, exception=None):
    """400 handler (e.g. a body over the size limit): JSON under /api/, the page elsewhere."""
    if request.path.startswith("/api/"):
        if isinstance(exception, RequestDataTooBig):
            return JsonResponse(error_body("too_large", _too_large()), status=413)
        return JsonResponse(error_body("bad_request", "Bad request."), status=400)
    from django.views.defaults import bad_request

    return bad_request(request, exception)


def json_server_error(request):
    """500 handler: JSON under /api/ (never Django's HTML page), the page elsewhere."""
    if request.path.startswith("/api/"):
        body = error_body("server_error", _("Something went wrong on our side; it was logged."))
        return JsonResponse(body, status=500)
    from django.views.defaults import server_error

    return server_error(request)


def json_not_found(request, exception=None):
    """404 handler: JSON under /api/, the normal page elsewhere."""
    if request.path.startswith("/api/"):
        return JsonResponse(error_body("not_found", "Not found."), status=status.HTTP_404_NOT_FOUND)
    from django.views.defaults import page_not_found

    return page_not_found(request, exception)
