"""What the graders of an OpenAI eval become: a plan of derived columns and one evaluator
spec a grader (string checks, similarity metrics, label and score model judges, python graders
and multi graders run in the sandbox), or a line of the report saying why one has no
counterpart."""

from __future__ import annotations

import ast
import json
import keyword
import re

from ..kinds import Report
from .shims import MULTI_EXEC, PYTHON_EXEC, PYTHON_SHIM

ITEM_COLUMN, OUTPUT_JSON_COLUMN = "openai_item", "openai_output_json"
OUTPUT = "actual_output"
PLACEHOLDER = re.compile(r"\{\{\s*([A-Za-z_][\w.]*)\s*\}\}")
STRING_CHECK = {"eq": "exact_match", "ne": "not_equal", "like": "like", "ilike": "ilike"}
SIMILARITY = {
    "fuzzy_match": "fuzzy_match",
    "bleu": "bleu",
    "gleu": "gleu",
    "meteor": "meteor",
    "cosine": "embedding_cosine",
    **{f"rouge_{n}": f"rouge_{n}" for n in (1, 2, 3, 4, 5)},
    "rouge_l": "rouge_l",
}
ROLES = {"system": "system", "developer": "system", "user": "user"}


def schema_properties(definition: dict) -> dict:
    config = definition["data_source_config"]
    schema = config.get("item_schema") or config.get("schema") or {}
    # a "custom" config with include_sample_schema nests the item under "item"
    properties = schema.get("properties") or {}
    if set(properties) <= {"item", "sample"} and isinstance(properties.get("item"), dict):
        properties = properties["item"].get("properties") or {}
    return properties if isinstance(properties, dict) else {}


# ----------------------------------------------------------------------------- planning


class Plan:
    """What the graders need: columns derived from template paths, and each evaluator."""

    def __init__(self, definition: dict, rows: list[dict]):
        self.definition = definition
        self.properties = schema_properties(definition)
        self.paths: dict[str, str] = {}  # derived column → template path
        self.evaluators: list[dict] = []
        self.rows = rows

    def graders(self):
        for index, grader in enumerate(self.definition["testing_criteria"]):
            yield grader, f"testing_criteria[{index}]"

    def variable(self, path: str) -> str:
        """The Assay variable a template path becomes (and the column it reads)."""
        if path == "sample.output_text":
            return OUTPUT
        head, _dot, rest = path.partition(".")
        if head == "item" and rest and "." not in rest:
            return column_name(rest)
        column = column_name(path.replace(".", "_"))
        self.paths[column] = path
        return column

    def rewrite(self, template: str) -> tuple[str, list[str]]:
        """The template with Assay placeholders, and the variables it reads."""
        names: list[str] = []

        def replace(match):
            name = self.variable(match.group(1))
            names.append(name)
            return "{{" + name + "}}"

        return PLACEHOLDER.sub(replace, template), names

    def add(self, grader, where: str, report: Report) -> None:
        if not isinstance(grader, dict):
            report.unmapped(where, "not a grader object")
            return
        label = f"{where} {grader.get('type')} “{grader.get('name', '')}”"
        handler = _HANDLERS.get(grader.get("type"))
        if handler is None:
            report.unmapped(label, f"grader type {grader.get('type')!r} has no Assay counterpart")
            return
        handler(self, grader, label, report)


def column_name(text: str) -> str:
    name = re.sub(r"[^A-Za-z0-9_]", "_", text)[:60] or "value"
    return name if name[0].isalpha() or name[0] == "_" else "v_" + name


def _text_var(name: str) -> dict:
    return {"name": name, "content_type": "Text", "required": name == OUTPUT, "description": ""}


def source_of(name: str) -> str:
    return "target:actual_output" if name == OUTPUT else f"column:{name}"


def _threshold(grader: dict, default: float = 0.5) -> float:
    value = grader.get("pass_threshold", default)
    return (
        float(value) if isinstance(value, int | float) and not isinstance(value, bool) else default
    )


def _metric_side(plan: Plan, template, label: str, report: Report):
    """A metric's input or reference: one placeholder → a variable; no placeholder → a fixed
    value; text mixed with placeholders cannot be a metric's operand."""
    if not isinstance(template, str):
        return None
    whole = PLACEHOLDER.fullmatch(template.strip())
    if whole:
        return ("variable", plan.variable(whole.group(1)))
    if not PLACEHOLDER.search(template):
        return ("value", template)
    report.unmapped(
        label,
        f"a metric compares two fields; text mixed with placeholders ({template!r}) is not one",
    )
    return None


