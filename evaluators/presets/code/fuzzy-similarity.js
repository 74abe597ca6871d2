// Fuzzy similarity: the similarity of the output to the reference, from 0.0 to 1.0, as a
// Levenshtein ratio, 1 - distance / longer length, over code points of the trimmed texts.
// (The Python version uses difflib's ratio, so the two agree at 0 and 1 but may differ in between.)

// include _field_text.js

function levenshtein(a, b) {
  let previous = Array.from({ length: b.length + 1 }, (unused, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      current.push(Math.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost));
    }
    previous = current;
  }
  return previous[b.length];
}

function exec_evaluation(turn) {
  // include _output_and_reference.js
  const a = Array.from(output.trim());
  const b = Array.from(reference.trim());
  const longest = Math.max(a.length, b.length);
  const ratio = longest === 0 ? 1.0 : 1 - levenshtein(a, b) / longest;
  return { score: ratio, reason: "Similarity ratio " + Math.round(ratio * 1000) / 1000 + "." };
}
