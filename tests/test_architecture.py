"""The import graph holds: which app may import which, and the layers inside an app.

Every `import` counts, inside functions too. Allowed app-to-app edges:

- experiments → evaluators, evalsets, traces, assay
- evaluators → evalsets (media, rows), sandbox, traces, assay
- annotation → online, experiments, evaluators, traces, evalsets, assay (human review reads what
  every app below produces; its labels flow down only through their services; nothing imports
  annotation)
- online → experiments, evaluators, evalsets, traces, assay (online evaluation is a run kind
  on the experiments engine, scoring traces with evaluators; nothing imports online but
  annotation)
- traces → evalsets, assay (production traces sit below evaluators)
- evalsets → assay
- assay → sandbox (the health check reports its isolation level)
- sandbox → nothing of ours, and nothing of Django
- URL wiring (assay/urls.py, assay/api/urls.py) may import every app.

Inside an app: models import no services, selectors, views, API, forms, serializers or tasks;
services and selectors import no views, API, forms or serializers.
"""

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
APPS = (
    "annotation",
    "assay",
    "evaluators",
    "evalsets",
    "experiments",
    "imports",
    "notifications",
    "online",
    "sandbox",
    "schedules",
    "traces",
)
ALLOWED = {
    "annotation": {
        "online",
        "experiments",
        "evaluators",
        "traces",
        "evalsets",
        "notifications",
        "assay",
    },
    "schedules": {"experiments", "evaluators", "evalsets", "traces", "notifications", "assay"},
    "imports": {"experiments", "evaluators", "evalsets", "traces", "notifications", "assay"},
    "online": {"experiments", "evaluators", "evalsets", "traces", "notifications", "assay"},
    "experiments": {"evaluators", "evalsets", "traces", "notifications", "assay"},
    "evaluators": {"evalsets", "sandbox", "traces", "notifications", "assay"},
    "traces": {"evalsets", "notifications", "assay"},
    "evalsets": {"notifications", "assay"},
    "notifications": {"assay"},
    "assay": {"sandbox"},
    "sandbox": set(),
}
WIRING = {"assay/urls.py", "assay/api/urls.py"}
UPPER = {"views", "api", "forms", "serializers", "tasks", "urls"}
LAYERS = {
    "models": UPPER | {"services", "selectors"},
    "services": UPPER - {"tasks"},
    "selectors": UPPER,
}


def modules() -> list[Path]:
    return sorted(
        p for app in APPS for p in (ROOT / app).rglob("*.py") if "migrations" not in p.parts
    )


def parsed(path: Path) -> ast.Module:
    """The file's syntax tree. CPython 3.11 keeps the syntax-tree builder's recursion count
    per interpreter, so a parse in another thread at the same moment (a thread a test left
    running) can fail this one with "AST constructor recursion depth mismatch" (a clean-clone
    run did, once); parsing has no effect, so it is simply tried again."""
    for _attempt in range(4):
        try:
            return ast.parse(path.read_text())
        except SystemError:
            continue
    return ast.parse(path.read_text())


def imported(path: Path) -> list[str]:
    """Absolute names of everything a file imports (relative imports resolved)."""
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    package = parts if path.name == "__init__.py" else parts[:-1]
    names = []
    for node in ast.walk(parsed(path)):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else []
            module = ".".join([*base, *([node.module] if node.module else [])])
            names += [module] + [f"{module}.{alias.name}" for alias in node.names]
    return names


def layer(name: str) -> str:
    """The layer a module belongs to: its file name, or its package for package modules."""
    parts = name.split(".")
    for candidate in reversed(parts[1:]):
        if candidate in LAYERS or candidate in UPPER:
            return candidate
    return parts[-1]


CASES = [p for p in modules()]


@pytest.mark.parametrize("path", CASES, ids=[str(p.relative_to(ROOT)) for p in CASES])
def test_imports_follow_the_allowed_edges(path):
    relative = str(path.relative_to(ROOT))
    app = relative.split("/")[0]
    problems = []
    for name in imported(path):
        top = name.split(".")[0]
        if app == "sandbox" and top == "django":
            problems.append(f"{name}: the sandbox must not import Django")
        if top in APPS and top != app and top not in ALLOWED[app] and relative not in WIRING:
            problems.append(f"{name}: {app} may not import {top}")
    own = layer(".".join(path.relative_to(ROOT).with_suffix("").parts))
    for name in imported(path):
        target = layer(name)
        if name.split(".")[0] in APPS and target in LAYERS.get(own, set()):
            problems.append(f"{name}: a {own} module may not import a {target} module")
    assert problems == []


def test_the_checker_sees_a_forbidden_import(tmp_path):
    # The test above must be able to fail: a relative import from a function body is found.
    sample = ROOT / "evalsets" / "_probe_for_the_architecture_test.py"
    sample.write_text("def f():\n    from evaluators import services\n    return services\n")
    try:
        assert "evaluators.services" in imported(sample)
    finally:
        sample.unlink()


def defined(path: Path) -> set[str]:
    """The public names a module defines at its top level (classes, functions, constants)."""
    names = set()
    for node in parsed(path).body:
        if isinstance(node, ast.ClassDef | ast.FunctionDef):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            names |= {t.id for t in node.targets if isinstance(t, ast.Name)}
    return {n for n in names if not n.startswith("_")}


VOCABULARY = defined(ROOT / "assay" / "vocabulary.py") - {"for_pages"}


