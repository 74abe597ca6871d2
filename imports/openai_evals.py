"""The OpenAI Evals importer: an eval definition (JSON) and its data (JSONL) → an evalset
version, evaluators, and (when the rows carry samples) an experiment of those outputs.

The definition's `data_source_config.item_schema` gives the columns (one per top-level
property; every column is Text, its JSON type in its description, objects and arrays as JSON
text), its `testing_criteria` the evaluators. Templates are rewritten to Assay variables:
`{{item.x}}` reads the column x, `{{sample.output_text}}` the run's output (`actual_output`),
any other path (`{{sample.output_json.x}}`, `{{item.a.b}}`) a column the import fills with that
path's value on each row. The whole item is kept as JSON in `openai_item` and the sample's
`output_json` in `openai_output_json`, which the python graders' shim hands to `grade`.

With samples, the outputs are pushed to an external-target experiment and closed: the workers
score it with the imported evaluators, as for any run.
"""

from __future__ import annotations

import ast
import json
import keyword
import re
import uuid

from django.core.exceptions import ValidationError
from django.utils.translation import gettext_lazy as _

from .kinds import FileSpec, ImporterKind, ImportProblem, Report

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
MAX_ROWS = 50_000
PUSH = 1000

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


class OpenAIEvalsImporter(ImporterKind):
    name = "openai-evals"
    label = "OpenAI Evals"
    files = (
        FileSpec(
            "definition",
            True,
            _(
                "The eval's definition (JSON: data_source_config, testing_criteria), as the "
                "Evals API returns it."
            ),
        ),
        FileSpec(
            "data",
            True,
            _(
                'The data (JSONL: one {"item": …} a line, with an optional "sample" holding '
                "output_text or output_json)."
            ),
        ),
    )

    def run(self, *, workspace, user, files, options, report):
        definition = _definition(files["definition"])
        rows = _rows(files["data"])
        plan = _Plan(definition, rows)
        for grader, where in plan.graders():
            plan.add(grader, where, report)
        version = _evalset_version(workspace, user, definition, plan, rows, report)
        made = [_evaluator(workspace, user, plan, e, options, report) for e in plan.evaluators]
        if any("sample" in row for row in rows):
            _experiment(workspace, user, definition, version, made, rows, report)
        report.lines.sort(key=_source_order)


def _source_order(line) -> tuple[int, int]:
    """The report in the definition's order: the item schema, each grader (its parts before
    it), then the samples."""
    found = re.match(r"testing_criteria\[(\d+)\]", line.source)
    if found:
        return (1, int(found.group(1)))
    return (0, 0) if line.source.startswith("data_source_config") else (2, 0)


# ----------------------------------------------------------------------------- reading


def _definition(data: bytes) -> dict:
    try:
        definition = json.loads(data)
    except (ValueError, UnicodeDecodeError) as exc:
        raise ImportProblem("definition", f"not JSON ({exc})") from None
    if not isinstance(definition, dict):
        raise ImportProblem("definition", "an eval definition is a JSON object")
    config = definition.get("data_source_config")
    if not isinstance(config, dict):
        raise ImportProblem("definition, data_source_config", "missing (an object)")
    schema = config.get("item_schema") or config.get("schema") or {}
    if not isinstance(schema, dict):
        raise ImportProblem("definition, data_source_config.item_schema", "not an object")
    if not isinstance(definition.get("testing_criteria"), list):
        raise ImportProblem("definition, testing_criteria", "missing (a list of graders)")
    return definition


