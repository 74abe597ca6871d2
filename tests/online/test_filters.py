"""A rule's filter: problems named by path, and the query and the in-memory test agreeing on
stored spans."""

from datetime import timedelta

import pytest
from django.db import connection
from django.utils import timezone

from online.filters import filter_matches, filter_problems, filter_q
from traces.ingest.storing import partitions_ensure
from traces.models import Span

pytestmark = pytest.mark.django_db

SPANS = [
    # name, kind, model, environment, status, duration, tokens_in, attributes
    ("chat", "llm", "gpt-4o", "production", "ok", 820.0, 120, {"http.route": "/chat", "n": 3}),
    ("chat", "llm", "gpt-4o-mini", "staging", "ok", 95.0, 40, {"http.route": "/chat"}),
    ("search", "tool", "", "production", "error", 30.0, None, {"n": 3.0, "flag": True}),
    ("plan", "agent", "", "production", "unset", 2_400.0, None, {"flag": 1}),
]


@pytest.fixture
def spans(workspace):
    now = timezone.now()
    if connection.vendor == "postgresql":
        partitions_ensure(days={now.date()})  # the day's partition first
    made = []
    for i, (name, kind, model, env, status, duration, tokens, attributes) in enumerate(SPANS):
        made.append(
            Span.objects.create(
                workspace=workspace,
                trace_id=f"{i + 1:032x}",
                span_id=f"{i + 1:016x}",
                name=name,
                kind=kind,
                model=model,
                environment=env,
                status=status,
                duration_ms=duration,
                tokens_in=tokens,
                start_time=now,
                end_time=now + timedelta(milliseconds=duration),
                attributes=attributes,
                received_at=now,
            )
        )
    return made


CASES = [
    ({}, {0, 1, 2, 3}),
    ({"field": "kind", "op": "eq", "value": "llm"}, {0, 1}),
    ({"field": "environment", "op": "ne", "value": "production"}, {1}),
    ({"field": "duration_ms", "op": "gte", "value": 820}, {0, 3}),
    ({"field": "tokens_in", "op": "lt", "value": 100}, {1}),
    ({"field": "model", "op": "contains", "value": "mini"}, {1}),
    ({"field": "status", "op": "in", "value": ["error", "unset"]}, {2, 3}),
    ({"attribute": "http.route", "op": "eq", "value": "/chat"}, {0, 1}),
    ({"attribute": "n", "op": "eq", "value": 3}, {0, 2}),
    ({"attribute": "flag", "op": "eq", "value": True}, {2}),
    ({"attribute": "flag", "op": "exists"}, {2, 3}),
    (
        {
            "any": [
                {"all": [{"field": "kind", "op": "eq", "value": "llm"}]},
                {"field": "name", "op": "eq", "value": "plan"},
            ]
        },
        {0, 1, 3},
    ),
]


@pytest.mark.parametrize(("tree", "expected"), CASES)
def test_the_query_and_the_span_test_agree(spans, workspace, tree, expected):
    assert filter_problems(tree) == []
    queried = Span.objects.filter(workspace=workspace).filter(filter_q(tree))
    by_query = sorted(s.span_id for s in queried)
    by_memory = sorted(s.span_id for s in spans if filter_matches(tree, s))
    assert by_query == by_memory
    assert by_query == sorted(spans[i].span_id for i in expected)


def test_the_tokens_filter_counts_exact_rows(spans, workspace):
    tree = {"field": "tokens_in", "op": "lt", "value": 100}
    assert Span.objects.filter(workspace=workspace).filter(filter_q(tree)).count() == 1


@pytest.mark.parametrize(
    ("tree", "words"),
    [
        ([], "a condition is an object"),
        ({"field": "colour", "op": "eq", "value": "x"}, "unknown field 'colour'"),
        ({"field": "duration_ms", "op": "contains", "value": "1"}, "takes the ops"),
        ({"field": "duration_ms", "op": "gt", "value": "1"}, "compares with numbers"),
        ({"field": "kind", "op": "eq", "value": "robot"}, "kind is one of"),
        ({"field": "kind", "op": "in", "value": []}, "in takes a non-empty list"),
        ({"all": []}, "all takes a non-empty list"),
        ({"all": [{"field": "kind", "op": "eq", "value": "llm"}], "x": 1}, "takes a non-empty"),
        ({"attribute": "", "op": "eq", "value": "x"}, "attribute, op and value"),
        ({"attribute": "k", "op": "gt", "value": 1}, "attributes take the ops"),
        ({"attribute": "k", "op": "contains", "value": 1}, "compares with text"),
    ],
)
def test_problems_are_named(tree, words):
    problems = filter_problems(tree)
    assert problems and words in " ".join(problems), problems


def test_paths_say_where_the_problem_is():
    tree = {"any": [{"field": "kind", "op": "eq", "value": "llm"}, {"all": [{"field": "x"}]}]}
    assert filter_problems(tree) == [
        "filter.any[1].all[0]: unknown field 'x' (one of cost, duration_ms, environment, kind, "
        "model, name, service, session_id, status, tokens_in, tokens_out, user_id)."
    ]


def test_depth_and_size_are_capped():
    leaf = {"field": "kind", "op": "eq", "value": "llm"}
    deep = {"all": [{"all": [{"all": [{"all": [leaf]}]}]}]}
    assert "nest at most 4 deep" in " ".join(filter_problems(deep))
    wide = {"any": [leaf] * 51}
    assert "at most 50 conditions" in " ".join(filter_problems(wide))
    assert filter_problems({"any": [leaf] * 50}) == []
