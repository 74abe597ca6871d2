"""The `http` target: the team's own endpoint is called once per row (and repetition).

Config: `url`, `method`, `headers` (values may use `{{secrets.NAME}}`), a JSON `body` template
(`experiments.targets.templating`), JMESPath expressions that pull `output` (actual_output;
empty: the whole body as text) and optionally `trajectory`, `tokens_in`, `tokens_out` and
`cost` out of the answer, `timeout_s`, `max_retries` and `rpm_limit`.

Calls share the judges' retry loop (`evaluators.llm.attempts`: 429/5xx/timeouts retried with
backoff and Retry-After, one deadline), rate limiter (Redis when present) and outbound policy
(every connection's address is checked against ASSAY_OUTBOUND_ALLOW). A bad answer is a row
`error` that keeps the raw body (capped). Every request carries `User-Agent` and the row's
`Idempotency-Key` (`call`); a config may not set the key itself. Secret values the endpoint
echoes back are scrubbed from everything stored of the row: output, trajectory, body, error.

The package: this module (the kind: config checks, answers → row fields), `call` (requests
rendered, sent and retried) and `form` (the config's fields on the experiment form).
"""

from __future__ import annotations

import json
import re
from functools import partial
from typing import Any

import jmespath
from django.conf import settings
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from assay.safety import bounded_jmespath
from assay.safety.caps import ANSWER_BYTES, UsageOutOfBounds, cap_text, usage_bounded
from assay.safety.origins import OriginError, origin_refusal, url_origin
from assay.safety.outbound import outbound_policy, url_problem
from assay.safety.redact import scrub_secrets
from assay.vocabulary import ResultStatus

from ..base import TargetSpec
from ..templating import PLACEHOLDER, SECRET_PREFIX, placeholders, template_problems
from .call import IDEMPOTENCY_HEADER, Answer, HttpCall, run_calls, secrets_used

METHODS = ("POST", "GET", "PUT", "PATCH")
EXTRACTS = ("output", "trajectory", "tokens_in", "tokens_out", "cost")
ORDER = ("method", "url", "headers", "body", *EXTRACTS, "timeout_s", "max_retries", "rpm_limit")
KEYS = set(ORDER)
HEADER_NAME = re.compile(r"^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,100}$")
MAX_HEADERS, MAX_HEADER_VALUE, MAX_BODY_TEMPLATE = 50, 8192, 64 * 1024
DEFAULTS = {"method": "POST", "headers": {}, "body": None, "output": "", "timeout_s": 30.0}


class HttpTarget(TargetSpec):
    name = "http"
    label = _("HTTP: your application's endpoint answers each row")
    outputs = ("actual_output", "trajectory")
    form_template = "experiments/targets/_http.html"
    testable = True
    calls_are_rows = True
    streams_rows = True

    def clean(self, *, workspace, config, evalset_version, errors) -> dict:
        config = {**DEFAULTS, "max_retries": 3, **config}
        unknown = set(config) - KEYS
        if unknown:
            errors["target"] = [
                gettext("Unknown field(s): %(names)s.") % {"names": ", ".join(sorted(unknown))}
            ]
        columns = {c["name"]: c for c in evalset_version.columns}
        _check_url(config.get("url"), columns, errors)
        _check_method(config, errors)
        _check_headers(workspace, config.get("headers"), columns, errors)
        _check_secret_origins(workspace, config, errors)
        _check_body(config.get("body"), columns, errors)
        _check_extracts(config, errors)
        _check_limits(config, errors)
        return config

    def run_batch(self, *, experiment, items, repeat, cancel, landed=None) -> list[dict]:
        calls = HttpCall.for_items(experiment=experiment, items=items, repeat=repeat)
        # each answer becomes its row's fields as it lands, while the other calls wait
        return run_calls(
            experiment=experiment,
            calls=calls,
            cancel=cancel,
            run_key=f"experiment:{experiment.public_id}:target",
            landed=partial(_fields_landed, experiment.target_config, landed),
        )

    def summary(self, config: dict) -> str:
        return f"{config.get('method', 'POST')} {config.get('url', '')}"

    def public_config(self, config: dict) -> dict:
        # In the order a reader follows a request (stored JSON keeps no order), unset ones out.
        return {key: config[key] for key in ORDER if config.get(key) not in (None, "")}

    def form_fields(self, *, workspace) -> dict:
        from .form import http_fields

        return http_fields()

    def form_problems(self, data: dict) -> dict[str, str]:
        from .form import http_form_problems

        return http_form_problems(data)

    def from_form(self, data: dict) -> dict:
        from .form import http_config

        return {"kind": self.name, **http_config(data)}


# ----------------------------------------------------------------------------- answers


