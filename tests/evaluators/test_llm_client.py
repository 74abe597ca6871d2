"""Judge calls over real HTTP to the scripted server: answers, retries, timeouts, cache."""

from __future__ import annotations

import asyncio
import json
import time
import uuid
from typing import Any

import pytest

from evaluators.llm import LlmOutcome, MemoryCache, make_cache, run_llm_batch
from tests.support import llm_fixtures
from tests.support.llm_fixtures import TEST_API_KEY, provider_settings

llm_server_factory = llm_fixtures.llm_server_factory
llm_server = llm_fixtures.llm_server
llm_settings = llm_fixtures.llm_settings
llm_redis_url = llm_fixtures.llm_redis_url

CONFIG: dict[str, Any] = {
    "input_variables": [
        {"name": "question", "content_type": "Text", "required": True, "description": ""},
        {"name": "answer", "content_type": "Text", "required": True, "description": ""},
    ],
    "messages": [
        {"role": "system", "content": "Grade the answer."},
        {"role": "user", "content": "Question: {{question}}\nAnswer: {{answer}}"},
    ],
    "model": {"provider_id": None, "model": "judge-model", "temperature": 0.0, "max_tokens": 200},
}
MODES = ["json_schema", "tool", "json_object", "text"]


def turn(script: str = "", index: int = 0) -> dict[str, Any]:
    marker = f" [[script:{script}]]" if script else ""
    return {
        "evaluate_dataset_fields": {"question": {"content_type": "Text", "text": f"Q{index}?"}},
        "evaluate_target_output_fields": {
            "answer": {"content_type": "Text", "text": f"A{index}{marker}"}
        },
        "ext": {},
    }


def judge(server, script: str, **overrides: Any) -> LlmOutcome:
    settings = provider_settings(server, **overrides)
    [outcome] = run_llm_batch(CONFIG, [turn(script)], settings)
    return outcome


SUCCESSES = [
    ("clean", 0.8, "The answer matches the reference."),
    ("fenced", 0.8, "The answer matches the reference."),
    ("prose", 0.8, "The answer matches the reference."),
    ("repairable", 0.6, "single quotes and a trailing comma"),
    ("score_string", 0.7, "Mostly right."),
    ("score:0.123456789", 0.123456789, "Scored 0.123456789."),
]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(("script", "score", "reason"), SUCCESSES)
def test_parseable_answers_give_score_and_reason(
    llm_server, mode: str, script: str, score: float, reason: str
) -> None:
    outcome = judge(llm_server, script, structured_mode=mode)
    assert outcome.status == "success", outcome.error
    assert outcome.score == score
    assert outcome.reason == reason
    assert outcome.error == ""
    assert outcome.attempts == 1
    assert outcome.tokens_in > 0 and outcome.tokens_out > 0
    assert outcome.latency_ms > 0


def test_last_resort_pattern_answer(llm_server) -> None:
    outcome = judge(llm_server, "pattern", structured_mode="text")
    assert outcome.status == "success"
    assert outcome.score == 0.45
    assert outcome.parse_method == "pattern"
    assert "Score: 0.45" in outcome.reason


FAILURES = [
    ("bad_json", "no score"),
    ("out_of_range", "score 1.7 is outside [0, 1]"),
    ("nan", "not a finite number"),
    ("missing_score", "no score field"),
    ("bool_score", "boolean"),
]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(("script", "message"), FAILURES)
def test_invalid_answers_are_errors_with_the_raw_answer(
    llm_server, mode: str, script: str, message: str
) -> None:
    from tests.support.llm_server import ANSWERS

    outcome = judge(llm_server, script, structured_mode=mode)
    assert outcome.status == "error"
    assert outcome.score is None
    assert message in outcome.error
    assert outcome.error.startswith("invalid answer:")
    assert outcome.raw_answer == ANSWERS[script]
    assert outcome.attempts == 1  # a bad answer is not retried


def test_empty_answer_is_an_error(llm_server) -> None:
    outcome = judge(llm_server, "empty", structured_mode="text")
    assert outcome.status == "error" and outcome.score is None
    assert "empty answer" in outcome.error


def test_tool_mode_sends_the_forced_tool_and_reads_the_tool_call(llm_server) -> None:
    outcome = judge(llm_server, "clean", structured_mode="tool")
    body = llm_server.chat_requests()[0].body
    assert body["tool_choice"] == {"type": "function", "function": {"name": "eval"}}
    assert body["tools"][0]["function"]["parameters"]["required"] == ["reason", "score"]
    assert outcome.score == 0.8
    assert json.loads(outcome.raw_answer) == {
        "reason": "The answer matches the reference.",
        "score": 0.8,
    }


def test_tool_mode_falls_back_to_content_when_the_model_ignores_the_tool(llm_server) -> None:
    outcome = judge(llm_server, "tool_text", structured_mode="tool")
    assert outcome.status == "success" and outcome.score == 0.8


