// Regex: 1.0 when the reference, read as a regular expression, matches somewhere in the output.
// Set ext["ignore_case"] to "true" for a case-insensitive match.

// include _field_text.js

function exec_evaluation(turn) {
  // include _output_and_reference.js
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
