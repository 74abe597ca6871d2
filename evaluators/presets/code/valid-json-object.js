// Valid JSON object: 1.0 when the whole output parses as a JSON object (not an array or scalar).

// include _field_text.js

function exec_evaluation(turn) {
  const output = fieldText(turn, "evaluate_target_output_fields", "actual_output");
  if (output === null) {
    return { score: null, reason: "Cannot tell: actual_output text is missing." };
  }
  let value;
  try {
    value = JSON.parse(output);
  } catch (e) {
    return { score: 0.0, reason: "The output is not valid JSON: " + e.message };
  }
  if (value !== null && typeof value === "object" && !Array.isArray(value)) {
    return { score: 1.0, reason: "The output is a valid JSON object." };
  }
  return { score: 0.0, reason: "The output is valid JSON but not an object." };
}
