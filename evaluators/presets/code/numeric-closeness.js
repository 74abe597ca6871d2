// Numeric closeness: 1.0 when the number in the output is close to the reference number.
// |a - b| <= max(rel_tol * max(|a|, |b|), abs_tol), with ext.rel_tol (default 1e-6) and
// ext.abs_tol (default 0). The output may be a bare number or text: then its last number counts.

const NUMBER = "[+-]?(?:\\d+\\.?\\d*|\\.\\d+)(?:[eE][+-]?\\d+)?";

// include _field_text.js

function strictNumber(text) {
  const trimmed = String(text).trim();
  return new RegExp("^" + NUMBER + "$").test(trimmed) ? Number(trimmed) : null;
}

function lastNumber(text) {
  const found = text.match(new RegExp(NUMBER, "g"));
  return found ? Number(found[found.length - 1]) : null;
}

function tolerance(ext, key, fallback) {
  if (!(key in ext)) {
    return fallback;
  }
  const value = strictNumber(ext[key]);
  return value !== null && value >= 0 ? value : null;
}

function exec_evaluation(turn) {
  // include _output_and_reference.js
  const expected = strictNumber(reference);
  const ext = turn.ext || {};
  const relTol = tolerance(ext, "rel_tol", 1e-6);
  const absTol = tolerance(ext, "abs_tol", 0.0);
  if (expected === null || relTol === null || absTol === null) {
    return { score: null, reason: "Cannot tell: the reference or a tolerance is not a number." };
  }
  let actual = strictNumber(output);
  if (actual === null) {
    actual = lastNumber(output);
  }
  if (actual === null) {
    return { score: 0.0, reason: "The output contains no number." };
  }
  const allowed = Math.max(relTol * Math.max(Math.abs(actual), Math.abs(expected)), absTol);
  if (actual === expected || Math.abs(actual - expected) <= allowed) {
    return { score: 1.0, reason: "Output " + actual + " is close to " + expected + "." };
  }
  return { score: 0.0, reason: "Output " + actual + " is not close to " + expected + "." };
}
