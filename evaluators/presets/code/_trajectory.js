const OK_STATUSES = ["ok", "success", "succeeded"];
const ERROR_STATUSES = ["error", "failed", "failure"];

// include _field_text.js

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
