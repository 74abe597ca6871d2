OK_STATUSES = ["ok", "success", "succeeded"]
ERROR_STATUSES = ["error", "failed", "failure"]


# include _field_text.py


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
