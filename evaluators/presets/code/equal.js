// Equal: 1.0 when the output equals the reference, ignoring surrounding whitespace.

function fieldText(turn, group, name) {
  const content = (turn[group] || {})[name] || {};
  return typeof content.text === "string" ? content.text : null;
}

function exec_evaluation(turn) {
  const output = fieldText(turn, "evaluate_target_output_fields", "actual_output");
  const reference = fieldText(turn, "evaluate_dataset_fields", "reference_output");
  if (output === null || reference === null) {
    return { score: null, reason: "Cannot tell: actual_output or reference_output text is missing." };
  }
  if (output.trim() === reference.trim()) {
    return { score: 1.0, reason: "The output equals the reference." };
  }
  return { score: 0.0, reason: "The output differs from the reference." };
}
