# No failed calls: 1.0 when every tool call in the trajectory reports status "ok", 0.0 when any
# reports "error". Unknown (None) when the trajectory is missing or has no tool calls, or when
# no call failed but some calls do not report a status.
import json

OK_STATUSES = ["ok", "success", "succeeded"]
ERROR_STATUSES = ["error", "failed", "failure"]


def field_text(turn, group, name):
    """The text of a Text field, or None when the field is missing."""
    content = (turn.get(group) or {}).get(name) or {}
    text = content.get("text")
    return text if isinstance(text, str) else None


def load_steps(turn):
    """{"steps": [...]} from the trajectory field, or {"problem": why it cannot be used}."""
    text = field_text(turn, "evaluate_target_output_fields", "trajectory")
    if text is None:
        text = field_text(turn, "evaluate_dataset_fields", "trajectory")
    if text is None:
        return {"problem": "the turn has no trajectory field"}
    try:
        data = json.loads(text)
    except ValueError:
        return {"problem": "the trajectory is not valid JSON"}
    if isinstance(data, dict) and isinstance(data.get("steps"), list):
        data = data["steps"]
    if not isinstance(data, list) or not data:
        return {"problem": "the trajectory has no steps"}
    return {"steps": [step for step in data if isinstance(step, dict)]}


def tool_calls(steps):
    return [step for step in steps if step.get("type") == "tool_call"]


def call_name(step):
    name = step.get("name")
    return name if isinstance(name, str) else ""


def status(step):
    """ "ok", "error", or "" when the step does not say."""
    value = str(step.get("status") or "").lower()
    if value in OK_STATUSES:
        return "ok"
    if value in ERROR_STATUSES:
        return "error"
    return ""


def exec_evaluation(turn):
    loaded = load_steps(turn)
    if "problem" in loaded:
        return EvalOutput(score=None, reason="Cannot tell: " + loaded["problem"] + ".")
    calls = tool_calls(loaded["steps"])
    if not calls:
        return EvalOutput(score=None, reason="Cannot tell: the trajectory has no tool calls.")
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