def test_request_carries_the_key_only_in_the_authorization_header(llm_server) -> None:
    outcome = judge(llm_server, "clean", structured_mode="json_schema")
    recorded = llm_server.chat_requests()[0]
    assert recorded.headers["authorization"] == f"Bearer {TEST_API_KEY}"
    assert recorded.body == outcome.rendered_request
    assert TEST_API_KEY not in json.dumps(outcome.to_dict())
    assert TEST_API_KEY not in repr(provider_settings(llm_server))


def test_text_mode_request_has_the_instruction_and_no_response_format(llm_server) -> None:
    judge(llm_server, "clean", structured_mode="text")
    body = llm_server.chat_requests()[0].body
    assert "response_format" not in body
    assert body["messages"][0]["content"].startswith(
        "Grade the answer.\n\nAnswer with a single JSON"
    )


def test_429_storm_is_retried_within_bounds_then_reported(llm_server) -> None:
    outcome = judge(llm_server, "429:0", max_retries=3)
    assert outcome.status == "error"
    assert outcome.score is None
    assert outcome.attempts == 4
    assert outcome.error.startswith("rate limited after 4 attempts")
    assert len(llm_server.chat_requests()) == 4


def test_retry_after_seconds_is_honoured(llm_server) -> None:
    started = time.monotonic()
    outcome = judge(llm_server, "429:1,clean")
    elapsed = time.monotonic() - started
    assert outcome.status == "success" and outcome.score == 0.8
    assert outcome.attempts == 2
    assert elapsed >= 1.0
    first, second = llm_server.chat_requests()
    assert second.received_at - first.received_at >= 1.0


def test_retry_after_http_date_is_honoured(llm_server) -> None:
    outcome = judge(llm_server, "429:date:3,clean")
    first, second = llm_server.chat_requests()
    assert outcome.status == "success" and outcome.attempts == 2
    # HTTP dates have whole-second precision: "in 3 s" means at least 2 s from now.
    assert second.received_at - first.received_at >= 1.9


def test_retry_after_is_capped(llm_server) -> None:
    # Uncapped, a 30 s Retry-After would exceed the 5 s deadline and end as an error.
    outcome = judge(llm_server, "429:30,clean", retry_after_cap_s=0.1, deadline_s=5.0)
    assert outcome.status == "success" and outcome.attempts == 2


def test_retry_after_beyond_the_deadline_gives_up_at_once(llm_server) -> None:
    outcome = judge(llm_server, "429:30", deadline_s=2.0, max_retries=5)
    assert outcome.status == "error" and outcome.attempts == 1
    assert "rate limited after 1 attempts" in outcome.error
    assert "2 s deadline" in outcome.error


def test_429_without_retry_after_uses_backoff(llm_server) -> None:
    outcome = judge(llm_server, "429:none,429:none,clean")
    assert outcome.status == "success" and outcome.attempts == 3


@pytest.mark.parametrize("script", ["500,clean", "503,503,clean", "drop,clean"])
def test_server_errors_and_dropped_connections_are_retried(llm_server, script: str) -> None:
    outcome = judge(llm_server, script)
    assert outcome.status == "success" and outcome.score == 0.8
    assert outcome.attempts == script.count(",") + 1


def test_persistent_server_error_is_reported(llm_server) -> None:
    outcome = judge(llm_server, "503", max_retries=2)
    assert outcome.status == "error" and outcome.attempts == 3
    assert outcome.error.startswith("provider error after 3 attempts: HTTP 503")


def test_persistent_dropped_connection_is_reported(llm_server) -> None:
    outcome = judge(llm_server, "drop", max_retries=1)
    assert outcome.status == "error" and outcome.attempts == 2
    assert outcome.error.startswith("connection failed after 2 attempts")


def test_client_errors_are_not_retried(llm_server) -> None:
    outcome = judge(llm_server, "400", max_retries=3)
    assert outcome.status == "error" and outcome.attempts == 1
    assert outcome.error == "provider rejected the request: HTTP 400: scripted failure 400"
    assert len(llm_server.chat_requests()) == 1


def test_hanging_provider_times_out_and_is_reported(llm_server) -> None:
    outcome = judge(llm_server, "hang:3", timeout_s=0.3, max_retries=1)
    assert outcome.status == "timeout"
    assert outcome.score is None
    assert outcome.attempts == 2
    assert outcome.error == "timed out after 2 attempts (0.3 s per request)"


def test_slow_answer_within_the_timeout_succeeds(llm_server) -> None:
    outcome = judge(llm_server, "slow:0.3", timeout_s=2.0)
    assert outcome.status == "success" and outcome.attempts == 1
    assert outcome.latency_ms >= 300


def test_deadline_bounds_the_whole_call(llm_server) -> None:
    outcome = judge(llm_server, "hang:5", timeout_s=10.0, deadline_s=0.5, max_retries=5)
    assert outcome.status == "timeout"
    assert outcome.latency_ms < 5000  # the per-request timeout was cut to the deadline


