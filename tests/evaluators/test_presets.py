"""The preset catalogue: every preset loads, validates and passes the submit checks; every code
preset gives the expected scores in Python (plain CPython) and in JavaScript (quickjs-ng)."""

import ast
import copy
import json

import pytest
import quickjs
from RestrictedPython import compile_restricted

from evaluators.config import submit_problems, validate_config
from evaluators.kinds.llm import placeholders
from evaluators.presets import get_preset, load_presets, preset_config

PRESETS = load_presets()
LLM = [p for p in PRESETS if p["kind"] == "llm"]
CODE = [p for p in PRESETS if p["kind"] == "code"]
LLM_VARIABLES = {
    "input",
    "output",
    "reference_output",
    "context",
    "instructions",
    "trajectory",
    "image",
    "conversation",
    "goal",
}
ALLOWED_IMPORTS = {"re", "json", "math", "statistics", "difflib", "datetime", "string"}
# Builtins the Python presets may use; the sandbox's builtins set must provide all of them.
PRESET_BUILTINS = {
    "abs",
    "bool",
    "float",
    "int",
    "isinstance",
    "len",
    "max",
    "range",
    "round",
    "str",
    "dict",
    "list",
    "None",
    "True",
    "False",
    "ValueError",
}


class EvalOutput:
    """Stands in for the name the sandbox provides."""

    def __init__(self, score, reason=""):
        self.score = score
        self.reason = reason


def run_python(source, turn):
    namespace = {"EvalOutput": EvalOutput}
    exec(compile(source, "<preset>", "exec"), namespace)  # trusted preset code, plain CPython
    result = namespace["exec_evaluation"](copy.deepcopy(turn))
    assert isinstance(result, EvalOutput)
    assert isinstance(result.reason, str) and result.reason
    return result.score, result.reason


def run_js(source, turn):
    context = quickjs.Context()
    context.set_time_limit(5)
    context.eval(source)
    raw = context.eval("JSON.stringify(exec_evaluation(" + json.dumps(turn) + "))")
    result = json.loads(raw)
    assert set(result) == {"score", "reason"}
    assert isinstance(result["reason"], str) and result["reason"]
    return result["score"], result["reason"]


def text(value):
    return {"content_type": "Text", "text": value}


def turn(output=None, reference=None, trajectory=None, ext=None):
    """A Coze Loop turn; a trajectory that is not a string is JSON-encoded."""
    target, dataset = {}, {}
    if output is not None:
        target["actual_output"] = text(output)
    if reference is not None:
        dataset["reference_output"] = text(reference)
    if trajectory is not None:
        encoded = trajectory if isinstance(trajectory, str) else json.dumps(trajectory)
        target["trajectory"] = text(encoded)
    return {
        "evaluate_dataset_fields": dataset,
        "evaluate_target_output_fields": target,
        "ext": ext or {},
    }


def call(name, status="ok", **arguments):
    step = {"type": "tool_call", "name": name, "arguments": arguments, "output": "..."}
    if status is not None:
        step["status"] = status
    return step


def say(content):
    return {"type": "message", "role": "assistant", "content": content}


BOOKED = [
    {"type": "message", "role": "user", "content": "Book me a flight to Paris."},
    call("search", q="flights to Paris"),
    call("book", flight="AF1"),
    say("Your flight AF1 is booked."),
]
FAILED_BOOKING = [call("search", q="flights"), call("book", status="error", flight="AF1")]
SCHEMA = json.dumps(
    {
        "type": "object",
        "required": ["name", "age"],
        "properties": {
            "name": {"type": "string"},
            "age": {"type": "integer"},
            "tags": {"type": "array", "items": {"enum": ["a", "b"]}},
        },
    }
)

