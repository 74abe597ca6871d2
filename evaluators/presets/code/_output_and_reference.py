output = field_text(turn, "evaluate_target_output_fields", "actual_output")
reference = field_text(turn, "evaluate_dataset_fields", "reference_output")
if output is None or reference is None:
    return EvalOutput(
        score=None, reason="Cannot tell: actual_output or reference_output text is missing."
    )
