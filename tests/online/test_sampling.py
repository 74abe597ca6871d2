"""Cohort sampling: the trace id alone decides, so rules at one rate agree, samples nest, and
the sampled fraction is what the rate says."""

import secrets

from scipy.stats import binomtest

from online.sampling import cohort_position, in_sample


def _trace_ids(n: int) -> list[str]:
    return [secrets.token_hex(16) for _ in range(n)]


def test_two_rules_at_one_rate_sample_the_same_traces():
    ids = _trace_ids(2_000)
    first = {t for t in ids if in_sample(t, 0.1)}
    second = {t for t in ids if in_sample(t, 0.1)}
    assert first == second and first


def test_a_smaller_sample_is_inside_a_larger_one():
    ids = _trace_ids(2_000)
    small = {t for t in ids if in_sample(t, 0.05)}
    large = {t for t in ids if in_sample(t, 0.2)}
    assert small < large


def test_the_sampled_fraction_of_10000_traces_is_within_its_binomial_interval():
    ids = _trace_ids(10_000)
    sampled = sum(in_sample(t, 0.1) for t in ids)
    interval = binomtest(sampled, 10_000, 0.1).proportion_ci(confidence_level=0.999)
    assert interval.low <= 0.1 <= interval.high


def test_the_position_ignores_case_and_spaces_and_the_edges_hold():
    trace = "0AF7651916CD43DD8448EB211C80319C"
    assert cohort_position(trace) == cohort_position(f" {trace.lower()} ")
    assert 0 <= cohort_position(trace) < 1
    assert in_sample(trace, 1.0) and not in_sample(trace, 0.0)


def test_sequential_ids_are_not_sampled_in_a_block():
    # a client choosing ids 1, 2, 3 … must not get all or none of them in a 10 % sample
    ids = [f"{i:032x}" for i in range(1, 1_001)]
    sampled = sum(in_sample(t, 0.1) for t in ids)
    assert 60 <= sampled <= 140
