// No failed calls: 1.0 when every tool call in the trajectory reports status "ok", 0.0 when any
// reports "error". Unknown (null) when the trajectory is missing or has no tool calls, or when
// no call failed but some calls do not report a status.

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

function exec_evaluation(turn) {
  const loaded = loadSteps(turn);
  if (loaded.problem) {
    return { score: null, reason: "Cannot tell: " + loaded.problem + "." };
  }
  const calls = toolCalls(loaded.steps);
  if (calls.length === 0) {
    return { score: null, reason: "Cannot tell: the trajectory has no tool calls." };
  }
  const failed = calls.filter((step) => status(step) === "error").map(callName);
  if (failed.length > 0) {
    const count = failed.length + " of " + calls.length;
    return { score: 0.0, reason: count + " tool calls failed: " + failed.join(", ") + "." };
  }
  const unreported = calls.filter((step) => status(step) === "").map(callName);
  if (unreported.length > 0) {
    return { score: null, reason: "Cannot tell: calls without a status: " + unreported.join(", ") + "." };
  }
  return { score: 1.0, reason: "All " + calls.length + " tool calls succeeded." };
}
