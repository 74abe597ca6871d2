loaded = load_steps(turn)
if "problem" in loaded:
    return EvalOutput(score=None, reason="Cannot tell: " + loaded["problem"] + ".")
calls = tool_calls(loaded["steps"])
if not calls:
    return EvalOutput(score=None, reason="Cannot tell: the trajectory has no tool calls.")
