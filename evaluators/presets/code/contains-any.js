// Contains any: 1.0 when the output contains at least one candidate string from the reference.
// The reference is a JSON list of strings, or candidates separated by commas or new lines.

// include _field_text.js

function candidates(reference) {
  const text = reference.trim();
  if (text.startsWith("[")) {
    let items = null;
    try {
      items = JSON.parse(text);
    } catch (e) {
      items = null;
    }
    if (Array.isArray(items)) {
      return items.filter((item) => typeof item === "string" && item !== "");
    }
  }
  return text.split(/[,\n]/).map((part) => part.trim()).filter((part) => part !== "");
}

function exec_evaluation(turn) {
  // include _output_and_reference.js
  const options = candidates(reference);
  if (options.length === 0) {
    return { score: null, reason: "Cannot tell: the reference lists no candidate strings." };
  }
  for (const option of options) {
    if (output.includes(option)) {
      return { score: 1.0, reason: "The output contains " + JSON.stringify(option) + "." };
    }
  }
  return { score: 0.0, reason: "The output contains none of " + JSON.stringify(options) + "." };
}
