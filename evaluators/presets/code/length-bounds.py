# Length bounds: 1.0 when the output's length is within ext["min_length"] and/or
# ext["max_length"] (inclusive). Length counts characters of the stripped output, or words
# when ext["unit"] is "words". With neither bound set the answer is unknown.
import re


# include _field_text.py


def bound(ext, key):
    """The bound as an int, None when unset, or -1 when it is not a whole number."""
    value = ext.get(key)
    if value is None or str(value).strip() == "":
        return None
    text = str(value).strip()
    return int(text) if re.fullmatch(r"[0-9]+", text) else -1


def exec_evaluation(turn):
    output = field_text(turn, "evaluate_target_output_fields", "actual_output")
    if output is None:
        return EvalOutput(score=None, reason="Cannot tell: actual_output text is missing.")
    ext = turn.get("ext") or {}
    low = bound(ext, "min_length")
    high = bound(ext, "max_length")
    if low is None and high is None:
        return EvalOutput(score=None, reason="Cannot tell: set ext min_length and/or max_length.")
    if low == -1 or high == -1:
        return EvalOutput(
            score=None, reason="Cannot tell: min_length/max_length must be whole numbers."
        )
    words = str(ext.get("unit", "")).lower() == "words"
    length = len(output.split()) if words else len(output.strip())
    unit = "words" if words else "characters"
    if (low is not None and length < low) or (high is not None and length > high):
        return EvalOutput(
            score=0.0, reason="Length " + str(length) + " " + unit + " is out of bounds."
        )
    return EvalOutput(score=1.0, reason="Length " + str(length) + " " + unit + " is within bounds.")
