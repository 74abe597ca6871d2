"""The `code` kind: a Python or JavaScript `exec_evaluation(turn)` run in the sandbox.

Coze Loop's contract, so Coze Loop code evaluators run unchanged. Batches go to the `code`
(CPU-bound) queue; a whole chunk runs in one sandbox child.
"""

from __future__ import annotations

import ast
import re

from django.conf import settings
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from ..config import Errors, int_ranged, ranged
from .base import EvaluatorKindSpec

LANGUAGES = ("python", "javascript")
MAX_SOURCE_BYTES = 64 * 1024
SANDBOX_STATUS = {
    "ok": "success",
    "timeout": "timeout",
    "memory": "error",
    "error": "error",
    "refused": "error",
}
SANDBOX_DEFAULT_ERRORS = {"memory": "memory limit exceeded", "timeout": "time limit exceeded"}

JS_ENTRY_RE = re.compile(
    r"\bfunction\s*\*?\s*(?:exec_evaluation|execEvaluation)\s*\("
    r"|\b(?:const|let|var)\s+(?:exec_evaluation|execEvaluation)\s*=\s*(?:async\s+)?"
    r"(?:function\b|\(|[A-Za-z_$][\w$]*\s*=>)"
)

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
SKELETONS = {"python": PYTHON_SKELETON, "javascript": JAVASCRIPT_SKELETON}


def _code_variables() -> list[dict]:
    return [
        {
            "name": "actual_output",
            "content_type": "Text",
            "required": True,
            "description": "The target's output.",
        },
        {
            "name": "reference_output",
            "content_type": "Text",
            "required": True,
            "description": "The expected output from the evaluation set.",
        },
    ]


def _check_python(source: str, errors: Errors) -> None:
    try:
        tree = ast.parse(source)  # parse only: nothing is compiled to bytecode or executed
    except SyntaxError as exc:
        errors.add(
            "source",
            gettext("Syntax error on line %(lineno)s: %(msg)s.")
            % {"lineno": exc.lineno, "msg": exc.msg},
        )
        return
    if not any(isinstance(n, ast.FunctionDef) and n.name == "exec_evaluation" for n in tree.body):
        errors.add("source", gettext("Define a top-level function: def exec_evaluation(turn)."))


def _check_javascript(source: str, errors: Errors) -> None:
    if not JS_ENTRY_RE.search(source):
        errors.add("source", gettext("Define function exec_evaluation(turn) (or execEvaluation)."))


CHECKS = {"python": _check_python, "javascript": _check_javascript}


class CodeKind(EvaluatorKindSpec):
    name = "code"
    label = _("Code")
    queue = "code"
    keys = frozenset({"language", "source", "timeout_s", "memory_mb"})
    editor_template = "evaluators/kinds/_code.html"

    def editor_context(self, *, workspace) -> dict:
        from sandbox.limits import PYTHON_IMPORTS

        return {"python_imports": PYTHON_IMPORTS, "starters": dict(SKELETONS)}

    def validate(self, config: dict, errors: Errors) -> dict:
        language = config.get("language")
        if language not in LANGUAGES:
            errors.add(
                "language", f"Unknown language {language!r}; expected 'python' or 'javascript'."
            )
        source = config.get("source")
        if not isinstance(source, str):
            errors.add("source", gettext("Must be a string."))
        elif len(source.encode("utf-8")) > MAX_SOURCE_BYTES:
            size = len(source.encode("utf-8"))
            errors.add(
                "source",
                gettext("Source is %(size)s bytes; the limit is %(max_source_bytes)s (64 KiB).")
                % {"size": size, "max_source_bytes": MAX_SOURCE_BYTES},
            )
        return {
            "language": language,
            "source": source,
            "timeout_s": ranged(config, "timeout_s", 5.0, (0.1, 60.0), errors),
            "memory_mb": int_ranged(config, "memory_mb", 256, (16, 1024), errors),
        }

    def default_config(self, language: str | None) -> dict:
        language = language or "python"
        if language not in LANGUAGES:
            raise ValueError(f"Unknown language {language!r}; expected 'python' or 'javascript'.")
        return {
            "input_variables": _code_variables(),
            "language": language,
            "source": SKELETONS[language],
        }

    def check(self, config: dict, errors: Errors, *, model_configured: bool) -> None:
        """The cheap checks: syntax of Python (parsed, never run) and the entry point."""
        CHECKS[config["language"]](config["source"], errors)

    def deep_problems(self, config: dict) -> dict[str, list[str]]:
        """The real syntax/contract/import check runs inside the sandbox, never in this process."""
        result = code_check(language=config["language"], source=config["source"])
        if result["ok"]:
            return {}
        return {"source": [_line_message(e) for e in result["errors"]]}

    def summary(self, config: dict) -> str:
        return f"{self.label} · {config.get('language', '')}"

    def template_languages(self, template) -> list[str]:
        return sorted(template.configs)

    def from_template(
        self, template, *, workspace, language: str | None, prompt_locale: str = "en"
    ) -> dict:
        # Code has no prompt: prompt_locale changes only the evaluator's name and description.
        language = language or "python"
        if language not in template.configs:
            raise ValueError(f"Template {template.slug!r} has no {language!r}.")
        return template.configs[language]

    def run(self, batch):
        import sandbox

        # imported here, not per row: the runner imports the kinds (a module-level import
        # would be circular), and an import statement per row cost more than the outcome itself
        from ..runner import RunCancelled, RunOutcome

        try:
            outcomes = code_run_batch(config=batch.config, turns=batch.turns, cancel=batch.cancel)
        except sandbox.Cancelled:
            raise RunCancelled from None
        return [_outcome(o, RunOutcome) for o in outcomes]


def _outcome(o, RunOutcome):  # noqa: N803 - the class, passed in (see `run`)
    return RunOutcome(
        status=SANDBOX_STATUS.get(o.status, "error"),
        score=o.score if o.ok else None,
        reason=o.reason,
        error=o.error or SANDBOX_DEFAULT_ERRORS.get(o.status, ""),
        stdout=o.stdout,
        latency_ms=o.duration_ms,
        extra={"sandbox_status": o.status},
    )


def _line_message(error: dict) -> str:
    line = error.get("line")
    return f"line {line}: {error['message']}" if line else error["message"]


def code_check(*, language: str, source: str) -> dict:
    """Syntax, contract and import checks, run inside the sandbox: {ok, errors[{line, message}]}."""
    import sandbox

    result = sandbox.check(language, source)
    errors = [{"line": e.get("line"), "message": e.get("message", "")} for e in result.errors]
    return {"ok": bool(result.ok), "errors": errors}


def code_run_batch(*, config: dict, turns: list[dict], cancel=None) -> list:
    """Run a code evaluator config on turns in one sandbox batch; one Outcome per turn.

    Setting `cancel` (a threading.Event) kills the running child: `sandbox.Cancelled`.
    """
    import sandbox

    return sandbox.execute(
        config["language"],
        config["source"],
        turns,
        timeout_s=float(config.get("timeout_s", 5.0)),
        memory_mb=int(config.get("memory_mb", 256)),
        require_netns=settings.ASSAY_REQUIRE_NETNS,
        cancel=cancel,
    )
