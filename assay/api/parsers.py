"""The API's JSON parser: a body is one JSON object, of bounded size and nesting depth.

DRF reads JSON bodies straight from the request stream, past Django's
DATA_UPLOAD_MAX_MEMORY_SIZE check, and Python's parser overflows the stack on deep nesting;
both would otherwise end as a 500 instead of an answer naming the problem.
"""

from __future__ import annotations

from django.conf import settings
from django.utils.translation import gettext as _
from rest_framework import exceptions, parsers, status

MAX_DEPTH = 64


class BodyTooLarge(exceptions.APIException):
    status_code = status.HTTP_413_REQUEST_ENTITY_TOO_LARGE
    default_code = "too_large"


class JSONObjectParser(parsers.JSONParser):
    """JSON bodies that are objects, at most `DATA_UPLOAD_MAX_MEMORY_SIZE` bytes and 64 deep."""

    def parse(self, stream, media_type=None, parser_context=None):
        _check_length(parser_context)
        try:
            data = super().parse(stream, media_type, parser_context)
        except RecursionError:
            raise exceptions.ParseError(_too_deep()) from None
        if not isinstance(data, dict):
            raise exceptions.ParseError(
                _("The request body must be a JSON object, not %(data)s.")
                % {"data": _json_type(data)}
            )
        if json_depth(data) > MAX_DEPTH:
            raise exceptions.ParseError(_too_deep())
        return data


def _check_length(parser_context) -> None:
    request = (parser_context or {}).get("request")
    limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
    length = request.META.get("CONTENT_LENGTH") if request is not None else None
    if limit and length and str(length).isdigit() and int(length) > limit:
        raise BodyTooLarge(
            _("The request body is %(length)s bytes; the limit is %(limit)s.")
            % {"length": format(int(length), ","), "limit": format(limit, ",")}
        )


def _too_deep() -> str:
    return _("The JSON body is nested more than %(max_depth)s levels deep.") % {
        "max_depth": MAX_DEPTH
    }


def _json_type(value) -> str:
    if value is None:
        return "null"
    names = {list: "an array", str: "a string", bool: "a boolean"}
    return names.get(type(value), "a number")


def json_depth(value) -> int:
    """How deeply a parsed JSON value nests (iterative: no recursion limit to hit)."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            children = item.values()
        elif isinstance(item, list):
            children = item
        else:
            continue
        deepest = max(deepest, depth)
        if depth > MAX_DEPTH:
            return depth
        stack.extend((child, depth + 1) for child in children)
    return deepest
