# Equal: 1.0 when the output equals the reference, ignoring surrounding whitespace.


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
    if output.strip() == reference.strip():
        return EvalOutput(score=1.0, reason="The output equals the reference.")
    return EvalOutput(score=0.0, reason="The output differs from the reference.")
