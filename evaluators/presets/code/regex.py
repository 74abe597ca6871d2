# Regex: 1.0 when the reference, read as a regular expression, matches somewhere in the output.
# Set ext["ignore_case"] to "true" for a case-insensitive match.
import re


# include _field_text.py


def exec_evaluation(turn):
    # include _output_and_reference.py
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
