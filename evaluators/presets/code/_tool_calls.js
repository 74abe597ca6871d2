const loaded = loadSteps(turn);
if (loaded.problem) {
  return { score: null, reason: "Cannot tell: " + loaded.problem + "." };
}
const calls = toolCalls(loaded.steps);
if (calls.length === 0) {
  return { score: null, reason: "Cannot tell: the trajectory has no tool calls." };
}
