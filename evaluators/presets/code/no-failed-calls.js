// No failed calls: 1.0 when every tool call in the trajectory reports status "ok", 0.0 when any
// reports "error". Unknown (null) when the trajectory is missing or has no tool calls, or when
// no call failed but some calls do not report a status.

// include _trajectory.js

function exec_evaluation(turn) {
  // include _tool_calls.js
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
