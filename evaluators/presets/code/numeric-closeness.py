# Numeric closeness: 1.0 when the number in the output is close to the reference number.
# |a - b| <= max(rel_tol * max(|a|, |b|), abs_tol), with ext["rel_tol"] (default 1e-6) and
# ext["abs_tol"] (default 0). The output may be a bare number or text: then its last number counts.
import re

NUMBER = r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?"


# include _field_text.py


def strict_number(text):
    """The number text spells exactly, or None."""
    text = str(text).strip()
    if re.fullmatch(NUMBER, text):
        return float(text)
    return None


def last_number(text):
    found = re.findall(NUMBER, text)
    return float(found[-1]) if found else None


def tolerance(ext, key, default):
    if key not in ext:
        return default
    value = strict_number(ext[key])
    return value if value is not None and value >= 0 else None


def exec_evaluation(turn):
    # include _output_and_reference.py
    expected = strict_number(reference)
    ext = turn.get("ext") or {}
    rel_tol = tolerance(ext, "rel_tol", 1e-6)
    abs_tol = tolerance(ext, "abs_tol", 0.0)
    if expected is None or rel_tol is None or abs_tol is None:
        return EvalOutput(
            score=None, reason="Cannot tell: the reference or a tolerance is not a number."
        )
    actual = strict_number(output)
    if actual is None:
        actual = last_number(output)
    if actual is None:
        return EvalOutput(score=0.0, reason="The output contains no number.")
    allowed = max(rel_tol * max(abs(actual), abs(expected)), abs_tol)
    if actual == expected or abs(actual - expected) <= allowed:
        return EvalOutput(
            score=1.0, reason="Output " + str(actual) + " is close to " + str(expected) + "."
        )
    return EvalOutput(
        score=0.0, reason="Output " + str(actual) + " is not close to " + str(expected) + "."
    )
