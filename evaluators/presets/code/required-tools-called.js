// Required tool calls made: the share of the tools listed in ext.required_tools (a JSON list
// or comma separated names) that the trajectory calls at least once. Unknown (null) when no
// required tools are given or the trajectory is missing, unparseable or empty.

// include _trajectory.js

// include _tool_names.js

function exec_evaluation(turn) {
  const required = nameList((turn.ext || {}).required_tools);
  if (required.length === 0) {
    return { score: null, reason: "Cannot tell: ext has no required_tools to check." };
  }
  const loaded = loadSteps(turn);
  if (loaded.problem) {
    return { score: null, reason: "Cannot tell: " + loaded.problem + "." };
  }
  const called = toolCalls(loaded.steps).map(callName);
  const missing = required.filter((name) => !called.includes(name));
  const score = (required.length - missing.length) / required.length;
  if (missing.length > 0) {
    return { score: score, reason: "Required tools never called: " + missing.join(", ") + "." };
  }
  return { score: 1.0, reason: "Every required tool was called: " + required.join(", ") + "." };
}
