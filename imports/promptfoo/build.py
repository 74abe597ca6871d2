"""Building what a promptfoo suite describes, through the lower apps' services: the evalset
version, an evaluator (and its first version) per distinct assertion, and the draft
experiment that binds each to the rows that carry it."""

from __future__ import annotations

from dataclasses import dataclass, field

from django.core.exceptions import ValidationError

from assay.models import ModelProvider
from evalsets.items.rows import COLUMN_NAME_RE, RESERVED_NAMES
from evalsets.models import EvalSet
from evalsets.services import evalset_create, items_bulk, version_commit
from evaluators.models import Evaluator
from evaluators.services import evaluator_create, evaluator_submit_version
from experiments.services import experiment_create
from experiments.services.runs import MAX_BINDINGS

from ..kinds import ImportProblem, Report
from .assertions import Plan, Suite, assertion_plan, assertion_type, render, unmapped_reason
from .source import CONFIG, Test, config_read, tests_read

KNOWN_KEYS = {"description", "prompts", "providers", "tests", "defaultTest"}
OUTPUT = "actual_output"
CHUNK = 5000


@dataclass
class Group:
    """One evaluator to be: its plan, its column (per-row values) or tag, the rows carrying it
    ({row index: value}) and the assertions it stands for."""

    plan: Plan
    column: str = ""
    tag: str = ""
    rows: dict[int, str | None] = field(default_factory=dict)
    name: str = ""


def promptfoo_import(*, workspace, user, files: dict, options: dict, report: Report) -> None:
    """Import a promptfoo suite (see the package's docstring); ImportProblem on bad input."""
    config = config_read(files["config"])
    _report_config(config, report)
    tests = tests_read(config, files)
    for where in _default_unused(config) + [w for t in tests for w in t.unused]:
        report.unmapped(where, "not used by the import (options, threshold, provider, …)")
    variables = _var_names(tests)
    prompts = _prompts(config, report)
    suite = _suite(workspace, variables, bool(prompts))
    groups = _groups(tests, suite, report)
    name = _free_set_name(
        workspace, options.get("name") or config.get("description") or "promptfoo"
    )
    columns = _columns(variables, prompts, tests, groups)
    version = _evalset(workspace, user, name, columns, _rows(tests, prompts, groups))
    report.add_created("evalset_version", version.public_id)
    bindings = [_evaluator(workspace, user, name, group, suite, report) for group in groups]
    _report_assertions(tests, groups, report)
    _experiment(workspace, user, name, version, bindings, report)


# --------------------------------------------------------------------------- the config


def _report_config(config: dict, report: Report) -> None:
    for key in config:
        if key not in KNOWN_KEYS:
            report.unmapped(f"{CONFIG}, {key}", "not used by the import")
    providers = config.get("providers") or []
    for i, provider in enumerate(providers if isinstance(providers, list) else [providers]):
        shown = provider.get("id") if isinstance(provider, dict) else provider
        report.unmapped(
            f"{CONFIG}, providers[{i}] ({shown})",
            "Assay does not call promptfoo's providers: the draft experiment's target is "
            "external; push each row's output (assay run), or choose a target on the page",
        )


def _default_unused(config: dict) -> list[str]:
    default = config.get("defaultTest")
    keys = default if isinstance(default, dict) else {}
    return [f"{CONFIG}, defaultTest, {key}" for key in keys if key not in ("vars", "assert")]


def _prompts(config: dict, report: Report) -> list[str]:
    prompts = config.get("prompts") or []
    kept = []
    for i, prompt in enumerate(prompts if isinstance(prompts, list) else [prompts]):
        text = prompt.get("raw") if isinstance(prompt, dict) else prompt
        where = f"{CONFIG}, prompts[{i}]"
        if not isinstance(text, str) or text.startswith("file://"):
            report.unmapped(where, "read from a file or a function the import does not have")
            continue
        kept.append(text)
        column = "prompt" if len(kept) == 1 else f"prompt_{len(kept)}"
        report.mapped(where, f"column {column}: the prompt with each row's vars filled in")
    return kept


