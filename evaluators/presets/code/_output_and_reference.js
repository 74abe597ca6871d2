const output = fieldText(turn, "evaluate_target_output_fields", "actual_output");
const reference = fieldText(turn, "evaluate_dataset_fields", "reference_output");
if (output === null || reference === null) {
  return { score: null, reason: "Cannot tell: actual_output or reference_output text is missing." };
}