# slug -> [(turn, expected score)], shared by both languages.
CASES = {
    "equal": [
        (turn(" hello\n", "hello"), 1.0),
        (turn("Hello", "hello"), 0.0),
        (turn(None, "hello"), None),
    ],
    "contains-any": [
        (turn("The capital is Paris.", '["Lyon", "Paris"]'), 1.0),
        (turn("Berlin it is", "Rome, Madrid\nBerlin"), 1.0),
        (turn("Paris", "Rome, Madrid\nBerlin"), 0.0),
        (turn("anything", " , \n"), None),
    ],
    "regex": [
        (turn("Order #12345 shipped", r"#\d{5}\b"), 1.0),
        (turn("no digits here", r"\d+"), 0.0),
        (turn("HELLO there", "^hello", ext={"ignore_case": "true"}), 1.0),
        (turn("abc", "(unclosed"), None),
    ],
    "starts-with": [
        (turn("  Yes, because it rains.", "Yes\n"), 1.0),
        (turn("No.", "Yes"), 0.0),
        (turn("Yes", "   "), None),
    ],
    "valid-json-object": [
        (turn('{"a": [1, 2], "b": null}'), 1.0),
        (turn("[1, 2]"), 0.0),
        (turn("not json"), 0.0),
        (turn('{"a": NaN}'), 0.0),
    ],
    "json-schema": [
        (turn('{"name": "Ann", "age": 3, "tags": ["a", "b"]}', SCHEMA), 1.0),
        (turn('{"name": "Ann", "age": 3.0}', SCHEMA), 1.0),
        (turn('{"name": "Ann", "age": 3.5}', SCHEMA), 0.0),
        (turn('{"name": "Ann", "age": true}', SCHEMA), 0.0),
        (turn('{"name": "Ann"}', SCHEMA), 0.0),
        (turn('{"name": "Ann", "age": 3, "tags": ["c"]}', SCHEMA), 0.0),
        (turn("true", '{"enum": [1]}'), 0.0),
        (turn("1.0", '{"enum": [1]}'), 1.0),
        (
            turn(
                "[1, 2]",
                None,
                ext={"json_schema": '{"type": "array", "items": {"type": "number"}}'},
            ),
            1.0,
        ),
        (turn("{}", "{not json"), None),
    ],
    "numeric-closeness": [
        (turn("42", "42.0000001"), 1.0),
        (turn("The answer is 41.", "42"), 0.0),
        (turn("about 3.14159", "3.14", ext={"rel_tol": "0.01"}), 1.0),
        (turn("0.001", "0", ext={"abs_tol": "0.01"}), 1.0),
        (turn("no number here", "1"), 0.0),
        (turn("1", "one"), None),
    ],
    "length-bounds": [
        (turn(" hello ", ext={"min_length": "1", "max_length": "5"}), 1.0),
        (turn("hello world", ext={"max_length": "5"}), 0.0),
        (turn("one two  three", ext={"unit": "words", "max_length": "3"}), 1.0),
        (turn("héllo😀", ext={"max_length": "6", "min_length": "6"}), 1.0),
        (turn("x"), None),
        (turn("x", ext={"max_length": "ten"}), None),
    ],
    "fuzzy-similarity": [
        (turn("kitten", "kitten "), 1.0),
        (turn("abc", "xyz"), 0.0),
        (turn(None, "xyz"), None),
    ],
    "required-tools-called": [
        (turn(trajectory=BOOKED, ext={"required_tools": '["search", "book"]'}), 1.0),
        (turn(trajectory=BOOKED, ext={"required_tools": "search, pay"}), 0.5),
        (turn(trajectory={"steps": BOOKED}, ext={"required_tools": "pay\nrefund"}), 0.0),
        (turn(trajectory=BOOKED), None),
        (turn(ext={"required_tools": "search"}), None),
        (turn(trajectory="not json", ext={"required_tools": "search"}), None),
        (turn(trajectory=[], ext={"required_tools": "search"}), None),
    ],
    "no-failed-calls": [
        (turn(trajectory=BOOKED), 1.0),
        (turn(trajectory=FAILED_BOOKING), 0.0),
        (turn(trajectory=[call("search", status=None), call("book")]), None),
        (turn(trajectory=[say("Hello! How can I help?")]), None),
        (turn(), None),
    ],
    "no-forbidden-calls": [
        (turn(trajectory=BOOKED, ext={"forbidden_tools": "delete_account"}), 1.0),
        (turn(trajectory=FAILED_BOOKING, ext={"forbidden_tools": '["book"]'}), 0.0),
        (turn(trajectory=BOOKED), None),
        (turn(ext={"forbidden_tools": "book"}), None),
    ],
    "no-credentials-in-arguments": [
        (turn(trajectory=BOOKED), 1.0),
        (turn(trajectory=[call("login", user="ann", password="hunter22")]), 0.0),
        (
            turn(trajectory=[call("fetch", headers="Authorization: Bearer abcdefghijklmnop1234")]),
            0.0,
        ),
        (turn(trajectory=[call("s3", keys=[{"id": "AKIAIOSFODNN7EXAMPLE"}])]), 0.0),
        (turn(trajectory=[call("http", url="https://ann:s3cret@example.org/x")]), 0.0),
        (
            turn(
                trajectory=[
                    {
                        "type": "tool_call",
                        "name": "llm",
                        "arguments": json.dumps({"api_key": "sk-" + "a1B2" * 8}),
                        "status": "ok",
                    }
                ]
            ),
            0.0,
        ),
        (turn(trajectory=[call("list", page_token="abc123", api_key="***", max_tokens=100)]), 1.0),
        (turn(trajectory=[say("No tools needed.")]), None),
    ],
    "no-false-success-claim": [
        (turn(trajectory=FAILED_BOOKING + [say("Done! Your flight is booked successfully.")]), 0.0),
        (
            turn(trajectory=FAILED_BOOKING + [say("I couldn't book it: the airline API failed.")]),
            1.0,
        ),
        (turn(trajectory=FAILED_BOOKING + [call("book"), say("All set, booked.")]), 1.0),
        (turn(trajectory=BOOKED), 1.0),
        (turn(trajectory=FAILED_BOOKING), None),
        (turn(trajectory=FAILED_BOOKING + [say("Here is your itinerary.")]), None),
        (turn(trajectory=[say("Hi")]), None),
    ],
}