def _var_names(tests: list[Test]) -> list[str]:
    names: dict[str, None] = {}
    for test in tests:
        for name in test.vars:
            if not COLUMN_NAME_RE.match(name) or name in RESERVED_NAMES:
                raise ImportProblem(f"{test.where}, vars, {name}", "not usable as a column name")
            names.setdefault(name)
    return list(names)


def _suite(workspace, variables: list[str], has_prompt: bool) -> Suite:
    provider = ModelProvider.objects.filter(workspace=workspace).order_by("created_at").first()
    model = provider.default_model if provider else ""
    return Suite(tuple(variables), has_prompt, provider, model)


# --------------------------------------------------------------------------- assertions


def _groups(tests: list[Test], suite: Suite, report: Report) -> list[Group]:
    """One group per distinct plan (and per repeat of it within one test)."""
    groups: dict[tuple[str, int], Group] = {}
    for row, test in enumerate(tests):
        seen: dict[str, int] = {}
        for where, assertion in test.asserts:
            base, _negate = assertion_type(where, assertion)
            if reason := unmapped_reason(base, assertion):
                report.unmapped(f"{where} ({assertion['type']})", reason)
                continue
            plan = assertion_plan(where, assertion, test.vars, suite)
            key = plan.key()
            seen[key] = seen.get(key, 0) + 1
            group = groups.setdefault((key, seen[key]), Group(plan))
            group.rows[row] = plan.value
            assertion["_group"] = group  # read back for the report line
    return list(groups.values())


def _columns(variables, prompts, tests, groups) -> list[dict]:
    text = {"content_type": "Text", "required": False}
    columns = [{"name": n, **text, "description": "a promptfoo var"} for n in variables]
    taken = set(variables)
    for i in range(len(prompts)):
        name = _free("prompt" if i == 0 else f"prompt_{i + 1}", taken)
        columns.append({"name": name, **text, "description": "the prompt, vars filled in"})
    if any(t.description for t in tests):
        columns.append({"name": _free("description", taken), **text, "description": ""})
    for i, group in enumerate(groups):
        if group.plan.value is not None:
            group.column = _free(group.plan.column, taken)
            columns.append({"name": group.column, **text, "description": group.plan.label})
        elif len(group.rows) < len(tests):
            group.tag = f"promptfoo-{i + 1}"
    return columns


def _free(name: str, taken: set) -> str:
    candidate, n = name, 2
    while candidate in taken:
        candidate, n = f"{name}_{n}", n + 1
    taken.add(candidate)
    return candidate


def _rows(tests, prompts, groups) -> list[dict]:
    rows = []
    for i, test in enumerate(tests):
        data = {name: value for name, value in test.vars.items() if value != ""}
        for j, prompt in enumerate(prompts):
            data["prompt" if j == 0 else f"prompt_{j + 1}"] = render(prompt, test.vars)
        if test.description:
            data["description"] = test.description
        carried = [g for g in groups if i in g.rows]
        data |= {g.column: g.rows[i] for g in carried if g.column}
        rows.append({"data": data, "tags": sorted(g.tag for g in carried if g.tag)})
    return rows


# --------------------------------------------------------------------------- creating


def _evalset(workspace, user, name: str, columns: list[dict], rows: list[dict]):
    description = "Imported from a promptfoo config."
    try:
        evalset = evalset_create(
            workspace=workspace, user=user, name=name, description=description, columns=columns
        )
        for start in range(0, len(rows), CHUNK):
            items_bulk(evalset=evalset, create=rows[start : start + CHUNK])
        return version_commit(evalset=evalset, user=user, version="1.0.0", inline=True)
    except ValidationError as exc:
        raise ImportProblem("tests", _problems(exc)) from None


def _free_set_name(workspace, wanted: str) -> str:
    wanted = " ".join(str(wanted).split())[:100] or "promptfoo"
    live = EvalSet.objects.filter(workspace=workspace, deleted_at__isnull=True)
    return _free_name(wanted, set(live.values_list("name", flat=True)))


def _free_name(wanted: str, taken: set) -> str:
    candidate, n = wanted, 2
    while candidate in taken:
        candidate, n = f"{wanted} ({n})", n + 1
    return candidate


