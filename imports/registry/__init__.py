"""The `openai-evals-registry` importer: an eval spec of the old open-source openai/evals
registry (`registry/evals/*.yaml`) and its samples JSONL → an evalset version and evaluators.

A spec file maps names to evals: an alias (`name: {id: name.split.v0, …}`) and the eval
itself (`name.split.v0: {class: evals.elsuite…:Class, args: {samples_jsonl, …}}`). Every eval
of the file that reads the same samples file as the chosen one (option `eval`, or the only
samples file the spec names) becomes an evaluator on one set; evals over other samples, and
classes or model-graded specs we have no evaluator for, are reported, never dropped.

Samples are `{"input": <a prompt or chat messages>, "ideal": <a text or a list>}` lines: the
input becomes the `input` column (a Conversation for messages), the first ideal
`reference_output`, and every ideal `ideals` (JSON) when some sample lists several.
"""

from __future__ import annotations

import io
import json

import yaml
from django.core.exceptions import ValidationError
from django.utils.translation import gettext_lazy as _

from assay.models import ModelProvider
from evalsets.importing.readers import read_jsonl
from evalsets.items.problems import problem_text
from evaluators.services import evaluator_create, evaluator_submit_version, submit_problems

from ..kinds import FileSpec, ImporterKind, ImportProblem, Report, yaml_bounded
from ..tables import Table, add_column, column_names, table_commit
from . import graders

BASIC = "evals.elsuite.basic."
MATCH, INCLUDES, FUZZY = (
    f"{BASIC}match:Match",
    f"{BASIC}includes:Includes",
    f"{BASIC}fuzzy_match:FuzzyMatch",
)
CLASSIFY = "evals.elsuite.modelgraded.classify:ModelBasedClassify"
JUDGED = ("fact", "closedqa")
JUDGE_MODEL = {"provider_id": None, "model": "gpt-4o-mini", "temperature": 0.0, "max_tokens": 1024}
IGNORED_ARGS = {
    "samples_jsonl",
    "eval_type",
    "modelgraded_spec",
    "modelgraded_spec_args",
    "ignore_case",
    "max_tokens",
}


class RegistryImporter(ImporterKind):
    name = "openai-evals-registry"
    label = _("openai/evals registry eval")
    files = (
        FileSpec(
            "spec", True, _("The eval's YAML spec from registry/evals."), max_bytes=1024 * 1024
        ),
        FileSpec("samples", True, _("Its samples JSONL: {input, ideal} lines.")),
    )

    def run(self, *, workspace, user, files, options, report):
        """One set from the samples, one evaluator per eval of the spec over those samples."""
        evals = spec_evals(files["spec"])
        path = _samples_path(evals, (options.get("eval") or "").strip())
        samples = read_samples(files["samples"])
        table = samples_table(samples, report)
        name = (options.get("name") or "").strip() or path.removesuffix(".jsonl")
        version = table_commit(
            workspace=workspace,
            user=user,
            name=name,
            table=table,
            note=f"Imported from openai/evals samples {path}",
            report=report,
        )
        context = _Context(workspace, user, version.evalset.name, table, report)
        for eval_id, spec in evals.items():
            if spec["args"].get("samples_jsonl") != path:
                report.unmapped(
                    eval_id,
                    f"reads other samples ({spec['args'].get('samples_jsonl')}); "
                    "import it with the eval option",
                )
                continue
            _grader(context, eval_id, spec)


class _Context:
    def __init__(self, workspace, user, set_name: str, table: Table, report: Report):
        self.workspace, self.user, self.set_name, self.report = workspace, user, set_name, report
        types = {c["name"]: c["content_type"] for c in table.columns}
        self.input_type = types.get("input", "Text")
        self.has_ideals, self.has_reference = "ideals" in types, "reference_output" in types
        self.has_criteria = types.get("criteria") == "Text"


# --------------------------------------------------------------------------- the spec


