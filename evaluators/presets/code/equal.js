// Equal: 1.0 when the output equals the reference, ignoring surrounding whitespace.

// include _field_text.js

function exec_evaluation(turn) {
  // include _output_and_reference.js
  if (output.trim() === reference.trim()) {
    return { score: 1.0, reason: "The output equals the reference." };
  }
  return { score: 0.0, reason: "The output differs from the reference." };
}