def _evaluator(workspace, user, set_name: str, group: Group, suite: Suite, report: Report) -> dict:
    """The group's evaluator and its version 1.0.0, and its binding for the experiment."""
    plan = group.plan
    live = Evaluator.objects.filter(workspace=workspace, deleted_at__isnull=True)
    group.name = _free_name(
        f"{set_name}: {plan.label}"[:110], set(live.values_list("name", flat=True))
    )
    variables, mapping = _variables(plan, group, suite)
    config = {"input_variables": variables, **_kind_config(plan)}
    try:
        evaluator = evaluator_create(
            workspace=workspace,
            user=user,
            name=group.name,
            kind=plan.kind,
            description=f"promptfoo assertion: {plan.label}. {plan.note}".strip(),
            tags=["promptfoo"],
            score_meaning=plan.meaning,
            default_policy={"kind": "threshold", "threshold": plan.threshold},
            config=config,
        )
        version = evaluator_submit_version(evaluator=evaluator, user=user, version="1.0.0")
    except ValidationError as exc:
        raise ImportProblem(f"assertion {plan.label}", _problems(exc)) from None
    report.add_created("evaluator", evaluator.public_id)
    applies = (
        {"column": group.column} if group.column else ({"tags": [group.tag]} if group.tag else {})
    )
    return {"evaluator_version": version, "mapping": mapping, "applies_to": applies}


def _kind_config(plan: Plan) -> dict:
    if plan.kind != "metric":
        return dict(plan.config)
    return {"output_variable": OUTPUT, "reference_value": None, **plan.config}


def _variables(plan: Plan, group: Group, suite: Suite) -> tuple[list[dict], dict]:
    def text(name, required, description):
        return {
            "name": name,
            "content_type": "Text",
            "required": required,
            "description": description,
        }

    variables = [text(OUTPUT, True, "The output being checked.")]
    mapping = {OUTPUT: f"target:{OUTPUT}"}
    if plan.value is not None:
        variables.append(text("reference", True, "The test's value for this assertion."))
        mapping["reference"] = f"column:{group.column}"
    if plan.kind == "code":
        for name in suite.var_names:
            variables.append(text(name, False, "a promptfoo var"))
            mapping[name] = f"column:{name}"
    if suite.has_prompt and plan.kind != "metric" and "prompt" not in mapping:
        variables.append(text("prompt", plan.kind == "llm", "The prompt, vars filled in."))
        mapping["prompt"] = "column:prompt"
    return variables, mapping


def _experiment(workspace, user, name, version, bindings, report: Report) -> None:
    if not bindings:
        report.unmapped("experiment", "no assertion became an evaluator")
        return
    if len(bindings) > MAX_BINDINGS:
        report.unmapped(
            "experiment",
            f"{len(bindings)} evaluators; an experiment takes at most {MAX_BINDINGS}: "
            "bind them in several experiments",
        )
        return
    try:
        experiment = experiment_create(
            workspace=workspace,
            user=user,
            name=f"{name} (promptfoo)",
            evalset_version=version,
            bindings=bindings,
            target={"kind": "external"},
            description="Imported from promptfoo: launch it and push each row's output.",
        )
    except ValidationError as exc:
        raise ImportProblem("experiment", _problems(exc)) from None
    report.add_created("experiment", experiment.public_id)


def _report_assertions(tests: list[Test], groups: list[Group], report: Report) -> None:
    for test in tests:
        for where, assertion in test.asserts:
            group = assertion.pop("_group", None) if isinstance(assertion, dict) else None
            if group is None:
                continue
            became = f"evaluator {group.name!r}"
            if group.column:
                became += f", its value in column {group.column}"
            if "weight" in assertion:
                became += (
                    f"; weight {assertion['weight']} recorded (Assay counts each evaluator alike)"
                )
            if group.plan.note:
                became += f"; {group.plan.note}"
            report.mapped(f"{where} ({assertion['type']})", became)


def _problems(exc: ValidationError) -> str:
    if hasattr(exc, "message_dict"):
        return "; ".join(f"{k}: {' '.join(map(str, v))}" for k, v in exc.message_dict.items())
    return " ".join(map(str, exc.messages))