def spec_evals(data: bytes) -> dict[str, dict]:
    """{eval id: {"class", "args"}} of every eval the YAML defines (aliases left out)."""
    try:
        text = data.decode("utf-8")
        spec = yaml_bounded(yaml.safe_load(text), where="spec", text_chars=len(text))
    except (yaml.YAMLError, UnicodeDecodeError) as exc:
        raise ImportProblem("spec", f"not a YAML file: {str(exc)[:300]}") from None
    if not isinstance(spec, dict):
        raise ImportProblem("spec", "expected a mapping of eval names to their specs")
    evals = {}
    for key, value in spec.items():
        if isinstance(value, dict) and "class" in value:
            args = value.get("args") or {}
            if not isinstance(args, dict) or not isinstance(value["class"], str):
                raise ImportProblem(f"spec, {key}", "class is a text and args a mapping")
            evals[str(key)] = {"class": value["class"], "args": args}
    if not evals:
        raise ImportProblem("spec", "no eval with a class in this spec")
    return evals


def _samples_path(evals: dict[str, dict], chosen: str) -> str:
    paths = list(dict.fromkeys(str(e["args"].get("samples_jsonl", "")) for e in evals.values()))
    if chosen:
        found = evals.get(chosen) or next(
            (e for k, e in evals.items() if k.split(".")[0] == chosen), None
        )
        if found is None:
            raise ImportProblem(
                "eval", f"no eval {chosen!r} in the spec; it has {', '.join(evals)}"
            )
        return str(found["args"].get("samples_jsonl", ""))
    if len(paths) > 1:
        raise ImportProblem(
            "eval",
            f"the spec's evals read {len(paths)} samples files; choose "
            f"one of {', '.join(evals)} with the eval option",
        )
    return paths[0]


# --------------------------------------------------------------------------- the samples


def read_samples(data: bytes) -> list[tuple[str, dict]]:
    records, _lines = read_jsonl(io.BytesIO(data))
    samples = []
    for line, record, problems in records:
        place = f"samples, line {line}"
        if problems:
            raise ImportProblem(place, problem_text(problems[0][1]))
        if "input" not in record:
            raise ImportProblem(place, "a sample needs an 'input'")
        ideal = record.get("ideal")
        if ideal is not None and not _texts(ideal):
            raise ImportProblem(place, "'ideal' is a text or a list of texts")
        samples.append((place, record))
    return samples


def _texts(ideal) -> bool:
    return isinstance(ideal, str) or (
        isinstance(ideal, list) and all(isinstance(i, str) for i in ideal)
    )


def _ideals(record: dict) -> list[str]:
    ideal = record.get("ideal")
    return [] if ideal is None else [ideal] if isinstance(ideal, str) else list(ideal)


def samples_table(samples: list[tuple[str, dict]], report: Report) -> Table:
    records = [record for _place, record in samples]
    table = Table(
        rows=[{} for _ in samples], places=[p for p, _r in samples], sources=[None] * len(samples)
    )
    kind = add_column(table, "input", [r["input"] for r in records], "The sample's input.")
    report.mapped("input", f"column input ({kind})")
    ideals = [_ideals(r) for r in records]
    if any(ideals):
        add_column(
            table,
            "reference_output",
            [i[0] if i else None for i in ideals],
            "The sample's ideal answer (the first, when it lists several).",
        )
        report.mapped("ideal", "column reference_output (Text)")
    if any(len(i) > 1 for i in ideals):
        add_column(
            table,
            "ideals",
            [json.dumps(i, ensure_ascii=False) if i else None for i in ideals],
            "Every ideal answer of the sample (JSON list).",
        )
        report.mapped("ideal (several)", "column ideals (Text, a JSON list)")
    _other_columns(table, records, report)
    return table


def _other_columns(table: Table, records: list[dict], report: Report) -> None:
    keys = [k for k in dict.fromkeys(k for r in records for k in r) if k not in ("input", "ideal")]
    for key, name in column_names(keys, [c["name"] for c in table.columns]).items():
        kind = add_column(table, name, [r.get(key) for r in records], f"{key} of the sample")
        report.mapped(key, f"column {name} ({kind})")


# --------------------------------------------------------------------------- evaluators


