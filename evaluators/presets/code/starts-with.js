// Starts with: 1.0 when the output begins with the reference (leading whitespace in the output
// and whitespace around the reference are ignored).

// include _field_text.js

function exec_evaluation(turn) {
  // include _output_and_reference.js
  const prefix = reference.trim();
  if (prefix === "") {
    return { score: null, reason: "Cannot tell: the reference prefix is empty." };
  }
  if (output.trimStart().startsWith(prefix)) {
    return { score: 1.0, reason: "The output starts with the reference." };
  }
  return { score: 0.0, reason: "The output does not start with the reference." };
}
