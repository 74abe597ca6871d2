# No failed calls: 1.0 when every tool call in the trajectory reports status "ok", 0.0 when any
# reports "error". Unknown (None) when the trajectory is missing or has no tool calls, or when
# no call failed but some calls do not report a status.
import json

# include _trajectory.py


def exec_evaluation(turn):
    # include _tool_calls.py
    failed = [call_name(step) for step in calls if status(step) == "error"]
    if failed:
        count = str(len(failed)) + " of " + str(len(calls))
        return EvalOutput(
            score=0.0, reason=count + " tool calls failed: " + ", ".join(failed) + "."
        )
    unreported = [call_name(step) for step in calls if status(step) == ""]
    if unreported:
        names = ", ".join(unreported)
        return EvalOutput(score=None, reason="Cannot tell: calls without a status: " + names + ".")
    return EvalOutput(score=1.0, reason="All " + str(len(calls)) + " tool calls succeeded.")
