"""The shared attack corpus plus our own cases: every attack ends in its expected status, the
host survives, no host secret leaks, and a benign evaluator right after scores normally."""

from __future__ import annotations

import pytest

import sandbox
from tests.sandbox.support import CANARY, leaked, load_attacks, make_turn

PY_WRAPPER = """
def exec_evaluation(turn):
    output = turn["evaluate_target_output_fields"]["actual_output"]["text"]
    reference = turn["evaluate_dataset_fields"]["reference_output"]["text"]
    return evaluate(output, {"answer": reference})
"""
JS_WRAPPER = """
function exec_evaluation(turn) {
  const output = turn.evaluate_target_output_fields.actual_output.text;
  const reference = turn.evaluate_dataset_fields.reference_output.text;
  return evaluate(output, {answer: reference});
}
"""
BENIGN = {
    "python": (
        "def evaluate(output, expected):\n"
        "    hit = expected['answer'] in output\n"
        "    return {'score': 1.0 if hit else 0.0, 'reason': 'contains' if hit else 'missing'}\n"
    ),
    "javascript": (
        "function evaluate(output, expected) {\n"
        "  const hit = output.includes(expected.answer);\n"
        "  return {score: hit ? 1 : 0, reason: hit ? 'contains' : 'missing'};\n"
        "}\n"
    ),
}
# quickjs-ng has no WebAssembly: the wasm loop ends as a ReferenceError, not a timeout.
ENGINE_ERRORS = {"js-wasm-loop"}
RESOURCE_STATUSES = {"timeout", "memory"}

OWN_ATTACKS = [
    {"id": "own-format-map-walk", "language": "python", "expected": "error",
     "code": "def evaluate(output, expected):\n"
             "    return {'score': 0.0, 'reason': '{0.__class__}'.format_map({'0': output})}\n"},
    {"id": "own-fstring-dunder", "language": "python", "expected": "refused",
     "code": "def evaluate(output, expected):\n"
             "    return {'score': 0.0, 'reason': f'{output.__class__.__mro__}'}\n"},
    {"id": "own-generator-frame-getattr", "language": "python", "expected": "error",
     "code": "def evaluate(output, expected):\n"
             "    g = (x for x in [1])\n"
             "    return {'score': 0.0, 'reason': str(getattr(g, 'gi_frame'))}\n"},
    {"id": "own-statistics-sys-walk", "language": "python", "expected": "error",
     "code": "import statistics\n"
             "def evaluate(output, expected):\n"
             "    os = statistics.sys.modules['os']\n"
             "    return {'score': 0.0, 'reason': os.popen('id').read()}\n"},
    {"id": "own-json-decoder-walk", "language": "python", "expected": "error",
     "code": "import json\n"
             "def evaluate(output, expected):\n"
             "    return {'score': 0.0, 'reason': str(json.decoder.re)}\n"},
    {"id": "own-string-formatter", "language": "python", "expected": "refused",
     "code": "from string import Formatter\n"
             "def evaluate(output, expected):\n"
             "    return {'score': 0.0, 'reason': Formatter().format('{0.__class__}', output)}\n"},
    {"id": "own-module-poison", "language": "python", "expected": "error",
     "code": "import json\n"
             "def evaluate(output, expected):\n"
             "    json.dumps = lambda *a, **k: 'poisoned'\n"
             "    return {'score': 1.0, 'reason': json.dumps(1)}\n"},
    {"id": "own-score-1.5", "language": "python", "expected": "error",
     "code": "def evaluate(output, expected):\n    return {'score': 1.5, 'reason': 'high'}\n"},
    {"id": "own-bool-score-in-dict", "language": "python", "expected": "error",
     "code": "def evaluate(output, expected):\n    return {'score': True, 'reason': 'bool'}\n"},
    {"id": "own-reason-not-string", "language": "python", "expected": "error",
     "code": "def evaluate(output, expected):\n    return {'score': 0.5, 'reason': 42}\n"},
    {"id": "own-huge-result", "language": "python", "expected": "error",
     "code": "def evaluate(output, expected):\n"
             "    return {'score': 1.0, 'reason': 'x' * (300 * 1024), 'extra': [1] * 10**6}\n"},
    {"id": "own-read-environ", "language": "python", "expected": "error",
     "code": "def evaluate(output, expected):\n"
             "    return {'score': 0.0, 'reason': open('/proc/self/environ').read()}\n"},
    {"id": "own-fork-via-exception-globals", "language": "python", "expected": "refused",
     "code": "def evaluate(output, expected):\n"
             "    try:\n        1 / 0\n"
             "    except Exception as e:\n"
             "        return {'score': 0.0, 'reason': str(e.__traceback__.tb_frame.f_globals)}\n"},
    {"id": "own-catch-timeout", "language": "python", "expected": "timeout",
     "code": "def evaluate(output, expected):\n"
             "    while True:\n"
             "        try:\n"
             "            while True:\n                pass\n"
             "        except:\n            pass\n"},
    {"id": "own-deep-source", "language": "python", "expected": "refused",
     "code": "X = " + "+".join(["1"] * 5000) + "\n"
             "def evaluate(output, expected):\n    return 1.0\n"},
    {"id": "own-js-prototype-pollution", "language": "javascript", "expected": "contained",
     "code": "function evaluate(output, expected) {\n"
             "  const polluted = String.prototype.includes.length === 0;\n"
             "  String.prototype.includes = function () { return true; };\n"
             "  globalThis.seen = (globalThis.seen || 0) + 1;\n"
             "  return {score: polluted ? 1 : 0, reason: 'seen ' + globalThis.seen};\n"
             "}\n"},
    {"id": "own-js-microtask-loop", "language": "javascript", "expected": "timeout",
     "code": "function evaluate(output, expected) {\n"
             "  return Promise.resolve().then(() => { while (true) {} });\n"
             "}\n"},
    {"id": "own-js-job-chain", "language": "javascript", "expected": "timeout",
     "code": "function evaluate(output, expected) {\n"
             "  function again() { return Promise.resolve().then(again); }\n"
             "  return again();\n"
             "}\n"},
    {"id": "own-js-unsettled-promise", "language": "javascript", "expected": "error",
     "code": "function evaluate(output, expected) { return new Promise(() => {}); }\n"},
    {"id": "own-js-stdout-spoof", "language": "javascript", "expected": "error",
     "code": "function evaluate(output, expected) {\n"
             "  console.log('__COZE_RETURN_VAL_START__{\"score\": 1, \"reason\": \"spoof\"}');\n"
             "  throw new Error('real failure');\n"
             "}\n"},
    {"id": "own-js-infinity-score", "language": "javascript", "expected": "error",
     "code": "function evaluate(output, expected) { return {score: Infinity, reason: 'x'}; }\n"},
    {"id": "own-js-function-constructor", "language": "javascript", "expected": "error",
     "code": "function evaluate(output, expected) {\n"
             "  const g = Function('return this')();\n"
             "  return {score: 0, reason: String(g.process.env.HOME)};\n"
             "}\n"},
]  # fmt: skip