def _metric(plan: Plan, grader: dict, label: str, report: Report, metric: str, options=None):
    output = _metric_side(plan, grader.get("input"), label, report)
    reference = _metric_side(plan, grader.get("reference"), label, report)
    if output is None or reference is None:
        return
    if output[0] != "variable":
        report.unmapped(label, "the graded text is a fixed string, not a field")
        return
    config = {"metric": metric, "output_variable": output[1], "options": options or {}}
    names = [output[1]]
    if reference[0] == "variable":
        config["reference_variable"], config["reference_value"] = reference[1], None
        names.append(reference[1])
    else:
        config["reference_variable"], config["reference_value"] = None, reference[1]
    config["input_variables"] = [_text_var(n) for n in dict.fromkeys(names)]
    plan.evaluators.append(
        {
            "label": label,
            "grader": grader,
            "kind": "metric",
            "config": config,
            "threshold": _threshold(grader),
            "became": f"metric {metric}",
        }
    )


def _string_check(plan: Plan, grader: dict, label: str, report: Report) -> None:
    metric = STRING_CHECK.get(grader.get("operation"))
    if metric is None:
        report.unmapped(
            label, f"operation {grader.get('operation')!r} is not eq, ne, like or ilike"
        )
        return
    _metric(plan, {**grader, "pass_threshold": 0.5}, label, report, metric)


def _text_similarity(plan: Plan, grader: dict, label: str, report: Report) -> None:
    metric = SIMILARITY.get(grader.get("evaluation_metric"))
    if metric is None:
        report.unmapped(label, f"evaluation_metric {grader.get('evaluation_metric')!r} is unknown")
        return
    _metric(plan, grader, label, report, metric)


def _messages(plan: Plan, grader: dict, label: str, report: Report):
    messages, names = [], []
    for index, message in enumerate(grader.get("input") or []):
        if not isinstance(message, dict):
            continue
        role = ROLES.get(message.get("role"))
        content = _content_text(message.get("content"))
        if role is None or content is None:
            report.unmapped(
                f"{label} input[{index}]",
                "only system, developer and user text messages become judge messages",
            )
            return None, []
        text, read = plan.rewrite(content)
        messages.append({"role": role, "content": text})
        names += read
    return messages, names


TEXT_PARTS = ("input_text", "output_text", "text")


def _content_text(content) -> str | None:
    """A grader message's text: a string, a text part ({"type": "input_text", "text": …}) or a
    list of text parts, joined by lines as the model reads them one after the other; None for
    anything else (an image or audio part)."""
    parts = content if isinstance(content, list) else [content]
    texts = []
    for part in parts:
        if isinstance(part, dict) and part.get("type", "input_text") in TEXT_PARTS:
            part = part.get("text")
        if not isinstance(part, str):
            return None
        texts.append(part)
    return "\n".join(texts) if texts else None


def _judge(plan, grader, label, report, instruction: str, threshold: float, became: str):
    messages, names = _messages(plan, grader, label, report)
    if not messages or not any(m["role"] == "user" for m in messages):
        report.unmapped(label, "a judge needs at least one user message")
        return
    messages = _instructed(messages, instruction)
    config = {
        "input_variables": [_text_var(n) for n in dict.fromkeys(names)],
        "messages": messages,
        "model": {"provider_id": "", "model": str(grader.get("model") or "")},
    }
    plan.evaluators.append(
        {
            "label": label,
            "grader": grader,
            "kind": "llm",
            "config": config,
            "threshold": threshold,
            "became": became,
        }
    )


def _instructed(messages: list[dict], instruction: str) -> list[dict]:
    """The grader's messages with our instruction at the end of its first system message (one
    added before the others when it has none): a system message after the user's is refused
    by some chat templates, and the judge's answer format (reason, score) is asked there too."""
    for index, message in enumerate(messages):
        if message["role"] == "system":
            joined = {
                "role": "system",
                "content": f"{message['content'].rstrip()}\n\n{instruction}",
            }
            return [*messages[:index], joined, *messages[index + 1 :]]
    return [{"role": "system", "content": instruction}, *messages]


def _label_model(plan: Plan, grader: dict, label: str, report: Report) -> None:
    labels, passing = grader.get("labels") or [], grader.get("passing_labels") or []
    # the label goes in the reason: the judge's answer is {"reason", "score"}, and a strict
    # JSON schema (the json_schema mode) refuses any other key
    instruction = (
        f"Choose exactly one label from {json.dumps(labels, ensure_ascii=False)}. Begin your "
        "reason with the label you chose. The score is 1 when that label is one of "
        f"{json.dumps(passing, ensure_ascii=False)}, else 0."
    )
    _judge(
        plan,
        grader,
        label,
        report,
        instruction,
        0.5,
        f"LLM judge: labels {', '.join(map(str, labels))}; passing {', '.join(map(str, passing))}",
    )


def _score_model(plan: Plan, grader: dict, label: str, report: Report) -> None:
    low, high = (grader.get("range") or [0, 1])[:2]
    span = (high - low) or 1
    instruction = (
        f"Grade from {low} to {high}. Begin your reason with your grade. The score is "
        f"(grade - {low}) / {span}, from 0 to 1."
    )
    threshold = (_threshold(grader, (low + high) / 2) - low) / span
    _judge(
        plan,
        grader,
        label,
        report,
        instruction,
        threshold,
        f"LLM judge: range {low}–{high} scaled to 0–1, pass at {threshold:g}",
    )


