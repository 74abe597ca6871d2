"""Coze Loop's preset code evaluators, written the way its users write them, run unchanged."""

from __future__ import annotations

import pytest

import sandbox
from tests.sandbox.support import make_turn

PY_HEAD = """
def exec_evaluation(turn):
    try:
        actual_text = turn["evaluate_target_output_fields"]["actual_output"]["text"]
        reference_text = turn["evaluate_dataset_fields"]["reference_output"]["text"]
"""
PY_TAIL = """
        return EvalOutput(score=score, reason=reason)
    except Exception as e:
        return EvalOutput(score=0.0, reason=f"evaluation failed: {str(e)}")
"""
PYTHON = {
    "equal": """
        score = 1.0 if actual_text.strip() == reference_text.strip() else 0.0
        reason = "actual output equals the reference" if score else "outputs differ"
""",
    "contains_any": """
        keywords = [k.strip() for k in reference_text.split(",") if k.strip()]
        found = [k for k in keywords if k in actual_text]
        score = 1.0 if found else 0.0
        reason = f"found: {', '.join(found)}" if found else "no keyword found"
""",
    "regex": """
        import re
        match = re.search(reference_text, actual_text)
        score = 1.0 if match else 0.0
        reason = f"matched {match.group(0)!r}" if match else "no match"
""",
    "starts_with": """
        score = 1.0 if actual_text.startswith(reference_text) else 0.0
        reason = "prefix matches" if score == 1.0 else "prefix differs"
""",
    "valid_json_object": """
        import json
        try:
            parsed = json.loads(actual_text)
            score = 1.0 if isinstance(parsed, dict) else 0.0
            reason = "valid JSON object" if score else "JSON but not an object"
        except ValueError as err:
            score = 0.0
            reason = f"invalid JSON: {err}"
""",
}
JS_HEAD = """
function exec_evaluation(turn) {
  try {
    const actual_text = turn.evaluate_target_output_fields.actual_output.text;
    const reference_text = turn.evaluate_dataset_fields.reference_output.text;
    let score = 0, reason = "";
"""
JS_TAIL = """
    return { score: score, reason: reason };
  } catch (e) {
    return { score: 0.0, reason: `evaluation failed: ${e.message}` };
  }
}
"""
JAVASCRIPT = {
    "equal": """
    score = actual_text.trim() === reference_text.trim() ? 1.0 : 0.0;
    reason = score ? "actual output equals the reference" : "outputs differ";
""",
    "contains_any": """
    const keywords = reference_text.split(",").map((k) => k.trim()).filter(Boolean);
    const found = keywords.filter((k) => actual_text.includes(k));
    score = found.length > 0 ? 1.0 : 0.0;
    reason = found.length ? `found: ${found.join(", ")}` : "no keyword found";
""",
    "regex": """
    const match = new RegExp(reference_text).exec(actual_text);
    score = match ? 1.0 : 0.0;
    reason = match ? `matched ${match[0]}` : "no match";
""",
    "starts_with": """
    score = actual_text.startsWith(reference_text) ? 1.0 : 0.0;
    reason = score ? "prefix matches" : "prefix differs";
""",
    "valid_json_object": """
    try {
      const parsed = JSON.parse(actual_text);
      score = parsed !== null && typeof parsed === "object" && !Array.isArray(parsed) ? 1 : 0;
      reason = score ? "valid JSON object" : "JSON but not an object";
    } catch (err) {
      score = 0.0;
      reason = `invalid JSON: ${err.message}`;
    }
""",
}
CASES = {
    "equal": [("Paris", "Paris", 1.0), (" Paris ", "Paris", 1.0), ("Rome", "Paris", 0.0)],
    "contains_any": [("I love Rome", "Paris, Rome", 1.0), ("I love Oslo", "Paris, Rome", 0.0)],
    "regex": [("order 12345 shipped", r"\d{5}", 1.0), ("order shipped", r"\d{5}", 0.0)],
    "starts_with": [("Answer: 42", "Answer:", 1.0), ("The answer: 42", "Answer:", 0.0)],
    "valid_json_object": [('{"a": 1}', "", 1.0), ("[1, 2]", "", 0.0), ("{oops", "", 0.0)],
}


@pytest.mark.parametrize("language", ["python", "javascript"])
@pytest.mark.parametrize("preset", sorted(CASES))
def test_preset_scores(language, preset):
    if language == "python":
        source = PY_HEAD + PYTHON[preset] + PY_TAIL
    else:
        source = JS_HEAD + JAVASCRIPT[preset] + JS_TAIL
    assert sandbox.check(language, source).ok
    turns = [make_turn(actual, reference) for actual, reference, _ in CASES[preset]]
    outcomes = sandbox.execute(language, source, turns)
    assert [o.status for o in outcomes] == ["ok"] * len(turns), outcomes
    assert [o.score for o in outcomes] == [score for _, _, score in CASES[preset]]
    assert all(o.reason for o in outcomes)


def test_regex_preset_reports_its_match_and_invalid_json_its_error():
    source = PY_HEAD + PYTHON["regex"] + PY_TAIL
    outcome = sandbox.execute("python", source, [make_turn("id 12345", r"\d+")])[0]
    assert outcome.reason == "matched '12345'"
    source = PY_HEAD + PYTHON["valid_json_object"] + PY_TAIL
    outcome = sandbox.execute("python", source, [make_turn("{oops")])[0]
    assert outcome.reason.startswith("invalid JSON: ")
