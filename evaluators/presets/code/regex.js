// Regex: 1.0 when the reference, read as a regular expression, matches somewhere in the output.
// Set ext["ignore_case"] to "true" for a case-insensitive match.

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
  const pattern = reference.replace(/^[\r\n]+|[\r\n]+$/g, "");
  const ignoreCase = String((turn.ext || {}).ignore_case || "").toLowerCase() === "true";
  let compiled;
  try {
    compiled = new RegExp(pattern, ignoreCase ? "i" : "");
  } catch (e) {
    return { score: null, reason: "Cannot tell: the reference is not a valid pattern: " + e.message };
  }
  if (compiled.test(output)) {
    return { score: 1.0, reason: "The output matches the pattern " + pattern + "." };
  }
  return { score: 0.0, reason: "The output does not match the pattern " + pattern + "." };
}