def _fields_landed(config: dict, landed, index: int, call: HttpCall, answer: Answer) -> dict:
    fields = row_fields(config, call, answer)
    if landed is not None:
        landed(index, fields)
    return fields


def row_fields(config: dict, call: HttpCall, answer: Answer) -> dict:
    """TargetResult fields for one call: the extracted outputs, or an error with the body;
    every text the endpoint wrote is scrubbed of the secrets sent to it."""
    return _scrubbed(_row_fields(config, call, answer), call.secret_values)


def _row_fields(config: dict, call: HttpCall, answer: Answer) -> dict:
    fields = {
        "rendered_request": call.shown,
        "raw_response": None if answer.body is None else cap_text(answer.body, ANSWER_BYTES),
        "latency_ms": answer.latency_ms,
        "tokens_in": 0,
        "tokens_out": 0,
    }
    if call.problem:
        return {**fields, "status": ResultStatus.ERROR, "output": "", "error": call.problem}
    if answer.error:
        status = ResultStatus.TIMEOUT if answer.timed_out else ResultStatus.ERROR
        return {**fields, "status": status, "output": "", "error": answer.error}
    try:
        extracted = extract(config, answer.body or "")
    except ExtractError as exc:
        return {**fields, "status": ResultStatus.ERROR, "output": "", "error": str(exc)}
    return {**fields, **extracted, "status": ResultStatus.SUCCESS, "error": ""}


SCRUBBED = ("output", "trajectory", "raw_response", "error")


def _scrubbed(fields: dict, secrets: list[str]) -> dict:
    """The row's texts without the secrets, in every form an echo may take them
    (`redact.secret_forms`: as sent, JSON-escaped, base64, reversed, masked fragments)."""
    for key in SCRUBBED:
        if fields.get(key) and secrets:
            fields[key] = scrub_secrets(fields[key], secrets)
    return fields


class ExtractError(Exception):
    """The answer does not hold what the config says to take out of it."""


def extract(config: dict, body: str) -> dict:
    """actual_output and the optional fields, by the config's JMESPath expressions."""
    expression = config.get("output") or ""
    parsed = _json(body) if any(config.get(k) for k in EXTRACTS) else None
    if not expression:
        output = body
    else:
        output = _as_text(_search("output", expression, parsed))
    fields: dict[str, Any] = {"output": output}
    if config.get("trajectory"):
        found = _search("trajectory", config["trajectory"], parsed, required=False)
        fields["trajectory"] = None if found is None else _as_text(found)
    for key in ("tokens_in", "tokens_out"):
        if config.get(key):
            fields[key] = _count(key, _search(key, config[key], parsed, required=False))
    if config.get("cost"):
        fields["cost"] = _cost(_search("cost", config["cost"], parsed, required=False))
    return fields


def _json(body: str) -> Any:
    try:
        return json.loads(body)
    except ValueError:
        raise ExtractError(f"the answer is not JSON: {body[:200]!r}") from None
    except RecursionError:
        raise ExtractError("the answer is JSON nested too deeply to read") from None


def _search(what: str, expression: str, parsed: Any, *, required: bool = True) -> Any:
    """The expression's value in the answer, with bounded work (`bounded_jmespath`)."""
    try:
        found = bounded_jmespath.search(expression, parsed)
    except bounded_jmespath.TooMuchWork as exc:
        raise ExtractError(f"{what}: {exc} (the extraction limits)") from None
    except jmespath.exceptions.JMESPathError as exc:
        raise ExtractError(f"{what}: {exc}") from None
    if found is None and required:
        raise ExtractError(f"{what}: {expression!r} matched nothing in the answer")
    return found


def _as_text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def _count(key: str, value: Any) -> int:
    return 0 if value is None else _bounded(key, value)


def _cost(value: Any) -> float | None:
    return None if value is None else _bounded("cost", value)


def _bounded(key: str, value: Any) -> int | float:
    """The same bounds as pushed numbers (finite, ≥ 0, below `caps.USAGE_MAXIMA`)."""
    try:
        return usage_bounded(key, value)
    except UsageOutOfBounds as exc:
        raise ExtractError(str(exc)) from None


# ----------------------------------------------------------------------------- validation


def _check_url(url, columns, errors) -> None:
    if not isinstance(url, str) or not url.strip() or len(url) > 2000:
        errors["target.url"] = [gettext("Give the endpoint's http:// or https:// URL.")]
        return
    problems = template_problems(url, columns, secrets_allowed=False)
    static = PLACEHOLDER.sub("x", url)
    problem = url_problem(static, outbound_policy(settings.ASSAY_OUTBOUND_ALLOW))
    if PLACEHOLDER.search(url.split("//", 1)[-1].split("/", 1)[0]):
        problems.append(gettext("Placeholders may be used in the path and query, not the host."))
    if problem:
        problems.append(problem)
    if problems:
        errors["target.url"] = problems


