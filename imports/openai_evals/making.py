"""What an OpenAI eval's import makes of a plan: the evalset version (its columns, derived
ones filled from their template paths), the evaluators (submitted, or drafts named in the
report), and the experiment of the rows' samples."""

from __future__ import annotations

import json
import uuid

from django.core.exceptions import ValidationError

from ..kinds import ImportProblem, Report
from .planning import ITEM_COLUMN, OUTPUT_JSON_COLUMN, Plan, column_name, source_of

PUSH = 1000


# ----------------------------------------------------------------------------- making


def _column(name: str, description: str) -> dict:
    return {"name": name, "content_type": "Text", "required": False, "description": description}


def _columns(plan: Plan, rows: list[dict]) -> list[dict]:
    columns = [
        _column(column_name(key), f"item.{key} (JSON type: {(spec or {}).get('type', 'any')})")
        for key, spec in plan.properties.items()
    ]
    have = {c["name"] for c in columns}
    for row in rows:  # keys the schema leaves out still come over
        for key in row["item"]:
            if column_name(key) not in have:
                have.add(column_name(key))
                columns.append(_column(column_name(key), f"item.{key}"))
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


def _row_data(plan: Plan, row: dict) -> dict:
    cells = {column_name(k): _cell(v) for k, v in row["item"].items()}
    cells |= {name: _cell(_path_value(row, path)) for name, path in plan.paths.items()}
    cells[ITEM_COLUMN] = json.dumps(row["item"], ensure_ascii=False)
    output_json = (row.get("sample") or {}).get("output_json")
    if output_json is not None:
        cells[OUTPUT_JSON_COLUMN] = json.dumps(output_json, ensure_ascii=False)
    return {k: v for k, v in cells.items() if isinstance(v, str)}


def evalset_version_make(workspace, user, definition, plan: Plan, rows, report: Report):
    from evalsets.services import MAX_BULK, evalset_create, items_bulk, next_version, version_commit

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


def evaluator_make(workspace, user, plan: Plan, spec: dict, options: dict, report: Report):
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
    mapping = ", ".join(f"{v['name']} ← {source_of(v['name'])}" for v in config["input_variables"])
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


def experiment_make(workspace, user, definition, version, made, rows, report: Report) -> None:
    """The samples as an external-target run, closed: the workers score every row."""
    from experiments.services import experiment_close, experiment_create, outputs_push

    bindings = [
        {
            "evaluator_version": spec["version"],
            "mapping": {v["name"]: source_of(v["name"]) for v in spec["config"]["input_variables"]},
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
