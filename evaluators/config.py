"""Evaluator config: one schema per kind, submit checks, hashing, diffs and starter configs.

Pure Python (no Django) so services, serializers, forms and the debug runner share one truth.
A config is a JSON dict; ``validate_config`` returns it normalised (defaults filled) so that
``config_hash`` of two equivalent configs is the same.
"""

from __future__ import annotations

import ast
import difflib
import hashlib
import json
import math
import re
from typing import Any

from assay.vocabulary import CONTENT_TYPES, MEDIA_TYPES

KINDS = ("llm", "code")
ROLES = ("system", "user")
LANGUAGES = ("python", "javascript")
MAX_SOURCE_BYTES = 64 * 1024

NAME_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,63}$")
PLACEHOLDER_RE = re.compile(r"\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}")

VARIABLE_KEYS = {"name", "content_type", "required", "description"}
MODEL_KEYS = {"provider_id", "model", "temperature", "max_tokens", "top_p"}
TOP_KEYS = {
    "llm": {"input_variables", "messages", "model"},
    "code": {"input_variables", "language", "source", "timeout_s", "memory_mb"},
}


class ConfigError(Exception):
    """An invalid config; ``errors`` maps field paths to messages."""

    def __init__(self, errors: dict[str, list[str]]):
        self.errors = errors
        summary = "; ".join(f"{path}: {' '.join(msgs)}" for path, msgs in errors.items())
        super().__init__(summary or "Invalid config.")


class _Errors:
    """Collects every problem, keyed by field path, instead of stopping at the first."""

    def __init__(self) -> None:
        self.by_path: dict[str, list[str]] = {}

    def add(self, path: str, message: str) -> None:
        self.by_path.setdefault(path or "config", []).append(message)

    def unknown_keys(self, path: str, value: dict, allowed: set[str]) -> None:
        for key in sorted(set(value) - allowed, key=str):
            self.add(_join(path, str(key)), f"Unknown field {key!r}.")


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def _is_number(value: Any) -> bool:
    # bool is an int subclass; a JSON true must not pass as a temperature.
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


# --------------------------------------------------------------------------- validation


def validate_config(kind: str, config: dict) -> dict:
    """Validate ``config`` for ``kind`` and return it normalised (defaults filled).

    Raises ConfigError listing every problem found, keyed by field path such as
    ``input_variables[1].content_type`` or ``messages[0].content``.
    """
    errors = _Errors()
    if kind not in KINDS:
        errors.add("kind", f"Unknown kind {kind!r}; expected one of {', '.join(KINDS)}.")
        raise ConfigError(errors.by_path)
    if not isinstance(config, dict):
        errors.add("config", "Config must be a JSON object.")
        raise ConfigError(errors.by_path)
    errors.unknown_keys("", config, TOP_KEYS[kind])
    out: dict[str, Any] = {"input_variables": _variables(config.get("input_variables"), errors)}
    if kind == "llm":
        out["messages"] = _messages(config.get("messages"), errors)
        out["model"] = _model(config.get("model", {}), errors)
    else:
        out.update(_code(config, errors))
    if errors.by_path:
        raise ConfigError(errors.by_path)
    return out


def _variables(value: Any, errors: _Errors) -> list[dict]:
    if value is None:
        return []
    if not isinstance(value, list):
        errors.add("input_variables", "Must be a list.")
        return []
    seen: set[str] = set()
    return [_variable(item, f"input_variables[{i}]", seen, errors) for i, item in enumerate(value)]


def _variable(item: Any, path: str, seen: set[str], errors: _Errors) -> dict:
    if not isinstance(item, dict):
        errors.add(path, "Must be an object with name and content_type.")
        return {}
    errors.unknown_keys(path, item, VARIABLE_KEYS)
    name = item.get("name")
    if not isinstance(name, str) or not NAME_RE.match(name):
        errors.add(
            f"{path}.name", "Must be an identifier: a letter or _, then up to 63 of A-Z a-z 0-9 _."
        )
    elif name in seen:
        errors.add(f"{path}.name", f"Duplicate variable name {name!r}.")
    else:
        seen.add(name)
    ctype = item.get("content_type")
    if ctype not in CONTENT_TYPES:
        errors.add(
            f"{path}.content_type",
            f"Unknown content type {ctype!r}; expected one of {', '.join(CONTENT_TYPES)}.",
        )
    required = item.get("required", True)
    if not isinstance(required, bool):
        errors.add(f"{path}.required", "Must be true or false.")
    description = item.get("description", "")
    if not isinstance(description, str):
        errors.add(f"{path}.description", "Must be a string.")
    return {"name": name, "content_type": ctype, "required": required, "description": description}