def test_outcomes_keep_turn_order_and_concurrency_is_bounded(llm_server_factory) -> None:
    server = llm_server_factory(latency_s=0.05)
    turns = [turn(f"score:{i / 20}", i) for i in range(20)]
    outcomes = run_llm_batch(CONFIG, turns, provider_settings(server), concurrency=4)
    assert [o.score for o in outcomes] == [i / 20 for i in range(20)]
    assert server.max_in_flight <= 4
    assert len(server.chat_requests()) == 20


def test_cache_hit_makes_no_second_http_request(llm_server) -> None:
    cache, settings = MemoryCache(), provider_settings(llm_server)
    turns = [turn("score:0.3", 1), turn("score:0.9", 2)]
    first = run_llm_batch(CONFIG, turns, settings, cache=cache, version_key="v1")
    again = run_llm_batch(CONFIG, turns, settings, cache=cache, version_key="v1")
    assert len(llm_server.chat_requests()) == 2
    assert [o.cached for o in first] == [False, False]
    assert [o.cached for o in again] == [True, True]
    assert [o.score for o in again] == [0.3, 0.9]
    assert [o.reason for o in again] == [o.reason for o in first]
    assert again[0].rendered_request == first[0].rendered_request
    assert again[0].attempts == 0


def test_cache_is_keyed_by_version_and_exact_request(llm_server) -> None:
    cache, settings = MemoryCache(), provider_settings(llm_server)
    run_llm_batch(CONFIG, [turn("clean")], settings, cache=cache, version_key="v1")
    run_llm_batch(CONFIG, [turn("clean")], settings, cache=cache, version_key="v2")
    hotter = {**CONFIG, "model": {**CONFIG["model"], "temperature": 0.7}}
    run_llm_batch(hotter, [turn("clean")], settings, cache=cache, version_key="v1")
    assert len(llm_server.chat_requests()) == 3


def test_no_version_key_means_no_cache(llm_server) -> None:
    cache, settings = MemoryCache(), provider_settings(llm_server)
    run_llm_batch(CONFIG, [turn("clean")], settings, cache=cache)
    run_llm_batch(CONFIG, [turn("clean")], settings, cache=cache)
    assert len(llm_server.chat_requests()) == 2 and len(cache) == 0


def test_invalid_answers_are_not_cached(llm_server) -> None:
    cache, settings = MemoryCache(), provider_settings(llm_server)
    for _ in range(2):
        [outcome] = run_llm_batch(
            CONFIG, [turn("out_of_range")], settings, cache=cache, version_key="v"
        )
        assert outcome.status == "error" and not outcome.cached
    assert len(llm_server.chat_requests()) == 2


class BrokenStore:
    """A cache store that is down (e.g. Redis unreachable)."""

    is_local = False

    def get(self, key: str) -> dict[str, Any] | None:
        raise ConnectionError("store is down")

    def set(self, key: str, value: dict[str, Any]) -> None:
        raise ConnectionError("store is down")


def test_a_broken_cache_store_does_not_fail_the_row(llm_server) -> None:
    settings = provider_settings(llm_server)
    [outcome] = run_llm_batch(
        CONFIG, [turn("clean")], settings, cache=BrokenStore(), version_key="v"
    )
    assert outcome.status == "success" and outcome.score == 0.8 and not outcome.cached


def test_redis_cache_is_shared_and_hit(llm_server, llm_redis_url) -> None:
    settings = provider_settings(llm_server)
    version = f"v-{uuid.uuid4()}"
    first = run_llm_batch(
        CONFIG,
        [turn("clean")],
        settings,
        cache=make_cache(llm_redis_url, ttl_s=60),
        version_key=version,
    )
    again = run_llm_batch(
        CONFIG,
        [turn("clean")],
        settings,
        cache=make_cache(llm_redis_url, ttl_s=60),
        version_key=version,
    )
    assert not first[0].cached and again[0].cached
    assert again[0].score == 0.8
    assert len(llm_server.chat_requests()) == 1


def test_sync_runner_works_inside_a_running_event_loop(llm_server) -> None:
    settings = provider_settings(llm_server)

    async def caller() -> list[LlmOutcome]:
        return run_llm_batch(CONFIG, [turn("clean")], settings)

    [outcome] = asyncio.run(caller())
    assert outcome.status == "success" and outcome.score == 0.8


def test_models_endpoint_is_served(llm_server) -> None:
    import urllib.request

    with urllib.request.urlopen(f"{llm_server.base_url}/models", timeout=5) as response:
        assert json.load(response)["data"][0]["id"] == "judge-model"


def test_server_handles_64_concurrent_connections(llm_server_factory) -> None:
    server = llm_server_factory(latency_s=0.5)
    turns = [turn("clean", i) for i in range(64)]
    outcomes = run_llm_batch(CONFIG, turns, provider_settings(server), concurrency=64)
    assert all(o.status == "success" for o in outcomes)
    assert server.max_in_flight == 64
