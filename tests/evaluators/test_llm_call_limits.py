"""A judge reads a provider's answer no further than its cap (`max_body_bytes`): a longer one
is an error saying so, never retried, and nothing of it is kept; `timeout_s` bounds a whole
attempt, answer included. The time a call waited for rate-limit slots is reported apart from
its latency."""

from __future__ import annotations

import uuid

from evaluators.llm import run_llm_batch
from tests.evaluators.test_llm_client import CONFIG, judge, turn
from tests.support import llm_fixtures
from tests.support.llm_fixtures import provider_settings

llm_server_factory = llm_fixtures.llm_server_factory
llm_server = llm_fixtures.llm_server


def test_an_answer_past_the_providers_cap_is_an_error_not_retried(llm_server) -> None:
    outcome = judge(llm_server, "huge:1", max_body_bytes=256 * 1024)
    assert outcome.status == "error"
    assert outcome.error == "the provider's answer is larger than 262,144 bytes"
    assert outcome.raw_answer is None and outcome.attempts == 1
    assert len(llm_server.chat_requests()) == 1


def test_an_answer_within_the_cap_is_read_whole(llm_server) -> None:
    outcome = judge(llm_server, "huge:1", max_body_bytes=4 * 1024 * 1024)
    # the model's answer arrived whole: it is not a score, and it is stored capped
    assert outcome.error.startswith("invalid answer") and outcome.raw_answer
    assert "truncated" in outcome.raw_answer


def test_the_rate_limit_wait_is_reported_apart_from_the_latency(llm_server) -> None:
    # 120 a minute: the second of two calls booked together waits half a second for its slot
    settings = provider_settings(llm_server, rpm_limit=120, provider_key=f"w-{uuid.uuid4()}")
    outcomes = run_llm_batch(CONFIG, [turn("", 1), turn("", 2)], settings, concurrency=2)
    assert [o.status for o in outcomes] == ["success", "success"]
    first, second = sorted(outcomes, key=lambda o: o.rate_limit_wait_ms)
    assert first.rate_limit_wait_ms == 0
    assert second.rate_limit_wait_ms >= 400  # the slot's booked wait, not a measured time
    assert second.latency_ms < second.rate_limit_wait_ms  # the call alone, without the wait


def test_an_answer_trickling_past_timeout_s_times_out(llm_server) -> None:
    # a space every 0.25 s for 3 s: no read waits long, the attempt as a whole does
    outcome = judge(llm_server, "drip:3", timeout_s=1.0, max_retries=0)
    assert outcome.status == "timeout"
    assert outcome.error == "timed out after 1 attempts (1 s per request)"