def _grader(context: _Context, eval_id: str, spec: dict) -> None:
    cls, args = spec["class"], spec["args"]
    if cls in (MATCH, INCLUDES, FUZZY):
        _basic(context, eval_id, cls, args)
    elif cls == CLASSIFY and args.get("modelgraded_spec") in JUDGED:
        _judges(context, eval_id, args)
    elif cls == CLASSIFY:
        context.report.unmapped(
            eval_id,
            f"model-graded spec {args.get('modelgraded_spec')!r} "
            "has no judge here: write an LLM judge with its prompt",
        )
    else:
        context.report.unmapped(eval_id, f"class {cls} has no Assay evaluator (custom eval code)")
        return
    for key in sorted(set(args) - IGNORED_ARGS):
        context.report.unmapped(f"{eval_id} args.{key}", "not carried over (no Assay equivalent)")


def _basic(context: _Context, eval_id: str, cls: str, args: dict) -> None:
    if not context.has_reference:
        context.report.unmapped(eval_id, "its samples have no 'ideal' to compare with")
        return
    ignore_case = bool(args.get("ignore_case"))
    check = {MATCH: "starts_with", FUZZY: "fuzzy"}.get(
        cls, "includes_ignore_case" if ignore_case else "includes"
    )
    metric = {"starts_with": "starts_with", "includes": "contains"}.get(check)
    title = f"{eval_id} · {cls.rsplit(':', 1)[1]}"
    if metric and not context.has_ideals:
        config, kind, what = graders.metric_config(metric), "metric", f"metric {metric}"
    else:
        config = graders.code_config(check, title, has_ideals=context.has_ideals)
        kind, what = "code", f"Python code evaluator ({graders.MEANINGS[check]})"
    _evaluator(context, eval_id, title, kind, config, what)


def _judges(context: _Context, eval_id: str, args: dict) -> None:
    spec = args["modelgraded_spec"]
    if spec == "fact" and not context.has_reference:
        context.report.unmapped(
            eval_id, "fact compares with the 'ideal' answer; the samples have none"
        )
        return
    criteria = _criteria(context, args) if spec == "closedqa" else ""
    if criteria is None:
        context.report.unmapped(
            eval_id, "closedqa needs modelgraded_spec_args.criteria or a criteria column"
        )
        return
    items = criteria.items() if isinstance(criteria, dict) else [("", criteria)]
    for label, text in items:
        title = f"{eval_id} · {spec}" + (f" · {label}" if label else "")
        config = graders.judge_config(
            spec,
            input_type=context.input_type,
            criterion=str(text),
            model=_model(context.workspace),
        )
        _evaluator(context, eval_id, title, "llm", config, f"LLM judge ({spec})")


def _criteria(context: _Context, args: dict):
    """closedqa's criterion: the spec's text (or {label: text}), else each sample's own."""
    given = (args.get("modelgraded_spec_args") or {}).get("criteria")
    if isinstance(given, str | dict) and given:
        return given
    return "{{criteria}}" if context.has_criteria else None


def _model(workspace) -> dict:
    provider = ModelProvider.objects.filter(workspace=workspace).order_by("created_at").first()
    if provider is None:
        return dict(JUDGE_MODEL)
    return {**JUDGE_MODEL, "provider_id": str(provider.public_id), "model": provider.default_model}


def _evaluator(context: _Context, source: str, name: str, kind: str, config: dict, what: str):
    """Create the evaluator and submit 1.0.0; a judge without a model provider stays a draft."""
    try:
        evaluator = evaluator_create(
            workspace=context.workspace,
            user=context.user,
            name=name,
            kind=kind,
            config=config,
            default_policy=graders.PASS_AT_ONE,
            description=f"Imported from the openai/evals registry eval {source}.",
        )
    except ValidationError as exc:
        raise ImportProblem(source, "; ".join(exc.messages)) from None
    context.report.add_created("evaluator", evaluator.public_id)
    problems = submit_problems(evaluator=evaluator)
    if problems:
        path, messages = next(iter(problems.items()))
        context.report.mapped(source, f"{what}: {name!r}, a draft ({path}: {messages[0]})")
        return
    version = evaluator_submit_version(
        evaluator=evaluator,
        user=context.user,
        version="1.0.0",
        change_note="Imported from the openai/evals registry",
    )
    context.report.add_created("evaluator_version", version.public_id)
    context.report.mapped(source, f"{what}: {name!r} 1.0.0")
