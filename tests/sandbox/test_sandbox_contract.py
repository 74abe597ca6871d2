"""The evaluator contract (Coze Loop's), as user code sees it, in Python and JavaScript."""

from __future__ import annotations

import os
import threading

import pytest

import sandbox
from sandbox.host import MANAGER
from tests.sandbox.support import make_turn

PARIS = make_turn("Paris", "Paris")


def run_one(language: str, source: str, turn: dict | None = None, **kwargs) -> sandbox.Outcome:
    return sandbox.execute(language, source, [turn or PARIS], **kwargs)[0]


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ("return EvalOutput(score=0.75, reason='eo')", (0.75, "eo")),
        ("return EvalOutput(1.0, 'positional')", (1.0, "positional")),
        ("return {'score': 0.25, 'reason': 'dict'}", (0.25, "dict")),
        ("return {'score': 0.5}", (0.5, "")),
        ("return 0.5", (0.5, "")),
        ("return 1", (1.0, "")),
        ("return True", (1.0, "")),
        ("return False", (0.0, "")),
        ("return EvalOutput(score=None, reason='cannot tell')", (None, "cannot tell")),
    ],
)
def test_python_return_forms(body, expected):
    outcome = run_one("python", f"def exec_evaluation(turn):\n    {body}\n")
    assert outcome.status == "ok", outcome
    assert (outcome.score, outcome.reason) == expected


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ("return EvalOutput(0.75, 'eo');", (0.75, "eo")),
        ("return new EvalOutput(0.5, 'new');", (0.5, "new")),
        ("return {score: 0.25, reason: 'object'};", (0.25, "object")),
        ("return 1;", (1.0, "")),
        ("return false;", (0.0, "")),
        ("return {score: null, reason: 'unknown'};", (None, "unknown")),
        ("return Promise.resolve({score: 1, reason: 'async'});", (1.0, "async")),
    ],
)
def test_javascript_return_forms(body, expected):
    outcome = run_one("javascript", f"function exec_evaluation(turn) {{ {body} }}")
    assert outcome.status == "ok", outcome
    assert (outcome.score, outcome.reason) == expected


@pytest.mark.parametrize(
    "source",
    [
        "function execEvaluation(turn) { return 1; }",
        "const exec_evaluation = (turn) => 1;",
        "async function exec_evaluation(turn) { return 1; }",
        "var execEvaluation = function (turn) { return 1; };",
    ],
)
def test_javascript_entry_spellings(source):
    assert run_one("javascript", source).score == 1.0


def test_python_object_with_score_attributes_and_writable_own_classes():
    source = (
        "class Result:\n"
        "    def __init__(self, score, reason):\n"
        "        self.score = score\n"
        "        self.reason = reason\n"
        "def exec_evaluation(turn):\n"
        "    return Result(0.5, 'class')\n"
    )
    outcome = run_one("python", source)
    assert (outcome.status, outcome.score, outcome.reason) == ("ok", 0.5, "class")


def test_python_language_features_real_evaluators_use():
    source = """
import json, math, re, statistics, difflib, datetime, string
def exec_evaluation(turn):
    text = turn["evaluate_target_output_fields"]["actual_output"]["text"]
    words = sorted(set(re.findall(r"\\w+", text.lower())))
    total = 0
    for i, word in enumerate(words):
        total += len(word)
    pairs = {k: v for k, v in zip(words, range(len(words)))}
    mean = statistics.mean([len(w) for w in words])
    ratio = difflib.SequenceMatcher(None, text, "hello world").ratio()
    day = datetime.date(2024, 1, 2).isoformat()
    a, (b, c) = 1, (2, 3)
    args = [1, 2]
    biggest = max(*args)
    data = json.loads(json.dumps({"words": words, "pairs": pairs}))
    upper = string.ascii_uppercase[:3]
    score = min(1.0, math.sqrt(ratio)) if any(words) and all(words) else 0.0
    return EvalOutput(score, f"{day} {mean:.1f} {total} {a+b+c} {biggest} {upper} {len(data)}")
"""
    outcome = run_one("python", source, make_turn("hello world, hello"))
    assert outcome.status == "ok", outcome
    assert outcome.reason == "2024-01-02 5.0 10 6 2 ABC 2"
    assert 0.0 < outcome.score <= 1.0


