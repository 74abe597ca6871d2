# Regex: 1.0 when the reference, read as a regular expression, matches somewhere in the output.
# Set ext["ignore_case"] to "true" for a case-insensitive match.
import re


def field_text(turn, group, name):
    """The text of a Text field, or None when the field is missing."""
    content = (turn.get(group) or {}).get(name) or {}
    text = content.get("text")
    return text if isinstance(text, str) else None


def exec_evaluation(turn):
    output = field_text(turn, "evaluate_target_output_fields", "actual_output")
    reference = field_text(turn, "evaluate_dataset_fields", "reference_output")
    if output is None or reference is None:
        return EvalOutput(
            score=None, reason="Cannot tell: actual_output or reference_output text is missing."
        )
    pattern = reference.strip("\r\n")
    ignore_case = str((turn.get("ext") or {}).get("ignore_case", "")).lower() == "true"
    try:
        compiled = re.compile(pattern, re.IGNORECASE if ignore_case else 0)
    except re.error as exc:
        return EvalOutput(
            score=None, reason="Cannot tell: the reference is not a valid pattern: " + str(exc)
        )
    if compiled.search(output):
        return EvalOutput(score=1.0, reason="The output matches the pattern " + pattern + ".")
    return EvalOutput(score=0.0, reason="The output does not match the pattern " + pattern + ".")