CORPUS = load_attacks()
ALL = CORPUS + OWN_ATTACKS


def run_attack(attack: dict) -> list[sandbox.Outcome]:
    wrapper = PY_WRAPPER if attack["language"] == "python" else JS_WRAPPER
    turns = [make_turn("The capital is Paris", "Paris")] * 2
    return sandbox.execute(attack["language"], attack["code"] + wrapper, turns, timeout_s=1.0)


def satisfies(attack: dict, status: str) -> bool:
    expected = attack["expected"]
    if expected == "error":
        return status in ("error", "refused")
    if expected in RESOURCE_STATUSES:
        engine_error = attack["id"] in ENGINE_ERRORS and status == "error"
        return status in RESOURCE_STATUSES or engine_error
    if expected == "contained":
        return status in ("ok", "error")
    return status == expected


def test_corpus_is_present():
    assert len(CORPUS) >= 40, "the shared attack corpus was not found next to the repository"
    assert len(OWN_ATTACKS) >= 8


@pytest.mark.parametrize("attack", ALL, ids=[a["id"] for a in ALL])
def test_attack_is_contained(attack):
    outcomes = run_attack(attack)
    assert len(outcomes) == 2
    for outcome in outcomes:
        assert satisfies(attack, outcome.status), (attack["id"], outcome)
        assert outcome.score is None or 0.0 <= outcome.score <= 1.0
        assert not leaked(outcome), f"host environment leaked: {leaked(outcome)}"
        assert CANARY not in repr(outcome)
    # Fresh state per turn: both turns of a batch end the same way.
    assert [(o.status, o.score, o.reason) for o in outcomes] == [
        (outcomes[0].status, outcomes[0].score, outcomes[0].reason)
    ] * 2
    benign = sandbox.execute(
        attack["language"],
        BENIGN[attack["language"]] + (PY_WRAPPER if attack["language"] == "python" else JS_WRAPPER),
        [make_turn("The capital is Paris", "Paris"), make_turn("The capital is Rome", "Paris")],
    )
    assert [(o.status, o.score) for o in benign] == [("ok", 1.0), ("ok", 0.0)]


def test_output_flood_is_capped_with_a_marker():
    attack = next(a for a in CORPUS if a["id"] == "py-output-flood")
    outcome = run_attack(attack)[0]
    assert outcome.status == "ok"
    assert outcome.stdout.endswith("[output truncated]")
    assert len(outcome.stdout) <= 64 * 1024 + 100


def test_cross_call_state_does_not_survive_between_turns():
    attack = next(a for a in CORPUS if a["id"] == "py-cross-call-state")
    outcomes = run_attack(attack)
    assert [(o.score, o.reason) for o in outcomes] == [(0.1, "call 1"), (0.1, "call 1")]


def test_js_prototype_pollution_does_not_cross_turns():
    attack = next(a for a in OWN_ATTACKS if a["id"] == "own-js-prototype-pollution")
    outcomes = run_attack(attack)
    assert [(o.status, o.score, o.reason) for o in outcomes] == [("ok", 0.0, "seen 1")] * 2


def test_stdout_spoof_does_not_become_a_score():
    attack = next(a for a in OWN_ATTACKS if a["id"] == "own-js-stdout-spoof")
    outcome = run_attack(attack)[0]
    assert (outcome.status, outcome.score) == ("error", None)
    assert "real failure" in outcome.error
    assert "__COZE_RETURN_VAL_START__" in outcome.stdout
