"""Pure pieces of the host side: result validation and frame parsing (no processes)."""

from __future__ import annotations

import math

import pytest

from sandbox import framing
from sandbox.limits import MAX_REASON_BYTES, MAX_STDOUT_CHARS, TRUNCATION_MARKER
from sandbox.outcome import outcome_from_record, reason_problem, score_problem


@pytest.mark.parametrize("score", [None, 0, 0.0, 0.5, 1, 1.0])
def test_valid_scores(score):
    assert score_problem(score) is None


@pytest.mark.parametrize(
    ("score", "message"),
    [
        (1.5, "outside [0, 1]"),
        (-0.1, "outside [0, 1]"),
        (math.nan, "finite"),
        (math.inf, "finite"),
        (True, "got bool"),
        ("0.9", "got str"),
        (10**400, "too large"),
    ],
)
def test_invalid_scores_are_rejected_not_clamped(score, message):
    assert message in score_problem(score)


def test_reason_rules():
    assert reason_problem("fine") is None
    assert "string" in reason_problem(3)
    assert "16 KB" in reason_problem("é" * (MAX_REASON_BYTES // 2 + 1))
    assert reason_problem("x" * MAX_REASON_BYTES) is None


def test_host_revalidates_what_a_child_claims():
    good = outcome_from_record(["ok", 1, "r", "out", "", 1.5])
    assert (good.status, good.score, good.reason, good.duration_ms) == ("ok", 1.0, "r", 1.5)
    assert outcome_from_record(["ok", 7.5, "r", "", "", 0]).status == "error"
    assert outcome_from_record(["ok", 0.5, 5, "", "", 0]).status == "error"
    assert outcome_from_record(["pwned", 0.5, "r", "", "", 0]).status == "error"
    assert outcome_from_record({"score": 1}).status == "error"
    timeout = outcome_from_record(["timeout", 0.9, "ignored", "", "slow", 3])
    assert (timeout.status, timeout.score, timeout.reason) == ("timeout", None, "")


def test_host_caps_stdout_a_child_failed_to_cap():
    outcome = outcome_from_record(["ok", 1.0, "", "A" * (MAX_STDOUT_CHARS * 3), "", 0])
    assert outcome.stdout.endswith(TRUNCATION_MARKER)
    assert len(outcome.stdout) == MAX_STDOUT_CHARS + len(TRUNCATION_MARKER)


def test_frames_round_trip_in_arbitrary_chunks():
    data = framing.encode({"r": [1]}) + framing.encode({"end": "done"})
    reader = framing.FrameReader(1024)
    frames = []
    for i in range(len(data)):
        frames += reader.feed(data[i : i + 1])
    assert frames == [{"r": [1]}, {"end": "done"}]


def test_frames_refuse_nan_oversize_and_garbage():
    with pytest.raises(ValueError):
        framing.encode({"score": math.nan})
    with pytest.raises(framing.FrameError):
        framing.FrameReader(8).feed(framing.encode({"x": "y" * 100}))
    with pytest.raises(framing.FrameError):
        framing.FrameReader(1024).feed(framing.HEADER.pack(3) + b"NaN")
    with pytest.raises(framing.FrameError):
        framing.FrameReader(1024).feed(framing.HEADER.pack(4) + b"{bad")
