# Required tool calls made: the share of the tools listed in ext["required_tools"] (a JSON list
# or comma separated names) that the trajectory calls at least once. Unknown (None) when no
# required tools are given or the trajectory is missing, unparseable or empty.
import json
import re

# include _trajectory.py


# include _tool_names.py


def exec_evaluation(turn):
    required = name_list((turn.get("ext") or {}).get("required_tools"))
    if not required:
        return EvalOutput(score=None, reason="Cannot tell: ext has no required_tools to check.")
    loaded = load_steps(turn)
    if "problem" in loaded:
        return EvalOutput(score=None, reason="Cannot tell: " + loaded["problem"] + ".")
    called = [call_name(step) for step in tool_calls(loaded["steps"])]
    missing = [name for name in required if name not in called]
    score = (len(required) - len(missing)) / len(required)
    if missing:
        return EvalOutput(
            score=score, reason="Required tools never called: " + ", ".join(missing) + "."
        )
    return EvalOutput(
        score=1.0, reason="Every required tool was called: " + ", ".join(required) + "."
    )