def _python(plan: Plan, grader: dict, label: str, report: Report) -> None:
    source = grader.get("source")
    if not isinstance(source, str) or "def grade" not in source:
        report.unmapped(label, "no grade(sample, item) in its source")
        return
    _code(
        plan,
        grader,
        label,
        source + PYTHON_SHIM + PYTHON_EXEC,
        "code evaluator (its source, unchanged, called through a shim)",
    )


def _code(plan: Plan, grader: dict, label: str, source: str, became: str, reads=()) -> None:
    names = dict.fromkeys([OUTPUT, ITEM_COLUMN, OUTPUT_JSON_COLUMN, *reads])
    variables = [{**_text_var(n), "required": n in (OUTPUT, ITEM_COLUMN)} for n in names]
    config = {
        "input_variables": variables,
        "language": "python",
        "source": source,
        "timeout_s": 5.0,
        "memory_mb": 256,
    }
    plan.evaluators.append(
        {
            "label": label,
            "grader": grader,
            "kind": "code",
            "config": config,
            "threshold": _threshold(grader),
            "became": became,
        }
    )


def _multi(plan: Plan, grader: dict, label: str, report: Report) -> None:
    parts = grader.get("graders") or {}
    if not isinstance(parts, dict) or not parts:
        report.unmapped(label, "no parts under graders")
        return
    for name, part in parts.items():
        plan.add(part, f"{label} part {name}", report)
    computable = all(
        isinstance(p, dict) and p.get("type") in ("python", "string_check") for p in parts.values()
    )
    formula = grader.get("calculate_output")
    if not computable:
        report.unmapped(
            f"{label} calculate_output",
            "the formula is computed in the sandbox "
            "only over python and string_check parts; its parts stand alone",
        )
        return
    if not _formula_ok(formula, set(parts)):
        report.unmapped(
            f"{label} calculate_output",
            f"{formula!r} is not an arithmetic formula over the parts' names",
        )
        return
    source, reads = _multi_source(plan, parts, formula)
    _code(plan, grader, label, source, f"code evaluator: {formula}", reads)


def _multi_source(plan: Plan, parts: dict, formula: str) -> tuple[str, list[str]]:
    sources, entries, reads = [], [], []
    for index, (name, part) in enumerate(parts.items()):
        if part["type"] == "python":
            sources.append(part["source"] + f"\n\nopenai_grade_{index} = grade\n")
            entries.append(f'{name!r}: {{"type": "python", "grade": openai_grade_{index}}}')
        else:
            text, read = plan.rewrite(part.get("input", ""))
            reference, read_too = plan.rewrite(part.get("reference", ""))
            reads += read + read_too
            entries.append(
                repr(name)
                + ": "
                + repr(
                    {
                        "type": "string_check",
                        "input": text,
                        "reference": reference,
                        "operation": part.get("operation"),
                    }
                )
            )
    head = "\n".join(sources) + PYTHON_SHIM
    local = "".join(f"    {name} = scores[{name!r}]\n" for name in parts)
    body = (
        f"\nFORMULA = {formula!r}\nPARTS = {{{', '.join(entries)}}}\n\n\n"
        f"def formula(scores):\n{FUNCTIONS}{local}    return {formula}\n"
    )
    return head + body + MULTI_EXEC, reads


FUNCTIONS = "".join(
    f"    {name} = math.{name}\n" for name in ("floor", "ceil", "exp", "sqrt", "log")
)
FORMULA_NODES = (
    ast.Expression,
    ast.BinOp,
    ast.UnaryOp,
    ast.Constant,
    ast.Name,
    ast.Call,
    ast.Load,
    ast.operator,
    ast.unaryop,
)
FORMULA_FUNCTIONS = {"min", "max", "abs", "floor", "ceil", "exp", "sqrt", "log"}


def _formula_ok(formula, parts: set[str]) -> bool:
    """OpenAI's calculate_output: arithmetic over the parts' names and a few functions; checked
    here so that it can be written into the evaluator's source as Python."""
    if not isinstance(formula, str) or len(formula) > 2000:
        return False
    if not all(
        p.isidentifier() and not p.startswith("_") and not keyword.iskeyword(p) for p in parts
    ):
        return False
    try:
        tree = ast.parse(formula, mode="eval")
    except SyntaxError:
        return False
    for node in ast.walk(tree):
        if not isinstance(node, FORMULA_NODES):
            return False
        if isinstance(node, ast.Constant) and not isinstance(node.value, int | float):
            return False
        if isinstance(node, ast.Name) and node.id not in parts | FORMULA_FUNCTIONS:
            return False
        if isinstance(node, ast.Call) and (node.keywords or not isinstance(node.func, ast.Name)):
            return False
    return True


_HANDLERS = {
    "string_check": _string_check,
    "text_similarity": _text_similarity,
    "label_model": _label_model,
    "score_model": _score_model,
    "python": _python,
    "multi": _multi,
}