def _messages(value: Any, errors: _Errors) -> list[dict]:
    if not isinstance(value, list) or not value:
        errors.add("messages", "Must be a non-empty list of messages.")
        return []
    out = [_message(item, f"messages[{i}]", errors) for i, item in enumerate(value)]
    if not any(m.get("role") == "user" for m in out):
        errors.add("messages", "At least one message must have role 'user'.")
    return out


def _message(item: Any, path: str, errors: _Errors) -> dict:
    if not isinstance(item, dict):
        errors.add(path, "Must be an object with role and content.")
        return {}
    errors.unknown_keys(path, item, {"role", "content"})
    role = item.get("role")
    if role not in ROLES:
        errors.add(f"{path}.role", f"Unknown role {role!r}; expected 'system' or 'user'.")
    content = item.get("content")
    if isinstance(content, str):
        if not content.strip():
            errors.add(f"{path}.content", "Must not be empty.")
    elif isinstance(content, list) and content:
        content = [_part(p, f"{path}.content[{i}]", errors) for i, p in enumerate(content)]
    else:
        errors.add(f"{path}.content", "Must be a non-empty string or a non-empty list of parts.")
    return {"role": role, "content": content}


def _part(part: Any, path: str, errors: _Errors) -> dict:
    if not isinstance(part, dict):
        errors.add(path, "Must be an object with a type.")
        return {}
    kind = part.get("type")
    if kind == "text":
        errors.unknown_keys(path, part, {"type", "text"})
        if not isinstance(part.get("text"), str):
            errors.add(f"{path}.text", "Must be a string.")
        return {"type": "text", "text": part.get("text")}
    if kind == "multi_part_variable":
        errors.unknown_keys(path, part, {"type", "variable"})
        variable = part.get("variable")
        if not isinstance(variable, str) or not NAME_RE.match(variable):
            errors.add(f"{path}.variable", "Must name a declared variable.")
        return {"type": "multi_part_variable", "variable": variable}
    errors.add(
        f"{path}.type", f"Unknown part type {kind!r}; expected 'text' or 'multi_part_variable'."
    )
    return dict(part)


def _model(value: Any, errors: _Errors) -> dict:
    if not isinstance(value, dict):
        errors.add("model", "Must be an object.")
        return {}
    errors.unknown_keys("model", value, MODEL_KEYS)
    provider = value.get("provider_id")
    if provider is not None and not isinstance(provider, str):
        errors.add("model.provider_id", "Must be a string or null.")
    name = value.get("model", "")
    if not isinstance(name, str):
        errors.add("model.model", "Must be a string.")
    out = {
        "provider_id": provider,
        "model": name,
        "temperature": _ranged(value, "temperature", 0.0, (0.0, 2.0), errors),
        "max_tokens": _int_ranged(value, "max_tokens", 1024, (1, 32768), errors, "model"),
    }
    if value.get("top_p") is not None:
        top_p = value["top_p"]
        if not _is_number(top_p) or not 0 < top_p <= 1:
            errors.add("model.top_p", "Must be a number greater than 0 and at most 1.")
        out["top_p"] = float(top_p) if _is_number(top_p) else top_p
    return out


def _ranged(value: dict, key: str, default: float, bounds: tuple, errors: _Errors, prefix="model"):
    number = value.get(key, default)
    low, high = bounds
    if not _is_number(number) or not low <= number <= high:
        errors.add(_join(prefix, key), f"Must be a number from {low:g} to {high:g}.")
        return number
    return float(number)


def _int_ranged(value: dict, key: str, default: int, bounds: tuple, errors: _Errors, prefix: str):
    number = value.get(key, default)
    low, high = bounds
    if not _is_int(number) or not low <= number <= high:
        errors.add(_join(prefix, key), f"Must be a whole number from {low} to {high}.")
    return number


def _code(config: dict, errors: _Errors) -> dict:
    language = config.get("language")
    if language not in LANGUAGES:
        errors.add("language", f"Unknown language {language!r}; expected 'python' or 'javascript'.")
    source = config.get("source")
    if not isinstance(source, str):
        errors.add("source", "Must be a string.")
    elif len(source.encode("utf-8")) > MAX_SOURCE_BYTES:
        size = len(source.encode("utf-8"))
        errors.add("source", f"Source is {size} bytes; the limit is {MAX_SOURCE_BYTES} (64 KiB).")
    return {
        "language": language,
        "source": source,
        "timeout_s": _ranged(config, "timeout_s", 5.0, (0.1, 60.0), errors, prefix=""),
        "memory_mb": _int_ranged(config, "memory_mb", 256, (16, 1024), errors, prefix=""),
    }


# --------------------------------------------------------------------------- placeholders


