"""Reading a promptfoo suite: `promptfooconfig.yaml` and the tests file it may point at, into
plain tests ({where, description, vars, asserts}) with `defaultTest` merged in as promptfoo
merges it (its vars under each test's, its assertions before each test's).

Tests come from the config's `tests` list, or from a file it names (`tests: file://tests.csv`,
a `.csv`, `.jsonl`, `.json` or `.yaml` file uploaded as the importer's `tests` file). CSV
columns are vars, except promptfoo's special ones: `__expected` (and `__expected1`, …) hold an
assertion written as a string (`contains: foo`, `similar(0.8): bar`, a bare value is `equals`),
`__description`, `__threshold`, `__metric`.
"""

from __future__ import annotations

import csv
import io
import json
import re
from dataclasses import dataclass, field
from pathlib import PurePath

import yaml

from ..kinds import ImportProblem, yaml_bounded

CONFIG, TESTS = "config", "tests"
MAX_TESTS = 5000
# promptfoo's string form of an assertion: [not-]type[(threshold)][: value]
ASSERTION_STRING_RE = re.compile(
    r"^(not-)?([a-z][a-z0-9-]*)(?:\((\d+(?:\.\d+)?)\))?(?::\s?(.*))?$", re.S
)
TEST_KEYS = {"vars", "assert", "description"}
STRING_ALIASES = {"fn": "javascript", "eval": "javascript", "grade": "llm-rubric"}


@dataclass
class Test:
    """One test after defaultTest is merged: where it came from, its vars (text) and its
    assertions, each with where it was written."""

    where: str
    description: str = ""
    vars: dict[str, str] = field(default_factory=dict)
    asserts: list[tuple[str, dict]] = field(default_factory=list)
    unused: list[str] = field(default_factory=list)  # other keys, listed in the report


def config_read(data: bytes) -> dict:
    """The YAML config as a mapping; a parse error named by line."""
    try:
        text = data.decode("utf-8-sig")
        config = yaml_bounded(yaml.safe_load(text), where=CONFIG, text_chars=len(text))
    except UnicodeDecodeError:
        raise ImportProblem(CONFIG, "not UTF-8 text") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"{CONFIG}, line {mark.line + 1}" if mark else CONFIG
        raise ImportProblem(where, f"not valid YAML ({getattr(exc, 'problem', exc)})") from None
    if not isinstance(config, dict):
        raise ImportProblem(CONFIG, "a promptfoo config is a mapping (tests, prompts, …)")
    return config


def tests_read(config: dict, files: dict[str, bytes]) -> list[Test]:
    """Every test of the suite, defaultTest merged in."""
    default = _default_test(config.get("defaultTest"))
    raw = config_tests(config)
    if isinstance(raw, str):
        raw = _tests_file(raw, files)
    elif files.get(TESTS):
        raise ImportProblem(TESTS, "the config lists its tests itself; it names no tests file")
    if not isinstance(raw, list) or not raw:
        raise ImportProblem(f"{CONFIG}, tests", "no tests: give a list or file://tests.csv")
    if len(raw) > MAX_TESTS:
        raise ImportProblem(f"{CONFIG}, tests", f"more than {MAX_TESTS:,} tests")
    return [_merged(default, _test(where, entry)) for where, entry in raw]


def _default_test(value) -> Test:
    if value is None:
        return Test(where=f"{CONFIG}, defaultTest")
    if not isinstance(value, dict):
        raise ImportProblem(f"{CONFIG}, defaultTest", "a mapping (vars, assert, options)")
    return _test(f"{CONFIG}, defaultTest", value)


def _tests_file(reference: str, files: dict[str, bytes]) -> list[tuple[str, dict]]:
    """The tests of `file://name`, read from the uploaded tests file as its extension says."""
    if not reference.startswith("file://"):
        raise ImportProblem(f"{CONFIG}, tests", "a list of tests or a file:// reference")
    name = PurePath(reference.removeprefix("file://")).name
    data = files.get(TESTS)
    if not data:
        raise ImportProblem(TESTS, f"the config reads its tests from {name}: upload that file")
    suffix = PurePath(name).suffix.lower()
    readers = {".csv": _csv_tests, ".jsonl": _jsonl_tests, ".json": _json_tests}
    readers |= {".yaml": _yaml_tests, ".yml": _yaml_tests}
    if suffix not in readers:
        raise ImportProblem(TESTS, f"{name}: tests files are .csv, .jsonl, .json or .yaml")
    return readers[suffix](name, _text(data, name))


