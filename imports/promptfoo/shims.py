"""The code around an imported assertion: a sandboxed code evaluator's shim that hands the
user's promptfoo code `output` and `context` (as promptfoo does) and turns what it returns
into a score, and the judges' prompts, written here for promptfoo's documented grading rules.

The user's code is kept as written: a one-line value is an expression (`return` is put in
front, as promptfoo does), a longer one is a function body. promptfoo's pass is kept: a
boolean passes when true, a number when it reaches the threshold (with none, when above 0),
an object by its `pass` (or its score against the threshold). The shim scores a pass 1 and a
fail 0 and writes promptfoo's own score and reason into the reason; `not-` flips the pass.
"""

from __future__ import annotations

import json
import textwrap

PYTHON_SHIM = """\
# promptfoo {kind} assertion, imported: the function below is the assertion's code as written.
import json
import math
import re


def promptfoo_assertion(output, context):
{body}


THRESHOLD = {threshold}
NEGATE = {negate}
VARS = {variables}


def promptfoo_pass(result):
    if isinstance(result, dict):
        score = result.get("score")
        if "pass" in result:
            return bool(result["pass"]), score, result.get("reason") or ""
        passed = score is not None and (score >= THRESHOLD if THRESHOLD is not None else score > 0)
        return passed, score, result.get("reason") or ""
    if isinstance(result, bool):
        return result, None, ""
    if isinstance(result, (int, float)):
        return (result >= THRESHOLD if THRESHOLD is not None else result > 0), result, ""
    return bool(result), None, ""


def exec_evaluation(turn):
    outputs = turn.get("evaluate_target_output_fields") or {{}}
    fields = turn.get("evaluate_dataset_fields") or {{}}
    output = (outputs.get("actual_output") or {{}}).get("text")
    if output is None:
        return EvalOutput(score=None, reason="No output.")
    variables = {{name: (fields.get(name) or {{}}).get("text", "") for name in VARS}}
    prompt = (fields.get("prompt") or {{}}).get("text")
    context = {{"vars": variables, "test": {{"vars": variables}}, "prompt": prompt}}
    passed, score, reason = promptfoo_pass(promptfoo_assertion(output, context))
    if NEGATE:
        passed = not passed
    said = "pass" if passed else "fail"
    detail = f"promptfoo: {{said}}" + (f", score {{score}}" if score is not None else "")
    return EvalOutput(score=1.0 if passed else 0.0, reason=f"{{detail}}. {{reason}}".strip())
"""

JAVASCRIPT_SHIM = """\
// promptfoo {kind} assertion, imported: the function below is the assertion's code as written.
function promptfooAssertion(output, context) {{
{body}
}}

const THRESHOLD = {threshold};
const NEGATE = {negate};
const VARS = {variables};

function promptfooPass(result) {{
  if (result !== null && typeof result === "object") {{
    const score = typeof result.score === "number" ? result.score : null;
    if ("pass" in result) return [Boolean(result.pass), score, result.reason || ""];
    const passed = score !== null && (THRESHOLD !== null ? score >= THRESHOLD : score > 0);
    return [passed, score, result.reason || ""];
  }}
  if (typeof result === "number") {{
    return [THRESHOLD !== null ? result >= THRESHOLD : result > 0, result, ""];
  }}
  return [Boolean(result), null, ""];
}}

function exec_evaluation(turn) {{
  const outputs = turn.evaluate_target_output_fields || {{}};
  const fields = turn.evaluate_dataset_fields || {{}};
  const output = (outputs.actual_output || {{}}).text;
  if (output === undefined || output === null) return {{ score: null, reason: "No output." }};
  const vars = {{}};
  for (const name of VARS) vars[name] = (fields[name] || {{}}).text || "";
  const context = {{ vars: vars, test: {{ vars: vars }}, prompt: (fields.prompt || {{}}).text }};
  let [passed, score, reason] = promptfooPass(promptfooAssertion(output, context));
  if (NEGATE) passed = !passed;
  const said = score !== null ? ", score " + score : "";
  const detail = "promptfoo: " + (passed ? "pass" : "fail") + said;
  return {{ score: passed ? 1.0 : 0.0, reason: (detail + ". " + reason).trim() }};
}}
"""


def code_source(
    *, language: str, body: str, threshold: float | None, negate: bool, variables
) -> str:
    """The evaluator's source: the shim around the user's code, which stays unchanged."""
    code = body.strip("\n")
    if "\n" not in code.strip():  # one line: an expression, as promptfoo reads it
        code = f"return {code.strip()}" + ("" if language == "python" else ";")
    if language == "python":
        return PYTHON_SHIM.format(
            kind=language,
            body=textwrap.indent(textwrap.dedent(code), "    "),
            threshold=repr(threshold),
            negate=repr(negate),
            variables=repr(list(variables)),
        )
    return JAVASCRIPT_SHIM.format(
        kind=language,
        body=textwrap.indent(code, "  "),
        threshold="null" if threshold is None else json.dumps(threshold),
        negate="true" if negate else "false",
        variables=json.dumps(list(variables)),
    )


ANSWER = (
    'Reply with only a JSON object: {"reason": "<one or two sentences>", '
    '"score": <number from 0 to 1>}.'
)
SYSTEMS = {
    "llm-rubric": (
        "You grade an answer against a rubric. Read the rubric, then the answer, and decide "
        "how well the answer meets every part of the rubric. Score 1 when it meets the rubric "
        "fully, 0 when it does not meet it, and a value in between for a partial match. "
    ),
    "model-graded-closedqa": (
        "You check whether an answer meets a stated criterion. Decide yes or no: does the "
        "answer, as written, satisfy the criterion? Score 1 for yes and 0 for no; give no "
        "other score. "
    ),
    "factuality": (
        "You compare the facts in an answer with those in a reference answer, ignoring style, "
        "wording and grammar. Decide which one holds: (A) the answer's facts are a subset of "
        "the reference's and agree with it; (B) the answer's facts include all of the "
        "reference's and more, agreeing with it; (C) both state the same facts; (D) the answer "
        "contradicts the reference; (E) they differ only in ways that do not matter to the "
        "facts. Score 1 for A, B, C or E and 0 for D, and name the letter in the reason. "
    ),
}
USERS = {
    "llm-rubric": "<rubric>\n{{reference}}\n</rubric>\n\n<answer>\n{{actual_output}}\n</answer>",
    "model-graded-closedqa": (
        "<criterion>\n{{reference}}\n</criterion>\n\n<answer>\n{{actual_output}}\n</answer>"
    ),
    "factuality": (
        "<reference>\n{{reference}}\n</reference>\n\n<answer>\n{{actual_output}}\n</answer>"
    ),
}
QUESTION = "<question>\n{{prompt}}\n</question>\n\n"


def judge_messages(kind: str, *, has_prompt: bool) -> list[dict]:
    """The judge's messages for a promptfoo model-graded assertion (our own words for its
    documented rules); the question is the row's rendered prompt when the suite has one."""
    user = (QUESTION if has_prompt else "") + USERS[kind]
    return [
        {"role": "system", "content": SYSTEMS[kind] + ANSWER},
        {"role": "user", "content": user},
    ]