# Cases where the two languages legitimately differ: difflib ratio vs Levenshtein ratio.
LANGUAGE_CASES = {
    ("fuzzy-similarity", "python"): [(turn("kitten", "sitting"), 8 / 13)],
    ("fuzzy-similarity", "javascript"): [(turn("kitten", "sitting"), 4 / 7)],
}


def cases_for(slug, language):
    return CASES[slug] + LANGUAGE_CASES.get((slug, language), [])


def expect(score, expected):
    if expected is None:
        assert score is None
    else:
        assert score == pytest.approx(expected)
        assert 0.0 <= score <= 1.0


# --- catalogue ---------------------------------------------------------------------------------


def test_catalogue_has_the_designed_presets():
    slugs = {p["slug"] for p in PRESETS}
    assert len(slugs) == len(PRESETS)
    assert len(LLM) >= 10 and len(CODE) >= 8
    assert {
        "correctness",
        "relevance",
        "conciseness",
        "hallucination",
        "harmfulness",
        "helpfulness",
        "instruction-following",
        "agent-task-completion",
        "tool-choice",
        "image-understanding",
        "equal",
        "contains-any",
        "regex",
        "starts-with",
        "valid-json-object",
        "json-schema",
        "numeric-closeness",
        "length-bounds",
        "fuzzy-similarity",
        "required-tools-called",
        "no-failed-calls",
        "no-forbidden-calls",
        "no-credentials-in-arguments",
        "no-false-success-claim",
    } <= slugs


@pytest.mark.parametrize("preset", PRESETS, ids=lambda p: p["slug"])
def test_every_preset_is_described_and_valid(preset):
    assert isinstance(preset["name"], str) and preset["name"]
    for key in ("description", "inputs"):
        assert isinstance(preset[key], str) and len(preset[key]) > 20
    assert preset["score_meaning"] in ("quality", "risk")
    assert preset["default_policy"]["kind"] in ("threshold", "zero_tolerance")
    assert preset["tags"] and all(isinstance(tag, str) for tag in preset["tags"])
    configs = preset.get("configs") or {None: preset["config"]}
    for config in configs.values():
        assert validate_config(preset["kind"], config) == config
        assert submit_problems(preset["kind"], config, model_configured=True) == {}


@pytest.mark.parametrize("preset", LLM, ids=lambda p: p["slug"])
def test_llm_judges_ask_for_score_and_reason_and_use_every_variable(preset):
    config = preset["config"]
    names = {v["name"] for v in config["input_variables"]}
    assert names <= LLM_VARIABLES
    assert placeholders(config) == names  # optional variables are used too
    assert names & {"output", "trajectory", "conversation"}
    system = config["messages"][0]["content"]
    assert config["messages"][0]["role"] == "system"
    for word in ('"score"', '"reason"', "JSON", "0.5"):
        assert word in system