def _rows(data: bytes) -> list[dict]:
    rows = []
    for number, line in enumerate(data.decode("utf-8", "replace").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except ValueError as exc:
            raise ImportProblem(f"data, line {number}", f"not JSON ({exc})") from None
        if not isinstance(row, dict) or not isinstance(row.get("item"), dict):
            raise ImportProblem(f"data, line {number}", 'a row is {"item": {…}}')
        sample = row.get("sample")
        if sample is not None and not isinstance(sample, dict):
            raise ImportProblem(f"data, line {number}", '"sample" is an object')
        rows.append(row)
        if len(rows) > MAX_ROWS:
            raise ImportProblem("data", f"more than {MAX_ROWS:,} rows")
    if not rows:
        raise ImportProblem("data", "no rows")
    return rows


def _schema_properties(definition: dict) -> dict:
    config = definition["data_source_config"]
    schema = config.get("item_schema") or config.get("schema") or {}
    # a "custom" config with include_sample_schema nests the item under "item"
    properties = schema.get("properties") or {}
    if set(properties) <= {"item", "sample"} and isinstance(properties.get("item"), dict):
        properties = properties["item"].get("properties") or {}
    return properties if isinstance(properties, dict) else {}


# ----------------------------------------------------------------------------- planning


class _Plan:
    """What the graders need: columns derived from template paths, and each evaluator."""

    def __init__(self, definition: dict, rows: list[dict]):
        self.definition = definition
        self.properties = _schema_properties(definition)
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
            return _name(rest)
        column = _name(path.replace(".", "_"))
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


def _name(text: str) -> str:
    name = re.sub(r"[^A-Za-z0-9_]", "_", text)[:60] or "value"
    return name if name[0].isalpha() or name[0] == "_" else "v_" + name


def _text_var(name: str) -> dict:
    return {"name": name, "content_type": "Text", "required": name == OUTPUT, "description": ""}


def _source_of(name: str) -> str:
    return "target:actual_output" if name == OUTPUT else f"column:{name}"


def _threshold(grader: dict, default: float = 0.5) -> float:
    value = grader.get("pass_threshold", default)
    return (
        float(value) if isinstance(value, int | float) and not isinstance(value, bool) else default
    )


def _metric_side(plan: _Plan, template, label: str, report: Report):
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


def _metric(plan: _Plan, grader: dict, label: str, report: Report, metric: str, options=None):
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


def _string_check(plan: _Plan, grader: dict, label: str, report: Report) -> None:
    metric = STRING_CHECK.get(grader.get("operation"))
    if metric is None:
        report.unmapped(
            label, f"operation {grader.get('operation')!r} is not eq, ne, like or ilike"
        )
        return
    _metric(plan, {**grader, "pass_threshold": 0.5}, label, report, metric)


def _text_similarity(plan: _Plan, grader: dict, label: str, report: Report) -> None:
    metric = SIMILARITY.get(grader.get("evaluation_metric"))
    if metric is None:
        report.unmapped(label, f"evaluation_metric {grader.get('evaluation_metric')!r} is unknown")
        return
    _metric(plan, grader, label, report, metric)


def _messages(plan: _Plan, grader: dict, label: str, report: Report):
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


def _label_model(plan: _Plan, grader: dict, label: str, report: Report) -> None:
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


def _score_model(plan: _Plan, grader: dict, label: str, report: Report) -> None:
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


def _python(plan: _Plan, grader: dict, label: str, report: Report) -> None:
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


def _code(plan: _Plan, grader: dict, label: str, source: str, became: str, reads=()) -> None:
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


def _multi(plan: _Plan, grader: dict, label: str, report: Report) -> None:
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


def _multi_source(plan: _Plan, parts: dict, formula: str) -> tuple[str, list[str]]:
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


# ----------------------------------------------------------------------------- making


def _column(name: str, description: str) -> dict:
    return {"name": name, "content_type": "Text", "required": False, "description": description}


def _columns(plan: _Plan, rows: list[dict]) -> list[dict]:
    columns = [
        _column(_name(key), f"item.{key} (JSON type: {(spec or {}).get('type', 'any')})")
        for key, spec in plan.properties.items()
    ]
    have = {c["name"] for c in columns}
    for row in rows:  # keys the schema leaves out still come over
        for key in row["item"]:
            if _name(key) not in have:
                have.add(_name(key))
                columns.append(_column(_name(key), f"item.{key}"))
    columns += [_column(name, f"{{{{{path}}}}} on each row") for name, path in plan.paths.items()]
    columns.append(_column(ITEM_COLUMN, "The whole item as JSON (for python graders)."))
    columns.append(_column(OUTPUT_JSON_COLUMN, "The sample's output_json as JSON, if any."))
    return columns


def _cell(value) -> str | None:
    if value is None:
        return None
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False)


