"""The OpenAPI schema's finishing touches: one operation per route, one tag per area, and how
to authenticate."""

from __future__ import annotations

from django.utils.translation import gettext_lazy as _
from drf_spectacular.extensions import OpenApiAuthenticationExtension
from drf_spectacular.utils import OpenApiParameter

# The `excel` query parameter of every CSV download (sets, results, pairs, comparisons).
EXCEL_PARAMETER = OpenApiParameter(
    "excel",
    bool,
    description=_(
        "CSV only: start the file with a UTF-8 byte order mark, so Excel (Chinese "
        "Windows too) opens it as UTF-8"
    ),
)

# the first path segment after /api/v1/ → the area it is listed under
AREAS = {
    "evaluators": "evaluators",
    "evaluator-templates": "evaluators",
    "evalsets": "evalsets",
    "experiments": "experiments",
    "pairwise-runs": "experiments",
    "experiment-templates": "experiments",
    "compare": "compare",
    "providers": "settings",
    "secrets": "settings",
    "tokens": "settings",
    "ingest-keys": "settings",
    "webhooks": "settings",
    "traces": "traces",
    "spans": "traces",
    "sessions": "traces",
    "online-rules": "online",
    "score-configs": "annotation",
    "annotation-queues": "annotation",
    "members": "settings",
    "invitations": "settings",
    "workspaces": "settings",
    "imports": "imports",
}


def without_bare_twins(endpoints):
    """drf-spectacular preprocessing hook: every route also answers without its trailing slash
    (see `Router`); the schema lists each operation once, under the slash form."""
    paths = {path for path, *_ in endpoints}
    return [e for e in endpoints if e[0].endswith("/") or f"{e[0]}/" not in paths]


def tag_by_area(result, generator, request, public):
    """drf-spectacular postprocessing hook: tag every operation with its area."""
    for path, operations in result.get("paths", {}).items():
        segment = path.removeprefix("/api/v1/").split("/", 1)[0]
        for operation in operations.values():
            if isinstance(operation, dict):
                operation["tags"] = [AREAS.get(segment, segment)]
    return result


class TokenScheme(OpenApiAuthenticationExtension):
    target_class = "assay.api.auth.TokenAuthentication"
    name = "token"

    def get_security_definition(self, auto_schema):
        return {
            "type": "http",
            "scheme": "bearer",
            "description": "An API token from Settings → API tokens, sent as "
            "`Authorization: Bearer <token>` or `Authorization: Token <token>`.",
        }
