"""A user's JMESPath expression cannot make the web or a worker build values without bound:
the issue's 411-character `join('', [@, @])` bomb and its cousins (nested lists written as
JSON, a doubling flatten, a comparison of two huge equal values) end as a row error naming the
extraction limits, and the process's peak memory stays within a few MB (measured as the
kernel's high-water mark, never by time)."""

import pytest

from experiments.models import Experiment, TargetResult
from tests.experiments.conftest import wait_for
from tests.experiments.test_http_target import row, rows_version
from tests.support.factories import make_code_version
from tests.support.memory import peak_growth_mb

# The unbounded library's peak here: join +192 MB, flatten +87, to_string +50, result +32;
# equals takes time, not memory. Bounded: 0 to 12 MB; a whole worker run 17 MB (6 MB for a
# plain expression).
PEAK_MB = 48


def nested(levels: int) -> str:
    return "answer" + "|[@,@]" * levels


BOMBS = {
    # the expression (411 characters): a 2**27-fold string of the answer "a"
    "join": "answer" + "|join('',[@,@])" * 27,
    # 2**22 shared leaves, written out as JSON
    "to_string": nested(22) + "|to_string(@)",
    "result": nested(22),
    # a list that doubles at each flatten
    "flatten": "[answer]" + "|[@,@][]" * 22,
    # two separately built equal values: Python compares every shared leaf
    "equals": f"[{nested(22)}, {nested(22)}] | [0] == [1]",
}


def http_target(app, output: str) -> dict:
    return {
        "kind": "http",
        "url": app.url,
        "body": {"question": "{{question}}", "reply": "{{reply}}"},
        "output": output,
        "max_retries": 0,
    }


@pytest.mark.parametrize("bomb", list(BOMBS))
def test_the_test_request_refuses_a_bomb_within_bounded_memory(workspace, user, app, api, bomb):
    version = rows_version(workspace, user, [row("q1", reply="a")])
    body = {"evalset_version": str(version.public_id), "target": http_target(app, BOMBS[bomb])}
    answer, peak = peak_growth_mb(
        lambda: api.post("/api/v1/experiments/target-test/", body, format="json")
    )
    assert answer.status_code == 200, answer.content
    tried = answer.json()
    assert tried["status"] == "error" and "(the extraction limits)" in tried["error"]
    assert tried["error"].startswith("output: ")
    print(f"peak RSS growth: {peak:.1f} MB")  # the figure, with -s
    assert peak < PEAK_MB, f"the process grew by {peak:.0f} MB"


@pytest.mark.django_db(transaction=True)
def test_a_worker_refuses_the_bomb_within_bounded_memory(
    celery_worker_inproc, workspace, user, app, api
):
    version = rows_version(workspace, user, [row(f"q{i}", reply="a") for i in range(3)])
    contains = make_code_version(workspace=workspace, user=user)
    body = {
        "name": "bomb",
        "evalset_version": str(version.public_id),
        "bindings": [{"evaluator_version": str(contains.public_id)}],
        "target": http_target(app, BOMBS["join"]),
        "launch": True,
    }

    def run():
        created = api.post("/api/v1/experiments/", body, format="json")
        assert created.status_code in (201, 202), created.content
        experiment = Experiment.objects.get(public_id=created.json()["id"])
        done = lambda: Experiment.objects.get(pk=experiment.pk).status == "completed"  # noqa: E731
        wait_for(done, timeout=120, what="the run to complete")
        return experiment

    experiment, peak = peak_growth_mb(run)
    rows = TargetResult.objects.filter(experiment=experiment)
    assert rows.count() == 3 and app.calls == 3
    for target_row in rows:
        assert target_row.status == "error"
        assert target_row.error.startswith("output: the expression made more than")
        assert target_row.error.endswith("bytes of values (the extraction limits)")
    print(f"peak RSS growth: {peak:.1f} MB")  # the figure, with -s
    assert peak < PEAK_MB, f"the process grew by {peak:.0f} MB"


def test_a_whole_answer_still_fits_and_a_type_error_is_a_row_error(workspace, user, app, api):
    """The limits leave room for real answers (a 3 MB one written back as JSON); a function
    given the wrong type is a row error naming it, not a failed request."""
    version = rows_version(workspace, user, [row("q1", reply="b" * 3_000_000)])
    for output, status, error in [
        ("to_string(@)", "success", ""),
        ("join('', answer)", "error", "output: In function join(), invalid type for value"),
    ]:
        body = {"evalset_version": str(version.public_id), "target": http_target(app, output)}
        answer = api.post("/api/v1/experiments/target-test/", body, format="json")
        assert answer.status_code == 200, answer.content[:300]
        tried = answer.json()
        assert tried["status"] == status and tried["error"].startswith(error), tried["error"]


def test_an_expression_too_deep_to_parse_is_refused_at_save(workspace, user, app, api):
    """500 characters of `!` made the library's parser raise RecursionError: a 500."""
    version = rows_version(workspace, user, [row("q1")])
    body = {"evalset_version": str(version.public_id), "target": http_target(app, "!" * 500)}
    answer = api.post("/api/v1/experiments/target-test/", body, format="json")
    assert answer.status_code == 400, answer.content[:300]
    details = answer.json()["error"]["details"]
    assert details["target.output"] == ["The JMESPath expression is nested too deeply."]
    assert app.calls == 0