def _text(data: bytes, name: str) -> str:
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise ImportProblem(name, "not UTF-8 text") from None


def _csv_tests(name: str, text: str) -> list[tuple[str, dict]]:
    rows = list(csv.DictReader(io.StringIO(text)))
    return [(f"{name}, row {i + 2}", _csv_test(row)) for i, row in enumerate(rows)]


def _csv_test(row: dict) -> dict:
    """A CSV row as a test: promptfoo's special columns read, the rest are vars."""
    test: dict = {"vars": {}, "assert": []}
    threshold = (row.get("__threshold") or "").strip()
    for column, value in row.items():
        value = value or ""
        if column is None or column.startswith("__expected"):
            if column is not None and value.strip():
                test["assert"].append(assertion_from_string(value, threshold))
        elif column == "__description":
            test["description"] = value
        elif column == "__metric" and value:
            test["metric"] = value
        elif not column.startswith("__"):
            test["vars"][column] = value
    return test


def assertion_from_string(text: str, threshold: str = "") -> dict:
    """promptfoo's string form of an assertion (as in a CSV's __expected column)."""
    found = ASSERTION_STRING_RE.match(text.strip())
    if found is None or ":" not in text and found.group(2) not in ("is-json", "contains-json"):
        return {"type": "equals", "value": text}
    negate, kind, given, value = found.groups()
    kind = STRING_ALIASES.get(kind, kind)
    assertion = {"type": f"{negate or ''}{kind}"}
    if value is not None:
        assertion["value"] = value
    if given or threshold:
        assertion["threshold"] = float(given or threshold)
    return assertion


def _jsonl_tests(name: str, text: str) -> list[tuple[str, dict]]:
    tests = []
    for number, line in enumerate(text.splitlines(), start=1):
        if line.strip():
            tests.append((f"{name}, line {number}", _json(line, f"{name}, line {number}")))
    return tests


def _json_tests(name: str, text: str) -> list[tuple[str, dict]]:
    value = _json(text, name)
    return _listed(name, value)


def _yaml_tests(name: str, text: str) -> list[tuple[str, dict]]:
    try:
        value = yaml_bounded(yaml.safe_load(text), where=name, text_chars=len(text))
    except yaml.YAMLError as exc:
        raise ImportProblem(name, f"not valid YAML ({exc})") from None
    return _listed(name, value)


def _listed(name: str, value) -> list[tuple[str, dict]]:
    if not isinstance(value, list):
        raise ImportProblem(name, "a list of tests")
    return [(f"{name}, tests[{i}]", entry) for i, entry in enumerate(value)]


def _json(text: str, where: str):
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise ImportProblem(where, f"not valid JSON ({exc.msg})") from None


def config_tests(config: dict) -> list[tuple[str, dict]] | str | None:
    """The config's inline tests, each with where it is written."""
    tests = config.get("tests")
    if isinstance(tests, list):
        return [(f"{CONFIG}, tests[{i}]", entry) for i, entry in enumerate(tests)]
    return tests


def _test(where: str, entry) -> Test:
    if not isinstance(entry, dict):
        raise ImportProblem(where, "a test is a mapping (vars, assert, description)")
    variables = entry.get("vars") or {}
    if not isinstance(variables, dict):
        raise ImportProblem(f"{where}, vars", "a mapping of names to values")
    asserts = entry.get("assert") or []
    if not isinstance(asserts, list):
        raise ImportProblem(f"{where}, assert", "a list of assertions")
    description = entry.get("description") or ""
    return Test(
        where=where,
        description=str(description),
        vars={str(k): _var_text(v) for k, v in variables.items()},
        asserts=[(f"{where}, assert[{i}]", a) for i, a in enumerate(asserts)],
        unused=[f"{where}, {key}" for key in entry if key not in TEST_KEYS],
    )


def _var_text(value) -> str:
    """A var's value as text (numbers and structures as JSON, as a prompt would show them)."""
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False)


def _merged(default: Test, test: Test) -> Test:
    return Test(
        where=test.where,
        description=test.description or default.description,
        vars={**default.vars, **test.vars},
        asserts=[*default.asserts, *test.asserts],
        unused=test.unused,
    )