def _text_fields(config: dict):
    """Yield (path, text) for every text a prompt renders, in message order."""
    for i, message in enumerate(config.get("messages") or []):
        content = message.get("content") if isinstance(message, dict) else None
        if isinstance(content, str):
            yield f"messages[{i}].content", content
        for j, part in enumerate(content if isinstance(content, list) else []):
            if isinstance(part, dict) and isinstance(part.get("text"), str):
                yield f"messages[{i}].content[{j}].text", part["text"]


def _variable_parts(config: dict):
    """Yield (path, variable name) for every multi_part_variable part."""
    for i, message in enumerate(config.get("messages") or []):
        content = message.get("content") if isinstance(message, dict) else None
        for j, part in enumerate(content if isinstance(content, list) else []):
            if isinstance(part, dict) and part.get("type") == "multi_part_variable":
                yield f"messages[{i}].content[{j}].variable", part.get("variable")


def placeholders(config: dict) -> set[str]:
    """Names referenced by ``{{name}}`` in message text and by multi_part_variable parts."""
    names = {m for _, text in _text_fields(config) for m in PLACEHOLDER_RE.findall(text)}
    names.update(v for _, v in _variable_parts(config) if isinstance(v, str))
    return names


# --------------------------------------------------------------------------- submit checks


def submit_problems(kind: str, config: dict, *, model_configured: bool) -> dict[str, list[str]]:
    """Problems that block submitting ``config`` as a version; empty when it may be submitted.

    Runs schema validation first; the kind's checks only run on a valid config.
    """
    try:
        config = validate_config(kind, config)
    except ConfigError as exc:
        return exc.errors
    errors = _Errors()
    if kind == "llm":
        _check_prompt_variables(config, errors)
        _check_model(config, model_configured, errors)
    else:
        _check_code(config, errors)
    return errors.by_path


def _check_prompt_variables(config: dict, errors: _Errors) -> None:
    declared = {v["name"]: v["content_type"] for v in config["input_variables"]}
    for path, text in _text_fields(config):
        for name in dict.fromkeys(PLACEHOLDER_RE.findall(text)):
            if name not in declared:
                errors.add(path, f"Variable {name!r} is not declared in input_variables.")
            elif declared[name] != "Text":
                errors.add(
                    path,
                    f"Variable {name!r} is {declared[name]}; only Text variables can go in "
                    "{{...}}; use a multi_part_variable part for media.",
                )
    for path, name in _variable_parts(config):
        if name not in declared:
            errors.add(path, f"Variable {name!r} is not declared in input_variables.")
        elif declared[name] not in MEDIA_TYPES:
            errors.add(
                path,
                f"Variable {name!r} is Text; multi_part_variable needs Image, Audio or MultiPart.",
            )
    used = placeholders(config)
    for i, variable in enumerate(config["input_variables"]):
        if variable["required"] and variable["name"] not in used:
            errors.add(
                f"input_variables[{i}].name",
                f"Required variable {variable['name']!r} is not used in any message.",
            )


def _check_model(config: dict, model_configured: bool, errors: _Errors) -> None:
    if not config["model"]["model"].strip():
        errors.add("model.model", "Choose a model.")
    if not model_configured:
        errors.add(
            "model.provider_id", "No usable model provider is configured for this evaluator."
        )


JS_ENTRY_RE = re.compile(
    r"\bfunction\s*\*?\s*(?:exec_evaluation|execEvaluation)\s*\("
    r"|\b(?:const|let|var)\s+(?:exec_evaluation|execEvaluation)\s*=\s*(?:async\s+)?"
    r"(?:function\b|\(|[A-Za-z_$][\w$]*\s*=>)"
)


def _check_code(config: dict, errors: _Errors) -> None:
    source = config["source"]
    if config["language"] == "javascript":
        if not JS_ENTRY_RE.search(source):
            errors.add("source", "Define function exec_evaluation(turn) (or execEvaluation).")
        return
    try:
        tree = ast.parse(source)  # parse only: nothing is compiled to bytecode or executed
    except SyntaxError as exc:
        errors.add("source", f"Syntax error on line {exc.lineno}: {exc.msg}.")
        return
    if not any(isinstance(n, ast.FunctionDef) and n.name == "exec_evaluation" for n in tree.body):
        errors.add("source", "Define a top-level function: def exec_evaluation(turn).")


# --------------------------------------------------------------------------- hash and diff


