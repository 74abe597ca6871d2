// Length bounds: 1.0 when the output's length is within ext.min_length and/or ext.max_length
// (inclusive). Length counts characters (code points) of the trimmed output, or words when
// ext.unit is "words". With neither bound set the answer is unknown.

// include _field_text.js

function bound(ext, key) {
  const value = ext[key];
  if (value === undefined || value === null || String(value).trim() === "") {
    return null;
  }
  const text = String(value).trim();
  return /^[0-9]+$/.test(text) ? parseInt(text, 10) : -1;
}

function exec_evaluation(turn) {
  const output = fieldText(turn, "evaluate_target_output_fields", "actual_output");
  if (output === null) {
    return { score: null, reason: "Cannot tell: actual_output text is missing." };
  }
  const ext = turn.ext || {};
  const low = bound(ext, "min_length");
  const high = bound(ext, "max_length");
  if (low === null && high === null) {
    return { score: null, reason: "Cannot tell: set ext min_length and/or max_length." };
  }
  if (low === -1 || high === -1) {
    return { score: null, reason: "Cannot tell: min_length/max_length must be whole numbers." };
  }
  const words = String(ext.unit || "").toLowerCase() === "words";
  const trimmed = output.trim();
  const length = words
    ? trimmed.split(/\s+/).filter((word) => word !== "").length
    : Array.from(trimmed).length;
  const unit = words ? "words" : "characters";
  if ((low !== null && length < low) || (high !== null && length > high)) {
    return { score: 0.0, reason: "Length " + length + " " + unit + " is out of bounds." };
  }
  return { score: 1.0, reason: "Length " + length + " " + unit + " is within bounds." };
}
