"""The evaluators an old openai/evals registry eval becomes: configs only, no database.

Match, Includes and FuzzyMatch grade the sampled text against the sample's `ideal` (one text
or a list): Match passes when the text starts with any ideal (`record_and_check_match`),
Includes when any ideal occurs in it (optionally ignoring case), FuzzyMatch when, after
lower-casing and removing punctuation, the articles a/an/the and extra spaces, either text
contains the other (empty only matches empty). With one ideal a row, Match and a
case-sensitive Includes are the metric kind's `starts_with` and `contains`; otherwise a small
Python evaluator does exactly the check over every ideal. The model-graded `fact` and
`closedqa` specs become LLM judges with our own prompts built on the same choices.
"""

from __future__ import annotations

TEXT = "Text"
OUTPUT = {
    "name": "actual_output",
    "content_type": TEXT,
    "required": True,
    "description": "The sampled answer (the target's output).",
}
REFERENCE = {
    "name": "reference_output",
    "content_type": TEXT,
    "required": False,
    "description": "The sample's ideal answer (the first, when it lists several).",
}
IDEALS = {
    "name": "ideals",
    "content_type": TEXT,
    "required": False,
    "description": "Every ideal answer of the sample, as a JSON list.",
}
PASS_AT_ONE = {"kind": "threshold", "threshold": 1.0}

CHECKS = {
    "starts_with": "output.startswith(ideal)",
    "includes": "ideal in output",
    "includes_ignore_case": "ideal.lower() in output.lower()",
    "fuzzy": "fuzzy(output, ideal)",
}

CODE = """\
# Imported from an openai/evals registry eval ({title}): passes when {meaning}.
import json
import re
import string

PUNCTUATION = set(string.punctuation)


def text(turn, name):
    for group in ("evaluate_target_output_fields", "evaluate_dataset_fields"):
        content = (turn.get(group) or {{}}).get(name)
        if isinstance(content, dict):
            return content.get("text")
    return None


def normalized(value):
    value = "".join(ch for ch in value.lower() if ch not in PUNCTUATION)
    return " ".join(re.sub(r"\\b(a|an|the)\\b", " ", value).split())


def fuzzy(first, second):
    first, second = normalized(first), normalized(second)
    if not first or not second:
        return first == second
    return first in second or second in first


def exec_evaluation(turn):
    output = text(turn, "actual_output")
    if output is None:
        return EvalOutput(score=None, reason="Cannot tell: there is no output.")
    listed = text(turn, "ideals")
    ideals = json.loads(listed) if listed else None
    if ideals is None:
        single = text(turn, "reference_output")
        if single is None:
            return EvalOutput(score=None, reason="Cannot tell: the row has no ideal answer.")
        ideals = [single]
    for ideal in ideals:
        if {check}:
            return EvalOutput(score=1.0, reason="Matches the ideal " + json.dumps(ideal)[:200])
    return EvalOutput(score=0.0, reason="Matches none of the %d ideal answers." % len(ideals))
"""

MEANINGS = {
    "starts_with": "the output starts with one of the ideal answers",
    "includes": "one of the ideal answers occurs in the output",
    "includes_ignore_case": "one of the ideal answers occurs in the output, ignoring case",
    "fuzzy": "the output and an ideal answer, normalized, contain one another",
}


def code_config(check: str, title: str, *, has_ideals: bool) -> dict:
    source = CODE.format(title=title, meaning=MEANINGS[check], check=CHECKS[check])
    variables = [OUTPUT, REFERENCE] + ([IDEALS] if has_ideals else [])
    return {"input_variables": variables, "language": "python", "source": source}


def metric_config(metric: str, *, case_sensitive: bool = True) -> dict:
    return {
        "input_variables": [OUTPUT, {**REFERENCE, "required": True}],
        "metric": metric,
        "output_variable": "actual_output",
        "reference_variable": "reference_output",
        "options": {"case_sensitive": case_sensitive},
    }


# --------------------------------------------------------------------------- judges

FACT_SYSTEM = """\
You check the facts of an answer against an expert's answer to the same question. Style, \
wording, grammar and punctuation do not count, only factual content.

Decide which one of these holds:
(A) the answer states part of what the expert says and nothing against it;
(B) the answer states everything the expert says, adds more, and nothing against it;
(C) the answer states the same details as the expert;
(D) the answer and the expert disagree on some fact;
(E) they differ, but not in any way that matters for the facts.

Score 1 for A, B, C or E and 0 for D. Reply with only a JSON object, the reason first and \
starting with the letter you chose:
{"reason": "<letter>: <one or two sentences>", "score": <1 or 0>}"""

FACT_USER = """\
<question>
{{input}}
</question>

<expert_answer>
{{reference_output}}
</expert_answer>

<answer>
{{actual_output}}
</answer>"""

CLOSEDQA_SYSTEM = """\
You decide whether an answer to a task meets one criterion. Reason about the criterion step \
by step before concluding; do not start from the conclusion.

The criterion:
{criterion}

Score 1 when the answer meets the criterion (Y) and 0 when it does not (N). Reply with only a \
JSON object, the reason first:
{{"reason": "<your reasoning, ending with Y or N>", "score": <1 or 0>}}"""

CLOSEDQA_USER = """\
<task>
{{input}}
</task>

<answer>
{{actual_output}}
</answer>"""


def judge_config(spec: str, *, input_type: str, criterion: str, model: dict) -> dict:
    """The judge for `fact` or `closedqa` (with its criterion text)."""
    variables = [
        {
            "name": "input",
            "content_type": input_type,
            "required": True,
            "description": "The sample's input (the question or task).",
        },
        {**OUTPUT},
    ]
    if spec == "fact":
        variables.append({**REFERENCE, "required": True})
        messages = [("system", FACT_SYSTEM), ("user", FACT_USER)]
    else:
        if criterion == "{{criteria}}":  # each sample's own criterion, from its column
            variables.append(
                {
                    "name": "criteria",
                    "content_type": TEXT,
                    "required": True,
                    "description": "The criterion the answer must meet.",
                }
            )
        else:
            criterion = criterion.replace("{{", "{ {")  # literal text, never a placeholder
        system = CLOSEDQA_SYSTEM.format(criterion=criterion)
        messages = [("system", system), ("user", CLOSEDQA_USER)]
    return {
        "input_variables": variables,
        "messages": [{"role": role, "content": text} for role, text in messages],
        "model": model,
    }