def test_turn_is_a_fresh_copy_and_the_callers_turns_are_untouched():
    source = (
        "def exec_evaluation(turn):\n"
        "    seen = 'mutated' in turn['ext']\n"
        "    turn['ext']['mutated'] = 'yes'\n"
        "    turn['evaluate_dataset_fields'].clear()\n"
        "    return EvalOutput(1.0 if seen else 0.0, 'seen' if seen else 'fresh')\n"
    )
    turn = make_turn("a", "b")
    outcomes = sandbox.execute("python", source, [turn, turn, turn])
    assert [(o.score, o.reason) for o in outcomes] == [(0.0, "fresh")] * 3
    assert turn == make_turn("a", "b")


def test_print_is_captured_per_turn():
    source = (
        "def exec_evaluation(turn):\n"
        "    print('actual:', turn['evaluate_target_output_fields']['actual_output']['text'])\n"
        "    return 1.0\n"
    )
    outcomes = sandbox.execute("python", source, [make_turn("one"), make_turn("two")])
    assert [o.stdout for o in outcomes] == ["actual: one\n", "actual: two\n"]
    js = "function exec_evaluation(t) { console.log('n', 1, {a: [2]}); return 1; }"
    assert run_one("javascript", js).stdout == 'n 1 {"a":[2]}\n'


@pytest.mark.parametrize(
    ("language", "source", "expected"),
    [
        (
            "python",
            "def exec_evaluation(turn):\n    x = 0\n    return 1 / x\n",
            "line 3: ZeroDivisionError: division by zero",
        ),
        (
            "python",
            "def exec_evaluation(turn):\n    return turn['missing']\n",
            "line 2: KeyError: 'missing'",
        ),
        (
            "python",
            "def helper():\n    raise ValueError('bad input')\n\n"
            "def exec_evaluation(turn):\n    return helper()\n",
            "line 2: ValueError: bad input",
        ),
        (
            "javascript",
            "function exec_evaluation(turn) {\n  const x = null;\n  return x.y;\n}",
            "line 3: TypeError: cannot read property 'y' of null",
        ),
        (
            "javascript",
            "function exec_evaluation(turn) {\n\n  throw new RangeError('nope');\n}",
            "line 3: RangeError: nope",
        ),
    ],
)
def test_runtime_errors_name_the_user_line(language, source, expected):
    outcome = run_one(language, source)
    assert outcome.status == "error"
    assert outcome.error == expected


@pytest.mark.parametrize("language", ["python", "javascript"])
def test_runaway_turn_times_out_and_the_batch_continues(language):
    if language == "python":
        source = (
            "def exec_evaluation(turn):\n"
            "    if turn['ext'].get('spin'):\n"
            "        while True:\n            pass\n"
            "    return EvalOutput(1.0, turn['ext'].get('n', ''))\n"
        )
    else:
        source = (
            "function exec_evaluation(turn) {\n"
            "  if (turn.ext.spin) { while (true) {} }\n"
            "  return {score: 1, reason: turn.ext.n || ''};\n"
            "}\n"
        )
    turns = [make_turn("a", n="0"), make_turn("a", spin="1"), make_turn("a", n="2")]
    outcomes = sandbox.execute(language, source, turns, timeout_s=0.5)
    assert [o.status for o in outcomes] == ["ok", "timeout", "ok"]
    assert [o.reason for o in outcomes] == ["0", "", "2"]


def test_memory_bomb_in_the_middle_of_a_batch():
    source = (
        "def exec_evaluation(turn):\n"
        "    if turn['ext'].get('big'):\n"
        "        block = 'x' * (512 * 1024 * 1024)\n"
        "    return 1.0\n"
    )
    turns = [make_turn("a"), make_turn("a", big="1"), make_turn("a")]
    outcomes = sandbox.execute("python", source, turns, memory_mb=128)
    assert [o.status for o in outcomes] == ["ok", "memory", "ok"]


def test_compile_errors_refuse_every_turn_with_user_line_numbers():
    outcomes = sandbox.execute("python", "x = 1\ndef exec_evaluation(turn:\n", [PARIS, PARIS])
    assert [o.status for o in outcomes] == ["refused", "refused"]
    assert outcomes[0].error.startswith("line 2: SyntaxError")


def test_empty_batch_and_bad_arguments():
    assert sandbox.execute("python", "def exec_evaluation(t):\n    return 1\n", []) == []
    with pytest.raises(ValueError):
        sandbox.execute("ruby", "x", [PARIS])
    with pytest.raises(ValueError):
        sandbox.execute("python", "x", [PARIS], timeout_s=float("nan"))


