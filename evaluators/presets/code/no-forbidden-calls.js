// No forbidden calls: 1.0 when the trajectory never calls a tool listed in ext.forbidden_tools
// (a JSON list or comma separated names), 0.0 when it does, even if the call failed. Unknown
// (null) when no forbidden tools are given or the trajectory is missing, unparseable or empty.

const OK_STATUSES = ["ok", "success", "succeeded"];
const ERROR_STATUSES = ["error", "failed", "failure"];

function fieldText(turn, group, name) {
  const content = (turn[group] || {})[name] || {};
  return typeof content.text === "string" ? content.text : null;
}

function isObject(value) {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

// {steps: [...]} from the trajectory field, or {problem: why it cannot be used}.
function loadSteps(turn) {
  let text = fieldText(turn, "evaluate_target_output_fields", "trajectory");
  if (text === null) {
    text = fieldText(turn, "evaluate_dataset_fields", "trajectory");
  }
  if (text === null) {
    return { problem: "the turn has no trajectory field" };
  }
  let data;
  try {
    data = JSON.parse(text);
  } catch (e) {
    return { problem: "the trajectory is not valid JSON" };
  }
  if (isObject(data) && Array.isArray(data.steps)) {
    data = data.steps;
  }
  if (!Array.isArray(data) || data.length === 0) {
    return { problem: "the trajectory has no steps" };
  }
  return { steps: data.filter(isObject) };
}

function toolCalls(steps) {
  return steps.filter((step) => step.type === "tool_call");
}

function callName(step) {
  return typeof step.name === "string" ? step.name : "";
}

// "ok", "error", or "" when the step does not say.
function status(step) {
  const value = String(step.status || "").toLowerCase();
  if (OK_STATUSES.includes(value)) {
    return "ok";
  }
  return ERROR_STATUSES.includes(value) ? "error" : "";
}

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

function exec_evaluation(turn) {
  const forbidden = nameList((turn.ext || {}).forbidden_tools);
  if (forbidden.length === 0) {
    return { score: null, reason: "Cannot tell: ext has no forbidden_tools to check." };
  }
  const loaded = loadSteps(turn);
  if (loaded.problem) {
    return { score: null, reason: "Cannot tell: " + loaded.problem + "." };
  }
  const called = toolCalls(loaded.steps).map(callName);
  const hits = forbidden.filter((name) => called.includes(name));
  if (hits.length > 0) {
    return { score: 0.0, reason: "Forbidden tools were called: " + hits.join(", ") + "." };
  }
  return { score: 1.0, reason: "None of the " + called.length + " tool calls is forbidden." };
}