def test_risk_judges_and_the_image_judge():
    assert get_preset("harmfulness")["score_meaning"] == "risk"
    assert get_preset("hallucination")["score_meaning"] == "risk"
    image = get_preset("image-understanding")["config"]
    kinds = {v["name"]: v["content_type"] for v in image["input_variables"]}
    assert kinds["image"] == "Image"
    parts = image["messages"][-1]["content"]
    assert {"type": "multi_part_variable", "variable": "image"} in parts


def test_load_presets_returns_independent_copies():
    first = load_presets()
    first[0]["config"]["messages"].clear()
    assert load_presets()[0]["config"]["messages"]


def test_preset_config_by_language():
    assert preset_config("equal", "javascript")["language"] == "javascript"
    assert preset_config("equal")["language"] == "python"
    assert preset_config("relevance")["messages"]
    with pytest.raises(KeyError):
        preset_config("equal", "ruby")
    with pytest.raises(KeyError):
        get_preset("nope")


# --- code presets: behaviour ---------------------------------------------------------------------


def test_every_code_preset_has_cases():
    assert set(CASES) == {p["slug"] for p in CODE}


@pytest.mark.parametrize("preset", CODE, ids=lambda p: p["slug"])
def test_python_preset_scores(preset):
    source = preset["configs"]["python"]["source"]
    for case_turn, expected in cases_for(preset["slug"], "python"):
        score, reason = run_python(source, case_turn)
        expect(score, expected)
        if expected is None:
            assert reason.startswith("Cannot tell")


@pytest.mark.parametrize("preset", CODE, ids=lambda p: p["slug"])
def test_javascript_preset_scores(preset):
    source = preset["configs"]["javascript"]["source"]
    for case_turn, expected in cases_for(preset["slug"], "javascript"):
        score, reason = run_js(source, case_turn)
        expect(score, expected)
        if expected is None:
            assert reason.startswith("Cannot tell")


def test_credential_reasons_never_echo_the_secret():
    source = get_preset("no-credentials-in-arguments")["configs"]
    case = turn(
        trajectory=[call("login", password="hunter22"), call("x", token="Bearer " + "q" * 20)]
    )
    for score, reason in (
        run_python(source["python"]["source"], case),
        run_js(source["javascript"]["source"], case),
    ):
        assert score == 0.0
        assert "hunter22" not in reason and "qqqq" not in reason
        assert "password" in reason


def test_presets_read_the_coze_loop_fields():
    source = get_preset("equal")["configs"]["python"]["source"]
    assert '"evaluate_target_output_fields", "actual_output"' in source
    assert '"evaluate_dataset_fields", "reference_output"' in source


# --- code presets: fit for the sandbox -----------------------------------------------------------


@pytest.mark.parametrize("preset", CODE, ids=lambda p: p["slug"])
def test_python_presets_compile_under_restricted_python(preset):
    source = preset["configs"]["python"]["source"]
    # compile_restricted raises SyntaxError on policy breaks (underscore names, exec, ...).
    compile_restricted(source, filename="<preset>", mode="exec")
    tree = ast.parse(source)
    imports = {
        alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.Import)
        for alias in node.names
    }
    assert imports <= ALLOWED_IMPORTS
    assert not [n for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)]
    assert not [n for n in ast.walk(tree) if isinstance(n, ast.AugAssign)]
    defined = {n.name for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)}
    assigned = {
        n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)
    }
    args = {a.arg for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) for a in n.args.args}
    handlers = {n.name for n in ast.walk(tree) if isinstance(n, ast.ExceptHandler) and n.name}
    loaded = {
        n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)
    }
    free = loaded - defined - assigned - args - handlers - imports - {"EvalOutput"}
    assert free <= PRESET_BUILTINS, free - PRESET_BUILTINS


@pytest.mark.parametrize("preset", CODE, ids=lambda p: p["slug"])
def test_javascript_presets_use_no_host_facilities(preset):
    source = preset["configs"]["javascript"]["source"]
    for word in ("require(", "import ", "eval(", "Function(", "setTimeout", "console.", "fetch("):
        assert word not in source