def test_turn_that_is_not_json_is_an_error_without_stopping_the_batch():
    source = "def exec_evaluation(turn):\n    return 1.0\n"
    outcomes = sandbox.execute("python", source, [PARIS, {"bad": {1, 2}}, PARIS])
    assert [o.status for o in outcomes] == ["ok", "error", "ok"]
    assert "JSON" in outcomes[1].error


def test_concurrent_batches_from_threads_get_their_own_results():
    source = "def exec_evaluation(turn):\n    return EvalOutput(1.0, turn['ext']['who'])\n"
    results: dict[int, list[str]] = {}

    def work(n: int) -> None:
        turns = [make_turn("a", who=f"{n}-{i}") for i in range(30)]
        results[n] = [o.reason for o in sandbox.execute("python", source, turns)]

    threads = [threading.Thread(target=work, args=(n,)) for n in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert results == {n: [f"{n}-{i}" for i in range(30)] for n in range(4)}


def test_a_dead_zygote_is_replaced():
    source = "def exec_evaluation(turn):\n    return 0.5\n"
    assert run_one("python", source).score == 0.5
    zygote = MANAGER.get()
    os.kill(zygote.proc.pid, 9)  # the process this test suite started
    zygote.proc.wait()
    assert run_one("python", source).score == 0.5
    assert MANAGER.get() is not zygote


def test_a_forked_host_gets_its_own_zygote_and_leaves_the_parents_alone():
    source = "def exec_evaluation(turn):\n    return 0.25\n"
    parent_zygote = MANAGER.get()
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # like a prefork worker: must not talk to the parent's zygote
        try:
            outcome = run_one("python", source)
            mine = MANAGER.get() is not parent_zygote
            os.write(write_end, f"{outcome.score} {mine}".encode())
        finally:
            os._exit(0)
    os.close(write_end)
    answer = os.read(read_end, 100).decode()
    os.close(read_end)
    os.waitpid(pid, 0)
    assert answer == "0.25 True"
    assert MANAGER.get() is parent_zygote
    assert run_one("python", source).score == 0.25


def test_require_netns_runs_only_where_the_namespace_exists():
    report = sandbox.isolation_report()
    outcome = run_one("python", "def exec_evaluation(t):\n    return 1\n", require_netns=True)
    if report["network_namespace"]:
        assert outcome.status == "ok"
    else:
        assert outcome.status == "refused"
        assert "network namespace" in outcome.error


# ---------------------------------------------------------------- check()


@pytest.mark.parametrize(
    ("language", "source", "expected"),
    [
        ("python", "import json\n\ndef exec_evaluation(turn):\n    return 1.0\n", []),
        ("python", "x = 1\ndef exec_evaluation(turn:\n    return 1\n", [(2, "SyntaxError")]),
        (
            "python",
            "import json\nimport os\ndef exec_evaluation(turn):\n    return 1\n",
            [(2, "import of 'os' is not allowed")],
        ),
        (
            "python",
            "def exec_evaluation(turn):\n    from subprocess import run\n",
            [(2, "import of 'subprocess' is not allowed")],
        ),
        (
            "python",
            "def evaluate(turn):\n    return 1\n",
            [(None, "exec_evaluation(turn) is not defined")],
        ),
        (
            "python",
            "def exec_evaluation(turn):\n    return turn.__class__\n",
            [(2, '"__class__" is an invalid attribute name')],
        ),
        ("javascript", "function exec_evaluation(turn) {\n  return 1;\n}\n", []),
        (
            "javascript",
            "function exec_evaluation(turn) {\n  return 1 +;\n}\n",
            [(2, "SyntaxError")],
        ),
        ("javascript", "function evaluate(turn) { return 1; }", [(None, "is not defined")]),
    ],
)
def test_check(language, source, expected):
    result = sandbox.check(language, source)
    assert result.ok is (not expected)
    found = [(e["line"], e["message"]) for e in result.errors]
    assert len(found) == len(expected), found
    for (line, message), (want_line, want_text) in zip(found, expected, strict=True):
        assert line == want_line
        assert want_text in message


def test_check_does_not_run_python_code_in_the_caller():
    # A top-level infinite loop would hang the caller if check executed the module here.
    result = sandbox.check(
        "python", "while True:\n    pass\ndef exec_evaluation(t):\n    return 1\n"
    )
    assert result.ok


def test_check_stops_javascript_top_level_runaways():
    result = sandbox.check("javascript", "while (true) {}\n", timeout_s=0.5)
    assert not result.ok
    assert "time limit" in result.errors[0]["message"]


# ---------------------------------------------------------------- isolation report


def test_isolation_report_describes_a_locked_down_child():
    report = sandbox.isolation_report()
    assert report["level"] in ("strong", "standard", "degraded")
    child = report["child"]
    assert child["rlimits"]["fsize"] == 0
    assert child["rlimits"]["nproc"] == 0
    assert child["rlimits"]["nofile"] <= 16
    assert child["file_writes_blocked"] is True
    assert child["no_new_privs"] is True
    assert "ASSAY_SANDBOX_CANARY" not in child["environment"]
    assert child["django_loaded"] is False
    if report["unprivileged"]:
        assert child["fork_blocked"] is True
        assert child["uid"] != 0
    if report["network_namespace"]:
        assert child["network_unreachable"] is True


# ----------------------------------------------------------------------------- pasted Python

PASTED = {
    "annotated assignment": (
        "def exec_evaluation(turn):\n    score: float = 1.0\n    return EvalOutput(score=score)\n"
    ),
    "dataclass": (
        "from dataclasses import dataclass, field\n\n@dataclass\nclass Verdict:\n"
        "    score: float\n    notes: list = field(default_factory=list)\n\n"
        "def exec_evaluation(turn):\n    v = Verdict(1.0)\n    v.notes.append('ok')\n"
        "    return EvalOutput(score=v.score, reason=repr(v))\n"
    ),
    "typing": (
        "from typing import Optional\n\ndef half(x: Optional[float]) -> float:\n"
        "    return 0.5 if x is None else x\n\n"
        "def exec_evaluation(turn):\n    return EvalOutput(score=half(None) * 2)\n"
    ),
    "enum": (
        "import enum\n\nclass Grade(enum.Enum):\n    GOOD = 1\n\n"
        "def exec_evaluation(turn):\n    return EvalOutput(score=float(Grade(1).value))\n"
    ),
    "from-import": "from math import sqrt\n\ndef exec_evaluation(turn):\n    return sqrt(1.0)\n",
    "every listed module": (
        "import base64, collections, dataclasses, datetime, decimal, difflib, enum, fractions\n"
        "import functools, hashlib, itertools, json, math, re, statistics, string, textwrap\n"
        "import typing, unicodedata\n\n"
        "def exec_evaluation(turn):\n"
        "    counts = collections.Counter('aab')\n"
        "    parts = [base64.b64encode(b'x').decode(), hashlib.sha256(b'x').hexdigest()[:4],\n"
        "             unicodedata.name('a'), textwrap.shorten('a b c', 5),\n"
        "             str(decimal.Decimal('0.5') + 0), str(fractions.Fraction(1, 2)),\n"
        "             str(functools.reduce(lambda a, b: a + b, [1, 2])),\n"
        "             str(list(itertools.islice(itertools.count(), 2)))]\n"
        "    return EvalOutput(score=counts['a'] / 2, reason=' '.join(parts))\n"
    ),
}


@pytest.mark.parametrize("name", list(PASTED))
def test_python_that_users_paste_runs(name):
    outcome = run_one("python", PASTED[name])
    assert outcome.status == "ok" and outcome.score == 1.0, outcome.error


def test_annotating_an_attribute_is_refused_with_a_reason():
    source = (
        "class X:\n    pass\n\ndef exec_evaluation(turn):\n    x = X()\n    x.a: int = 1\n"
        "    return 1\n"
    )
    outcome = run_one("python", source)
    assert outcome.status == "refused" and "Annotate a plain name" in outcome.error


@pytest.mark.parametrize("name", ["get_type_hints", "ForwardRef"])
def test_typing_offers_nothing_that_evaluates_strings(name):
    # typing.get_type_hints / ForwardRef eval strings as unguarded code: not importable
    outcome = run_one(
        "python", f"from typing import {name}\ndef exec_evaluation(turn):\n    return 1\n"
    )
    assert outcome.status == "refused"
    probe = f"import typing\ndef exec_evaluation(turn):\n    return typing.{name}\n"
    assert run_one("python", probe).status == "error"


def test_enum_members_stay_read_only():
    source = (
        "import enum\nclass C(enum.Enum):\n    A = 1\n\n"
        "def exec_evaluation(turn):\n    C.A.x = 1\n    return 1\n"
    )
    assert run_one("python", source).status == "error"
