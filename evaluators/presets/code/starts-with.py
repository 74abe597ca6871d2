# Starts with: 1.0 when the output begins with the reference (leading whitespace in the output
# and whitespace around the reference are ignored).


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
    prefix = reference.strip()
    if prefix == "":
        return EvalOutput(score=None, reason="Cannot tell: the reference prefix is empty.")
    if output.lstrip().startswith(prefix):
        return EvalOutput(score=1.0, reason="The output starts with the reference.")
    return EvalOutput(score=0.0, reason="The output does not start with the reference.")
