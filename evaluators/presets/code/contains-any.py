# Contains any: 1.0 when the output contains at least one candidate string from the reference.
# The reference is a JSON list of strings, or candidates separated by commas or new lines.
import json
import re


# include _field_text.py


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
    # include _output_and_reference.py
    options = candidates(reference)
    if not options:
        return EvalOutput(
            score=None, reason="Cannot tell: the reference lists no candidate strings."
        )
    for option in options:
        if option in output:
            return EvalOutput(score=1.0, reason="The output contains " + json.dumps(option) + ".")
    return EvalOutput(score=0.0, reason="The output contains none of " + json.dumps(options) + ".")
