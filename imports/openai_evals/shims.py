"""The sandbox source that runs OpenAI's python and multi graders unchanged."""

# The shim around a python grader: its source runs unchanged; `grade(sample, item)` gets
# what OpenAI gave it, rebuilt from the row.
PYTHON_SHIM = """

import json


def openai_sample(turn):
    output = (turn["evaluate_target_output_fields"].get("actual_output") or {}).get("text")
    raw = (turn["evaluate_dataset_fields"].get("openai_output_json") or {}).get("text")
    return {"output_text": output, "output_json": json.loads(raw) if raw else None}


def openai_item(turn):
    return json.loads(turn["evaluate_dataset_fields"]["openai_item"]["text"])
"""

PYTHON_EXEC = """

def exec_evaluation(turn):
    score = grade(openai_sample(turn), openai_item(turn))
    return EvalOutput(score=float(score), reason="grade(sample, item) returned %r" % (score,))
"""

# A multi grader's formula over its parts' scores, the parts computed in the sandbox.
MULTI_EXEC = """

import math


def openai_string_check(op, text, reference):
    text, reference = text or "", reference or ""
    return float({
        "eq": text == reference,
        "ne": text != reference,
        "like": reference in text,
        "ilike": reference.lower() in text.lower(),
    }[op])


def openai_render(template, turn):
    import re
    fields = dict(turn["evaluate_dataset_fields"])
    fields.update(turn["evaluate_target_output_fields"])

    def value(match):
        return (fields.get(match.group(1)) or {}).get("text") or ""

    return re.sub(r"\\{\\{\\s*([A-Za-z_][\\w]*)\\s*\\}\\}", value, template)


def exec_evaluation(turn):
    scores = {}
    for name, part in PARTS.items():
        if part["type"] == "python":
            scores[name] = float(part["grade"](openai_sample(turn), openai_item(turn)))
        else:
            text = openai_render(part["input"], turn)
            reference = openai_render(part["reference"], turn)
            scores[name] = openai_string_check(part["operation"], text, reference)
    score = formula(scores)
    return EvalOutput(score=float(score), reason="%s = %r with %r" % (FORMULA, score, scores))
"""
