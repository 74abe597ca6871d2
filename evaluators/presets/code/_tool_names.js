// Tool names from a list, a JSON list, or comma/newline separated text; no duplicates.
function nameList(value) {
  let items = Array.isArray(value) ? value : null;
  const text = items !== null ? "" : String(value || "").trim();
  if (items === null && text.startsWith("[")) {
    try {
      items = JSON.parse(text);
    } catch (e) {
      items = null;
    }
  }
  if (!Array.isArray(items)) {
    items = text.split(/[,\n]/);
  }
  const names = [];
  for (const item of items) {
    const name = typeof item === "string" ? item.trim() : "";
    if (name && !names.includes(name)) {
      names.push(name);
    }
  }
  return names;
}
