// Starts with: 1.0 when the output begins with the reference (leading whitespace in the output
// and whitespace around the reference are ignored).

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
  const prefix = reference.trim();
  if (prefix === "") {
    return { score: null, reason: "Cannot tell: the reference prefix is empty." };
  }
  if (output.trimStart().startsWith(prefix)) {
    return { score: 1.0, reason: "The output starts with the reference." };
  }
  return { score: 0.0, reason: "The output does not start with the reference." };
}
