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

import json
import re

from django.utils.translation import gettext_lazy as _

from ..kinds import FileSpec, ImporterKind, ImportProblem
from .making import evalset_version_make, evaluator_make, experiment_make
from .planning import Plan

MAX_ROWS = 50_000


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
        plan = Plan(definition, rows)
        for grader, where in plan.graders():
            plan.add(grader, where, report)
        version = evalset_version_make(workspace, user, definition, plan, rows, report)
        made = [evaluator_make(workspace, user, plan, e, options, report) for e in plan.evaluators]
        if any("sample" in row for row in rows):
            experiment_make(workspace, user, definition, version, made, rows, report)
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