@pytest.mark.parametrize("path", CASES, ids=[str(p.relative_to(ROOT)) for p in CASES])
def test_the_vocabulary_comes_from_its_home(path):
    # One vocabulary: its words are imported from assay.vocabulary, not through another module
    # that happens to import them (a second home is where a second copy starts).
    problems = []
    for node in ast.walk(parsed(path)):
        if isinstance(node, ast.ImportFrom) and node.module != "assay.vocabulary":
            if node.level == 0 and node.module and node.module.split(".")[0] not in APPS:
                continue
            problems += [f"{a.name} from {node.module}" for a in node.names if a.name in VOCABULARY]
    assert problems == []


def test_the_vocabulary_check_knows_the_words():
    assert {"Verdict", "ResultStatus", "ContentType", "PolicyKind", "CONTENT_FIELD"} <= VOCABULARY


def test_a_worker_imports_the_async_http_client_only_when_a_batch_sends():
    # aiohttp (the judges' and HTTP targets' client) costs ~0.16 s to import, as the openai SDK
    # it replaced cost ~0.4 s and ~20 MB: code-only workers and pages never need it.
    import subprocess
    import sys

    probe = (
        "import sys, django; django.setup()\n"
        "from assay.celery import app; app.loader.import_default_modules()\n"
        "import experiments.scoring.chunks, evaluators.runner, evalsets.views.pages\n"
        "print('aiohttp' in sys.modules)\n"
    )
    env = {"DJANGO_SETTINGS_MODULE": "assay.settings", "PATH": "/usr/bin:/bin"}
    done = subprocess.run(
        [sys.executable, "-c", probe], cwd=ROOT, env=env, capture_output=True, text=True
    )
    assert done.stdout.strip().splitlines()[-1:] == ["False"], done.stderr[-2000:]


# ----------------------------------------------------------------------------- kinds of run
# The run engine (experiments/runs) is the machine every kind of run shares; a kind
# (experiments/scoring, experiments/pairwise/work.py, a test's counting kind) is a module that
# registers itself. The engine names no kind, and nothing branches on one.

RUNS = ROOT / "experiments" / "runs"
RUN_CASES = sorted(RUNS.rglob("*.py"))


@pytest.mark.parametrize("path", RUN_CASES, ids=[p.name for p in RUN_CASES])
def test_the_run_engine_imports_no_kind_of_run(path):
    # no experiments.scoring, pairwise, targets, results, views, api, models: only itself
    ours = [n for n in imported(path) if n.split(".")[0] == "experiments"]
    assert [n for n in ours if not n.startswith("experiments.runs")] == []


def test_every_kind_of_run_imports_the_run_engine_and_lives_outside_it():
    from experiments.runs.kinds import run_kinds

    kinds = run_kinds()
    assert {kind.name for kind in kinds} >= {"experiment", "pairwise"}
    for kind in kinds:
        path = ROOT.joinpath(*type(kind).__module__.split(".")).with_suffix(".py")
        assert RUNS not in path.parents
        assert any(n.startswith("experiments.runs") for n in imported(path)), path


KIND_NAMES = {"experiment", "pairwise"}  # the registered kinds' names
KIND_OBJECTS = {"EXPERIMENT", "PAIRWISE"}  # their registered objects
RUN_MODELS = {"Experiment", "PairwiseRun", "ExperimentChunk", "PairwiseChunk"}


def _names_a_kind(node) -> bool:
    """A name, constant or subscript that says which kind of run something is."""
    tail = getattr(node, "id", None) or getattr(node, "attr", None)
    if isinstance(node, ast.Constant) and node.value in KIND_NAMES:
        return True
    if tail in RUN_MODELS | KIND_OBJECTS:
        return True
    if isinstance(node, ast.Attribute) and _names_a_kind(node.value):
        return True
    return isinstance(node, ast.Subscript) and _names_a_kind(node.slice)


def kind_branches(path: Path) -> list[str]:
    """Comparisons that ask which kind of run something is (`chunk.kind == PairwiseChunk.kind`,
    `model is Experiment`, `kind == EXPERIMENT`, `name == "pairwise"`)."""
    found = []
    for node in ast.walk(parsed(path)):
        if isinstance(node, ast.Compare) and any(
            _names_a_kind(side) for side in (node.left, *node.comparators)
        ):
            found.append(f"{path.name}:{node.lineno}: {ast.unparse(node)}")
    return found


EXPERIMENT_CASES = [p for p in modules() if p.parts[len(ROOT.parts)] == "experiments"]


@pytest.mark.parametrize(
    "path", EXPERIMENT_CASES, ids=[str(p.relative_to(ROOT)) for p in EXPERIMENT_CASES]
)
def test_nothing_branches_on_a_kind_of_run(path):
    # what differs between kinds is the kind's (runs.kinds.RunKind), as for evaluator kinds
    assert kind_branches(path) == []


def test_the_kind_check_sees_a_branch(tmp_path):
    sample = tmp_path / "probe.py"
    sample.write_text(
        "def f(chunk, kind, model):\n"
        "    a = chunk.kind == PairwiseChunk.kind\n"
        "    b = model is Experiment\n"
        "    c = kind == EXPERIMENT or kind.name == 'pairwise'\n"
        "    d = queue == QUEUE[PairwiseChunk.kind]\n"
    )
    assert len(kind_branches(sample)) == 5
