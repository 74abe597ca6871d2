"""Verdict policies: a score in [0, 1] becomes pass / fail / unknown (moved from the
statistics tests with the code: verdicts belong to evaluators)."""

import json

import pytest

from evaluators.policies import (
    RULES,
    Policy,
    describe_policy,
    validate_policy,
    verdict,
    verdict_many,
)

THRESHOLD = Policy("threshold", 0.5)
ZERO = Policy("zero_tolerance")


# --- policies and verdicts -------------------------------------------------------------------


def test_policy_round_trips_through_dict():
    policy = Policy.from_dict({"kind": "threshold", "threshold": 0.7})
    assert policy == Policy("threshold", 0.7)
    assert Policy.from_dict(policy.to_dict()) == policy
    assert Policy.from_dict({"kind": "zero_tolerance"}).threshold == 0.5
    assert json.loads(json.dumps(ZERO.to_dict())) == {"kind": "zero_tolerance", "threshold": 0.5}


@pytest.mark.parametrize(
    "data",
    [
        {"kind": "fuzzy"},
        {"threshold": 0.5},
        {"kind": "threshold", "threshold": 1.5},
        {"kind": "threshold", "threshold": float("nan")},
        {"kind": "threshold", "threshold": "0.5"},
        {"kind": "threshold", "threshold": True},
        {"kind": "threshold", "extra": 1},
        ["threshold"],
    ],
)
def test_policy_rejects_bad_input(data):
    with pytest.raises(ValueError):
        Policy.from_dict(data)


def test_policy_is_frozen():
    with pytest.raises(AttributeError):
        THRESHOLD.threshold = 0.9


def test_quality_threshold_passes_at_or_above():
    assert verdict(0.5, THRESHOLD, "quality") == "pass"
    assert verdict(0.51, THRESHOLD, "quality") == "pass"
    assert verdict(0.49, THRESHOLD, "quality") == "fail"


def test_risk_threshold_is_strict_like_garak():
    assert verdict(0.49, THRESHOLD, "risk") == "pass"
    assert verdict(0.5, THRESHOLD, "risk") == "fail"  # equal fails
    assert verdict(1.0, THRESHOLD, "risk") == "fail"


def test_zero_tolerance():
    assert verdict(0.0, ZERO, "risk") == "pass"
    assert verdict(0.001, ZERO, "risk") == "fail"
    assert verdict(1.0, ZERO, "quality") == "pass"
    assert verdict(0.999, ZERO, "quality") == "fail"


@pytest.mark.parametrize("meaning", ["quality", "risk"])
@pytest.mark.parametrize("policy", [THRESHOLD, ZERO])
def test_missing_score_is_unknown(policy, meaning):
    assert verdict(None, policy, meaning) == "unknown"
    assert verdict(float("nan"), policy, meaning) == "unknown"


def test_unknown_meaning_is_rejected():
    with pytest.raises(ValueError):
        verdict(0.5, THRESHOLD, "goodness")


@pytest.mark.parametrize("meaning", ["quality", "risk"])
@pytest.mark.parametrize("policy", [THRESHOLD, ZERO, Policy("threshold", 0.8)])
def test_verdict_many_agrees_with_verdict(policy, meaning):
    scores = [None, float("nan"), 0.0, 0.2, 0.5, 0.79, 0.8, 0.999, 1.0]
    expected = [verdict(s, policy, meaning) for s in scores]
    assert verdict_many(scores, policy, meaning) == expected


def test_every_policy_kind_is_one_rule():
    from assay.vocabulary import POLICY_KINDS

    assert set(RULES) == set(POLICY_KINDS)
    for kind in POLICY_KINDS:
        assert describe_policy(validate_policy({"kind": kind}), "quality")
