"""Parsing judge answers: every strategy, and every way a score can be invalid."""

from __future__ import annotations

import pytest

from evaluators.llm import AnswerError, parse_answer


@pytest.mark.parametrize(
    ("raw", "score", "reason", "method"),
    [
        ('{"reason": "good", "score": 0.8}', 0.8, "good", "json"),
        ('```json\n{"reason": "fenced", "score": 0.25}\n```', 0.25, "fenced", "fenced"),
        ('```\n{"score": 1, "reason": "plain fence"}\n```', 1.0, "plain fence", "fenced"),
        (
            'Sure! Here it is: {"reason": "prose", "score": 0.5} Hope it helps.',
            0.5,
            "prose",
            "embedded",
        ),
        ("{'reason': 'single quotes', 'score': 0.6,}", 0.6, "single quotes", "repaired"),
        ('{"reason": "unterminated", "score": 0.3', 0.3, "unterminated", "repaired"),
        ('{"reason": "string score", "score": "0.7"}', 0.7, "string score", "json"),
        ('{"Score": 0, "Reason": "capitalised keys"}', 0.0, "capitalised keys", "json"),
        ('{"score": 0.9}', 0.9, "", "json"),
    ],
)
def test_strategies_find_the_score(raw: str, score: float, reason: str, method: str) -> None:
    parsed = parse_answer(raw)
    assert (parsed.score, parsed.reason, parsed.method) == (score, reason, method)


def test_nested_object_with_score_is_found_inside_prose() -> None:
    raw = 'Result: {"evaluation": {"reason": "nested", "score": 0.4}} done'
    parsed = parse_answer(raw)
    assert parsed.score == 0.4 and parsed.reason == "nested"


def test_braces_and_escaped_quotes_inside_strings_do_not_confuse_the_scan() -> None:
    raw = 'Answer: {"reason": "uses \\"}\\" and { braces", "score": 0.35} end'
    parsed = parse_answer(raw)
    assert parsed.score == 0.35
    assert parsed.reason == 'uses "}" and { braces'


@pytest.mark.parametrize(
    ("raw", "score"),
    [
        ("The answer is fine.\nScore: 0.8\nGood job.", 0.8),
        ('Final verdict "score" = 0.55 overall', 0.55),
        ("score:1", 1.0),
    ],
)
def test_last_resort_pattern_keeps_the_whole_text_as_reason(raw: str, score: float) -> None:
    parsed = parse_answer(raw)
    assert parsed.score == score
    assert parsed.method == "pattern"
    assert parsed.reason == raw.strip()


def test_full_precision_is_kept() -> None:
    parsed = parse_answer('{"reason": "precise", "score": 0.123456789012345}')
    assert parsed.score == 0.123456789012345


def test_tool_call_arguments_as_object() -> None:
    parsed = parse_answer({"reason": "from a tool", "score": "0.65"})
    assert (parsed.score, parsed.reason, parsed.method) == (0.65, "from a tool", "tool")


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ('{"reason": "too high", "score": 1.7}', "outside [0, 1]"),
        ('{"reason": "negative", "score": -0.1}', "outside [0, 1]"),
        ('{"reason": "percent", "score": 80}', "outside [0, 1]"),
        ('{"reason": "nan", "score": NaN}', "not a finite number"),
        ('{"reason": "inf", "score": Infinity}', "not a finite number"),
        ('{"reason": "nan string", "score": "nan"}', "not a finite number"),
        ('{"reason": "boolean", "score": true}', "boolean"),
        ('{"reason": "boolean", "score": false}', "boolean"),
        ('{"reason": "word", "score": "high"}', "not a number"),
        ('{"reason": "null", "score": null}', "must be a number"),
        ('{"reason": "list", "score": [0.5]}', "must be a number"),
        ('{"reason": "I forgot the score."}', "no score field"),
        ("I cannot evaluate this answer.", "no score found"),
        ('{"reason": "cut off before the sco', "no score"),
        ("Score: 8/10", "outside [0, 1]"),
        ("", "empty answer"),
        ("   \n ", "empty answer"),
    ],
)
def test_invalid_answers_are_errors_that_keep_the_raw_answer(raw: str, message: str) -> None:
    with pytest.raises(AnswerError) as caught:
        parse_answer(raw)
    assert message in caught.value.message
    assert caught.value.raw == raw


def test_an_invalid_score_is_not_rescued_by_a_later_strategy() -> None:
    # The JSON says 1.7; the pattern fallback must not pick some other number instead.
    raw = '{"reason": "score: 0.5 would be unfair", "score": 1.7}'
    with pytest.raises(AnswerError, match="outside"):
        parse_answer(raw)


def test_non_text_answer_is_an_error() -> None:
    with pytest.raises(AnswerError, match="text or an object"):
        parse_answer(0.5)  # type: ignore[arg-type]


def test_many_braces_do_not_hang() -> None:
    raw = "{" * 5000 + ' "score": 0.5'
    try:
        parsed = parse_answer(raw)
    except AnswerError as exc:
        assert exc.raw == raw
    else:
        assert parsed.score == 0.5
