# Contains any: 1.0 when the output contains at least one candidate string from the reference.
# The reference is a JSON list of strings, or candidates separated by commas or new lines.
import json
import re


def field_text(turn, group, name):
    """The text of a Text field, or None when the field is missing."""
    content = (turn.get(group) or {}).get(name) or {}
    text = content.get("text")
    return text if isinstance(text, str) else None


def candidates(reference):
    """Candidate strings from a JSON list, else from comma/newline separated text."""
    text = reference.strip()
    if text.startswith("["):
        try:
            items = json.loads(text)
        except ValueError:
            items = None
        if isinstance(items, list):
            return [item for item in items if isinstance(item, str) and item != ""]
    return [part.strip() for part in re.split(r"[,\n]", text) if part.strip()]


def exec_evaluation(turn):
    output = field_text(turn, "evaluate_target_output_fields", "actual_output")
    reference = field_text(turn, "evaluate_dataset_fields", "reference_output")
    if output is None or reference is None:
        return EvalOutput(
            score=None, reason="Cannot tell: actual_output or reference_output text is missing."
        )
    options = candidates(reference)
    if not options:
        return EvalOutput(
            score=None, reason="Cannot tell: the reference lists no candidate strings."
        )
    for option in options:
        if option in output:
            return EvalOutput(score=1.0, reason="The output contains " + json.dumps(option) + ".")
    return EvalOutput(score=0.0, reason="The output contains none of " + json.dumps(options) + ".")
