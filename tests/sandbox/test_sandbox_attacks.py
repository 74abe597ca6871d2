"""The shared attack corpus plus our own cases: every attack ends in its expected status, the
host survives, no host secret leaks, and a benign evaluator right after scores normally."""

from __future__ import annotations

import os

import pytest

import sandbox
from tests.sandbox.attacks import OWN_ATTACKS
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


CORPUS = load_attacks()
ALL = OWN_ATTACKS + CORPUS


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


def _ending(status: str) -> str:
    return "a resource limit" if status in RESOURCE_STATUSES else status


def test_our_own_table_covers_every_kind_of_attack():
    assert len(OWN_ATTACKS) >= 40
    assert {a["expected"] for a in OWN_ATTACKS} >= {
        "error",
        "refused",
        "timeout",
        "memory",
        "contained",
    }
    assert {a["language"] for a in OWN_ATTACKS} == {"python", "javascript"}
    assert len({a["id"] for a in OWN_ATTACKS}) == len(OWN_ATTACKS)


def test_the_shared_corpus_runs_when_present_and_ci_requires_it():
    if not CORPUS:
        assert os.environ.get("ASSAY_REQUIRE_SERVICES") != "1", (
            "CI runs the shared attack corpus: ../shared/sandbox-attacks.json is missing"
        )
        pytest.skip("the shared attack corpus is not beside this checkout")
    assert len(CORPUS) >= 40


@pytest.mark.parametrize("attack", ALL, ids=[a["id"] for a in ALL])
def test_attack_is_contained(attack):
    outcomes = run_attack(attack)
    assert len(outcomes) == 2
    for outcome in outcomes:
        assert satisfies(attack, outcome.status), (attack["id"], outcome)
        assert outcome.score is None or 0.0 <= outcome.score <= 1.0
        assert not leaked(outcome), f"host environment leaked: {leaked(outcome)}"
        assert CANARY not in repr(outcome)
    # Fresh state per turn: both turns of a batch end the same way (a resource limit is one
    # way: whether time or memory runs out first depends on the machine's load)
    ends = [(_ending(o.status), o.score, o.reason) for o in outcomes]
    assert ends == [ends[0]] * 2
    benign = sandbox.execute(
        attack["language"],
        BENIGN[attack["language"]] + (PY_WRAPPER if attack["language"] == "python" else JS_WRAPPER),
        [make_turn("The capital is Paris", "Paris"), make_turn("The capital is Rome", "Paris")],
    )
    assert [(o.status, o.score) for o in benign] == [("ok", 1.0), ("ok", 0.0)]


def test_output_flood_is_capped_with_a_marker():
    attack = next(a for a in OWN_ATTACKS if a["id"] == "own-print-flood")
    outcome = run_attack(attack)[0]
    assert outcome.status == "ok"
    assert outcome.stdout.endswith("[output truncated]")
    assert len(outcome.stdout) <= 64 * 1024 + 100


def test_cross_call_state_does_not_survive_between_turns():
    attack = next(a for a in OWN_ATTACKS if a["id"] == "own-cross-turn-global")
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