def _check_method(config, errors) -> None:
    method = config.get("method")
    if not isinstance(method, str) or method.upper() not in METHODS:
        errors["target.method"] = [
            gettext("Use one of %(methods)s.") % {"methods": ", ".join(METHODS)}
        ]
        return
    config["method"] = method.upper()
    if config["method"] == "GET" and config.get("body") is not None:
        errors["target.body"] = [gettext("A GET request has no body; put values in the URL.")]


def _check_headers(workspace, headers, columns, errors) -> None:
    from assay.selectors import secret_names

    if not isinstance(headers, dict) or len(headers) > MAX_HEADERS:
        errors["target.headers"] = [
            gettext("Give headers as an object of at most %(max_headers)s names.")
            % {"max_headers": MAX_HEADERS}
        ]
        return
    problems = []
    for name, value in headers.items():
        if not HEADER_NAME.match(str(name)):
            problems.append(gettext("%(name)r is not a header name.") % {"name": name})
        if str(name).lower() == IDEMPOTENCY_HEADER.lower():
            problems.append(
                gettext(
                    "Assay sends %(name)s itself, one key per row and repetition; "
                    "remove this header."
                )
                % {"name": IDEMPOTENCY_HEADER}
            )
        if not isinstance(value, str) or len(value) > MAX_HEADER_VALUE:
            problems.append(gettext("%(name)s: give a text value (at most 8 KB).") % {"name": name})
            continue
        problems += template_problems(value, columns, secrets_allowed=True)
    used = {n for n, _f in placeholders(headers) if n.startswith(SECRET_PREFIX)}
    missing = {n.removeprefix(SECRET_PREFIX) for n in used} - secret_names(workspace=workspace)
    problems += [
        gettext("No workspace secret named %(n)r (add it in Settings → Secrets).") % {"n": n}
        for n in sorted(missing)
    ]
    if problems:
        errors["target.headers"] = problems


def _check_secret_origins(workspace, config, errors) -> None:
    """Each secret the headers use may go to the URL's origin (its owner says where)."""
    from assay.selectors import secrets_named

    if "target.url" in errors or not isinstance(config.get("headers"), dict):
        return
    names = secrets_used(config)
    if not names:
        return
    try:
        origin = url_origin(PLACEHOLDER.sub("x", config["url"]))
    except OriginError as exc:
        errors["target.url"] = [str(exc)]
        return
    found = secrets_named(workspace=workspace, names=names)
    problems = [origin_refusal(s.name, s.origins, origin) for s in found]
    if any(problems):
        errors.setdefault("target.headers", []).extend(p for p in problems if p)


def _check_body(body, columns, errors) -> None:
    if body is None:
        return
    if len(json.dumps(body)) > MAX_BODY_TEMPLATE:
        errors["target.body"] = [gettext("The body template is larger than 64 KB.")]
        return
    problems = template_problems(body, columns, secrets_allowed=False)
    if problems:
        errors["target.body"] = problems


def _check_extracts(config, errors) -> None:
    for key in EXTRACTS:
        expression = config.get(key)
        if key != "output" and expression in (None, ""):
            config.pop(key, None)
            continue
        if not isinstance(expression, str) or len(expression) > 500:
            errors[f"target.{key}"] = [
                gettext("Give a JMESPath expression (at most 500 characters).")
            ]
            continue
        if expression:
            try:
                jmespath.compile(expression)
            except jmespath.exceptions.JMESPathError as exc:
                errors[f"target.{key}"] = [
                    gettext("Not a JMESPath expression: %(error)s") % {"error": exc}
                ]
            except RecursionError:  # the library's parser recurses once a nesting level
                errors[f"target.{key}"] = [gettext("The JMESPath expression is nested too deeply.")]


def _check_limits(config, errors) -> None:
    checks = {
        "timeout_s": (
            lambda v: _number(v) and 1 <= v <= 600,
            lambda: gettext("Give a number of seconds, 1–600."),
        ),
        "max_retries": (
            lambda v: _whole(v) and 0 <= v <= 10,
            lambda: gettext("Give a whole number, 0–10."),
        ),
        "rpm_limit": (
            lambda v: v is None or (_number(v) and 1 <= v <= 1_000_000),
            lambda: gettext("Give 1–1,000,000."),
        ),
    }
    for key, (ok, message) in checks.items():
        if not ok(config.get(key)):
            errors[f"target.{key}"] = [message()]


def _number(value) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _whole(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)