def _path_value(row: dict, path: str):
    value = {"item": row["item"], "sample": row.get("sample") or {}}
    for part in path.split("."):
        value = value.get(part) if isinstance(value, dict) else None
    return value


def _row_data(plan: _Plan, row: dict) -> dict:
    cells = {_name(k): _cell(v) for k, v in row["item"].items()}
    cells |= {name: _cell(_path_value(row, path)) for name, path in plan.paths.items()}
    cells[ITEM_COLUMN] = json.dumps(row["item"], ensure_ascii=False)
    output_json = (row.get("sample") or {}).get("output_json")
    if output_json is not None:
        cells[OUTPUT_JSON_COLUMN] = json.dumps(output_json, ensure_ascii=False)
    return {k: v for k, v in cells.items() if isinstance(v, str)}


def _evalset_version(workspace, user, definition, plan: _Plan, rows, report: Report):
    from evalsets.services import (
        MAX_BULK,
        evalset_create,
        items_bulk,
        next_version,
        version_commit,
    )

    name = str(definition.get("name") or "OpenAI eval")[:100]
    try:
        evalset = evalset_create(
            workspace=workspace,
            user=user,
            name=_free_name(workspace, f"OpenAI eval: {name}"),
            description="Imported from an OpenAI Evals definition and its data.",
            columns=_columns(plan, rows),
        )
        for row in rows:
            row["_id"] = str(uuid.uuid4())
        create = [{"item_id": row["_id"], "data": _row_data(plan, row)} for row in rows]
        for start in range(0, len(create), MAX_BULK):
            items_bulk(evalset=evalset, create=create[start : start + MAX_BULK])
        version = version_commit(
            evalset=evalset,
            user=user,
            version=next_version(evalset),
            note="OpenAI Evals import",
            inline=True,
        )
    except ValidationError as exc:
        raise ImportProblem("data", _problem_text(exc)) from None
    report.add_created("evalset", evalset.public_id)
    report.mapped(
        "data_source_config.item_schema",
        f"evalset “{evalset.name}” {version.version}: {len(rows)} rows, "
        f"{len(evalset.columns)} columns",
    )
    return version


def _free_name(workspace, name: str) -> str:
    """`name`, or `name (2)`, `(3)`…: a set of that name may come from an earlier import of
    another version of the definition."""
    from evalsets.models import EvalSet

    taken = set(
        EvalSet.objects.filter(workspace=workspace, name__startswith=name).values_list(
            "name", flat=True
        )
    )
    count, free = 1, name
    while free in taken:
        count += 1
        free = f"{name} ({count})"
    return free


def _problem_text(exc: ValidationError) -> str:
    if hasattr(exc, "message_dict"):
        return "; ".join(f"{k}: {' '.join(v)}" for k, v in exc.message_dict.items())
    return " ".join(exc.messages)


def _evaluator(workspace, user, plan: _Plan, spec: dict, options: dict, report: Report):
    """The evaluator of one grader, submitted as 1.0.0. One that cannot be submitted here (a
    judge or an embedding metric without a model provider, a check the kind refuses) stays a
    draft, named in the report with why, and is left out of the experiment."""
    from evaluators.services import evaluator_create

    config = spec["config"]
    pointed = _point_model(workspace, spec, options)
    name = (
        f"{plan.definition.get('name') or 'OpenAI'} · {spec['grader'].get('name') or spec['kind']}"
    )
    try:
        evaluator = evaluator_create(
            workspace=workspace,
            user=user,
            name=name[:120],
            kind=spec["kind"],
            description=f"Imported from OpenAI Evals ({spec['label']}).",
            tags=["openai-evals"],
            default_policy={"kind": "threshold", "threshold": spec["threshold"]},
            config=config,
        )
    except ValidationError as exc:
        raise ImportProblem(f"definition, {spec['label']}", _problem_text(exc)) from None
    report.add_created("evaluator", evaluator.public_id)
    why = _submitted(evaluator, user, spec) if pointed else NO_PROVIDER
    if why:
        report.mapped(spec["label"], f"{spec['became']} “{evaluator.name}”, a draft: {why}")
        return spec
    mapping = ", ".join(f"{v['name']} ← {_source_of(v['name'])}" for v in config["input_variables"])
    report.mapped(spec["label"], f"{spec['became']} “{evaluator.name}” 1.0.0 ({mapping})")
    return spec


