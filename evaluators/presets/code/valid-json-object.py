# Valid JSON object: 1.0 when the whole output parses as a JSON object (not an array or scalar).
# NaN and Infinity are rejected: they are not JSON.
import json


# include _field_text.py


def reject_constant(name):
    raise ValueError(name + " is not valid JSON")


def exec_evaluation(turn):
    output = field_text(turn, "evaluate_target_output_fields", "actual_output")
    if output is None:
        return EvalOutput(score=None, reason="Cannot tell: actual_output text is missing.")
    try:
        value = json.loads(output, parse_constant=reject_constant)
    except ValueError as exc:
        return EvalOutput(score=0.0, reason="The output is not valid JSON: " + str(exc))
    if isinstance(value, dict):
        return EvalOutput(score=1.0, reason="The output is a valid JSON object.")
    return EvalOutput(score=0.0, reason="The output is valid JSON but not an object.")