def config_hash(config: dict) -> str:
    """sha256 hex of the canonical JSON of ``config`` (sorted keys, no whitespace)."""
    canonical = json.dumps(config, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


TEXT_KEYS = {"source", "content", "text", "description"}
_MISSING = object()


def diff_configs(a: dict, b: dict) -> list[dict]:
    """Field-by-field differences from ``a`` to ``b``, in a stable (sorted path) order.

    Each entry: ``{"path", "change": "added"|"removed"|"changed", "old", "new"}``; text fields
    (source, message content, descriptions, multi-line strings) also carry ``"diff"``: unified
    diff lines from difflib.
    """
    out: list[dict] = []
    _diff(a, b, "", out)
    return out


def _diff(old: Any, new: Any, path: str, out: list[dict]) -> None:
    if isinstance(old, dict) and isinstance(new, dict):
        for key in sorted(set(old) | set(new), key=str):
            _diff(old.get(key, _MISSING), new.get(key, _MISSING), _join(path, str(key)), out)
    elif isinstance(old, list) and isinstance(new, list):
        for i in range(max(len(old), len(new))):
            item_old = old[i] if i < len(old) else _MISSING
            item_new = new[i] if i < len(new) else _MISSING
            _diff(item_old, item_new, f"{path}[{i}]", out)
    elif old is _MISSING or new is _MISSING or old != new or type(old) is not type(new):
        out.append(_entry(old, new, path))


def _entry(old: Any, new: Any, path: str) -> dict:
    change = "added" if old is _MISSING else "removed" if new is _MISSING else "changed"
    entry = {
        "path": path,
        "change": change,
        "old": None if old is _MISSING else old,
        "new": None if new is _MISSING else new,
    }
    if _is_text(old, new, path):
        entry["diff"] = _text_diff(entry["old"] or "", entry["new"] or "", path)
    return entry


def _is_text(old: Any, new: Any, path: str) -> bool:
    values = [v for v in (old, new) if v is not _MISSING]
    if not all(isinstance(v, str) for v in values):
        return False
    leaf = re.sub(r"\[\d+\]$", "", path).rsplit(".", 1)[-1]
    return leaf in TEXT_KEYS or any("\n" in v for v in values)


def _text_diff(old: str, new: str, path: str) -> list[str]:
    lines = difflib.unified_diff(
        old.splitlines(), new.splitlines(), fromfile=f"a/{path}", tofile=f"b/{path}", lineterm=""
    )
    return list(lines)


# --------------------------------------------------------------------------- starters


PYTHON_SKELETON = '''\
def exec_evaluation(turn):
    """Score one row. Return EvalOutput(score, reason); score in [0, 1], or None if unknown."""
    output = turn["evaluate_target_output_fields"]["actual_output"]["text"]
    reference = turn["evaluate_dataset_fields"]["reference_output"]["text"]
    if output.strip() == reference.strip():
        return EvalOutput(score=1.0, reason="The output equals the reference.")
    return EvalOutput(score=0.0, reason="The output differs from the reference.")
'''

JAVASCRIPT_SKELETON = """\
// Score one row. Return {score, reason}; score in [0, 1], or null if unknown.
function exec_evaluation(turn) {
  const output = turn.evaluate_target_output_fields.actual_output.text;
  const reference = turn.evaluate_dataset_fields.reference_output.text;
  if (output.trim() === reference.trim()) {
    return { score: 1.0, reason: "The output equals the reference." };
  }
  return { score: 0.0, reason: "The output differs from the reference." };
}
"""

JUDGE_SYSTEM = """\
You are a careful evaluator. Judge whether the answer below responds well to the question.
Score 1 when it answers the question correctly and completely, 0.5 when it is partly right or \
incomplete, 0 when it is wrong or does not answer.
Reply with only a JSON object:
{"reason": "<one or two sentences>", "score": <number from 0 to 1>}."""

JUDGE_USER = """\
<question>
{{input}}
</question>

<answer>
{{output}}
</answer>"""


def _code_variables() -> list[dict]:
    return [
        {"name": "actual_output", "content_type": "Text", "required": True,
         "description": "The target's output."},
        {"name": "reference_output", "content_type": "Text", "required": True,
         "description": "The expected output from the evaluation set."},
    ]  # fmt: skip


def default_config(kind: str, language: str | None = None) -> dict:
    """A blank-but-valid starter config for ``kind`` (code: ``language``, default python)."""
    if kind == "code":
        language = language or "python"
        if language not in LANGUAGES:
            raise ValueError(f"Unknown language {language!r}; expected 'python' or 'javascript'.")
        source = PYTHON_SKELETON if language == "python" else JAVASCRIPT_SKELETON
        config = {"input_variables": _code_variables(), "language": language, "source": source}
        return validate_config("code", config)
    if kind != "llm":
        raise ValueError(f"Unknown kind {kind!r}; expected 'llm' or 'code'.")
    variables = [
        {"name": "input", "content_type": "Text", "description": "The question or task."},
        {"name": "output", "content_type": "Text", "description": "The answer to judge."},
    ]
    messages = [
        {"role": "system", "content": JUDGE_SYSTEM},
        {"role": "user", "content": JUDGE_USER},
    ]
    return validate_config("llm", {"input_variables": variables, "messages": messages})