NO_PROVIDER = "no model provider in this workspace (add one, then submit it)"


def _submitted(evaluator, user, spec: dict) -> str:
    """Submit the draft as 1.0.0 (kept in `spec`); why not, when the kind's checks refuse."""
    from evaluators.services import evaluator_submit_version

    try:
        spec["version"] = evaluator_submit_version(
            evaluator=evaluator, user=user, version="1.0.0", change_note="OpenAI Evals import"
        )
    except ValidationError as exc:
        return _problem_text(exc)
    return ""


def _point_model(workspace, spec: dict, options: dict) -> bool:
    """A judge or an embedding metric pointed at a provider; False when there is none."""
    config = spec["config"]
    if spec["kind"] == "llm":
        return _point_judge(workspace, config, options)
    if config.get("metric") == "embedding_cosine":
        provider = _provider(workspace, options)
        if provider is None:
            return False
        model = options.get("embedding_model") or "text-embedding-3-small"
        config["options"] = {"provider_id": str(provider.public_id), "model": model}
    return True


def _provider(workspace, options: dict):
    """The provider named in the options, else the workspace's first."""
    from assay.models import ModelProvider

    providers = ModelProvider.objects.filter(workspace=workspace).order_by("created_at")
    wanted = options.get("provider_id")
    if not wanted:
        return providers.first()
    try:
        return providers.get(public_id=uuid.UUID(str(wanted)))
    except (ValueError, ModelProvider.DoesNotExist):
        raise ImportProblem("options, provider_id", "no such provider in this workspace") from None


def _point_judge(workspace, config: dict, options: dict) -> bool:
    """Point the judge at the provider named in the options, else the workspace's first; the
    grader's model unless the options name one."""
    provider = _provider(workspace, options)
    if provider is None:
        return False
    model = options.get("model") or config["model"]["model"] or provider.default_model
    config["model"] = {"provider_id": str(provider.public_id), "model": model}
    return True


def _experiment(workspace, user, definition, version, made, rows, report: Report) -> None:
    """The samples as an external-target run, closed: the workers score every row."""
    from experiments.services import experiment_close, experiment_create, outputs_push

    bindings = [
        {
            "evaluator_version": spec["version"],
            "mapping": {
                v["name"]: _source_of(v["name"]) for v in spec["config"]["input_variables"]
            },
            "policy": {"kind": "threshold", "threshold": spec["threshold"]},
        }
        for spec in made
        if spec.get("version")
    ]
    if not bindings:
        report.unmapped("sample", "no evaluator could run, so no experiment was made")
        return
    try:
        experiment = experiment_create(
            workspace=workspace,
            user=user,
            name=f"{definition.get('name') or 'OpenAI eval'} · imported outputs"[:160],
            description="The samples of an OpenAI Evals run, scored by its imported graders.",
            evalset_version=version,
            bindings=bindings,
            target={"kind": "external"},
            launch=True,
        )
        outputs = [_output(row) for row in rows if row.get("sample")]
        for start in range(0, len(outputs), PUSH):
            outputs_push(experiment=experiment, outputs=outputs[start : start + PUSH])
        experiment_close(experiment=experiment)
    except ValidationError as exc:
        raise ImportProblem("data, sample", _problem_text(exc)) from None
    report.add_created("experiment", experiment.public_id)
    report.mapped(
        "sample",
        f"experiment “{experiment.name}”: {len(outputs)} outputs, scored by "
        f"{len(bindings)} evaluators on the workers",
    )


def _output(row: dict) -> dict:
    sample = row["sample"]
    text = sample.get("output_text")
    if text is None and sample.get("output_json") is not None:
        text = json.dumps(sample["output_json"], ensure_ascii=False)
    return {"item_id": row["_id"], "actual_output": "" if text is None else str(text)}
