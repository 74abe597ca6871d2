# Required tool calls made: the share of the tools listed in ext["required_tools"] (a JSON list
# or comma separated names) that the trajectory calls at least once. Unknown (None) when no
# required tools are given or the trajectory is missing, unparseable or empty.
import json
import re

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


def name_list(value):
    """Tool names from a list, a JSON list, or comma/newline separated text; no duplicates."""
    items = value if isinstance(value, list) else None
    text = "" if items is not None else str(value or "").strip()
    if items is None and text.startswith("["):
        try:
            items = json.loads(text)
        except ValueError:
            items = None
    if not isinstance(items, list):
        items = re.split(r"[,\n]", text)
    names = []
    for item in items:
        name = item.strip() if isinstance(item, str) else ""
        if name and name not in names:
            names.append(name)
    return names


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
