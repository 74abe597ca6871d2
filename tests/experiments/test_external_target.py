"""The external target: a client pushes outputs, evaluators run range by range as they arrive,
the first push of a row wins, and rows never pushed end unknown ("no output")."""

import json

import pytest

from experiments.models import Experiment, ExperimentChunk, Result, TargetResult
from tests.experiments.conftest import wait_for
from tests.support.factories import make_code_version, make_evalset_version, qa_rows

pytestmark = pytest.mark.django_db(transaction=True)

MAPPING = {"actual_output": "target:actual_output", "reference_output": "column:reference_output"}


@pytest.fixture
def launched(api, workspace, user):
    version = make_evalset_version(workspace=workspace, user=user, rows=qa_rows(30))
    contains = make_code_version(workspace=workspace, user=user)
    body = {
        "name": "pushed",
        "evalset_version": f"{version.evalset.name}@{version.version}",
        "target": {"kind": "external"},
        "bindings": [{"evaluator_version": f"{contains.evaluator.name}@1.0.0", "mapping": MAPPING}],
        "chunk_size": 10,
        "launch": True,
    }
    response = api.post("/api/v1/experiments/", body, format="json")
    assert response.status_code == 202, response.content
    experiment = Experiment.objects.get(public_id=response.json()["id"])
    items = list(version.items.order_by("position").values_list("item_id", flat=True))
    return experiment, [str(i) for i in items]


def push(api, experiment, outputs):
    return api.post(
        f"/api/v1/experiments/{experiment.public_id}/outputs/", {"outputs": outputs}, format="json"
    )


def answer(item_id, text="The capital is Paris", **extra):
    return {"item_id": item_id, "actual_output": text, "latency_ms": 120.5, "tokens_in": 7, **extra}


def results_of(experiment):
    return Result.objects.filter(experiment=experiment)


def test_evaluators_run_as_ranges_arrive_and_missing_rows_end_unknown(
    api, celery_worker_inproc, launched
):
    experiment, items = launched
    assert experiment.chunks.filter(kind="target", status="waiting").count() == 3
    pushed = push(api, experiment, [answer(i) for i in items[:10]])
    assert pushed.status_code == 202 and pushed.json() == {"accepted": 10, "duplicates": 0}
    # the first range is scored while the others still wait for outputs
    wait_for(lambda: results_of(experiment).count() == 10, 20, "the first range's results")
    experiment.refresh_from_db()
    assert experiment.status == "running"
    assert set(experiment.chunks.filter(kind="target").values_list("status", flat=True)) == {
        "done",
        "waiting",
    }
    again = push(api, experiment, [answer(items[0], "Lyon"), answer(items[10], "Lyon")])
    assert again.json() == {"accepted": 1, "duplicates": 1}
    first = TargetResult.objects.get(experiment=experiment, item__item_id=items[0])
    assert first.output == "The capital is Paris"  # the first push of a row wins
    closed = api.post(f"/api/v1/experiments/{experiment.public_id}/close/")
    assert closed.status_code == 202, closed.content
    wait_for(
        lambda: Experiment.objects.get(pk=experiment.pk).status == "completed",
        20,
        "completion after close",
    )
    rows = results_of(experiment)
    assert rows.count() == 30
    missing = rows.filter(verdict="unknown", status="skipped")
    assert missing.count() == 19
    assert all(
        r.error == "no output from the target: no output was pushed for this row" for r in missing
    )
    assert rows.filter(item__item_id=items[10]).get().verdict == "fail"  # "Lyon"
    done = Experiment.objects.get(pk=experiment.pk)
    assert done.results_done == done.results_total == 30


def test_pushing_every_row_completes_the_run_without_close(api, celery_worker_inproc, launched):
    experiment, items = launched
    outputs = [answer(item, "Paris" if n % 3 else "Lyon") for n, item in enumerate(items)]
    for start in range(0, 30, 7):
        assert push(api, experiment, outputs[start : start + 7]).status_code == 202
    wait_for(
        lambda: Experiment.objects.get(pk=experiment.pk).status == "completed", 20, "completion"
    )
    assert results_of(experiment).filter(verdict="pass").count() == 20  # every third says Lyon


def test_one_push_spanning_ranges_hands_on_only_the_complete_ones(api, launched):
    experiment, items = launched
    # rows 0–9 and 20–29 complete their ranges; row 15 leaves the middle range waiting
    chosen = items[:10] + [items[15]] + items[20:]
    assert push(api, experiment, [answer(i) for i in chosen]).status_code == 202
    statuses = dict(experiment.chunks.filter(kind="target").values_list("position_from", "status"))
    assert statuses == {0: "done", 10: "waiting", 20: "done"}


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        ({"actual_output": "x"}, "item_id"),
        ({"item_id": "not-an-id", "actual_output": "x"}, "item_id"),
        ({"ITEM": 1}, "Unknown field"),
        ({"item_id": None, "actual_output": 3}, "item_id"),
        ("text", "object"),
    ],
)
def test_a_bad_entry_saves_nothing_and_names_its_index(api, launched, entry, message):
    experiment, items = launched
    response = push(api, experiment, [answer(items[0]), entry])
    assert response.status_code == 400
    details = response.json()["error"]["details"]
    assert list(details) == ["outputs[1]"] and message in details["outputs[1]"][0]
    assert not TargetResult.objects.filter(experiment=experiment).exists()


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        ({"repeat": 1}, "repeat must be a whole number from 0 to 0"),
        ({"tokens_in": -1}, "tokens_in"),
        ({"cost": "free"}, "cost"),
        ({"actual_output": None}, "actual_output"),
    ],
)
def test_bad_fields_are_named(api, launched, extra, message):
    experiment, items = launched
    response = push(api, experiment, [{**answer(items[0]), **extra}])
    assert response.status_code == 400
    assert message in response.json()["error"]["details"]["outputs[0]"][0]


def test_outputs_are_refused_for_a_target_that_computes_them(api, workspace, user):
    version = make_evalset_version(workspace=workspace, user=user, rows=qa_rows(2))
    contains = make_code_version(workspace=workspace, user=user)
    body = {
        "name": "column run",
        "evalset_version": str(version.public_id),
        "bindings": [{"evaluator_version": str(contains.public_id)}],
    }
    experiment = api.post("/api/v1/experiments/", body, format="json").json()
    response = api.post(
        f"/api/v1/experiments/{experiment['id']}/outputs/",
        {"outputs": [{"item_id": "x", "actual_output": "y"}]},
        format="json",
    )
    assert response.status_code == 400 and "target" in response.json()["error"]["details"]


def test_an_error_from_the_task_is_kept_and_scored_unknown(api, celery_worker_inproc, launched):
    experiment, items = launched
    outputs = [answer(i) for i in items[:9]] + [{"item_id": items[9], "error": "task raised"}]
    assert push(api, experiment, outputs).status_code == 202
    wait_for(lambda: results_of(experiment).count() == 10, 20, "the first range's results")
    failed = results_of(experiment).get(item__item_id=items[9])
    assert failed.verdict == "unknown" and failed.error == "no output from the target: task raised"
    assert (
        ExperimentChunk.objects.filter(experiment=experiment, kind="target", index=0).get().status
        == "done"
    )


def test_every_pushed_field_is_stored_as_sent(api, launched):
    experiment, items = launched
    trajectory = {"steps": [{"type": "tool_call", "name": "search", "arguments": {"q": "é"}}]}
    entry = answer(items[0], "Paris, 巴黎", trajectory=trajectory, tokens_out=3, cost=0.00042)
    failed = {"item_id": items[1], "error": "the app timed out", "latency_ms": 30000.0}
    assert push(api, experiment, [entry, failed]).status_code == 202
    stored = {str(t.item_uid): t for t in TargetResult.objects.filter(experiment=experiment)}
    good, bad = stored[items[0]], stored[items[1]]
    assert (good.status, good.output, good.repeat) == ("success", "Paris, 巴黎", 0)
    assert json.loads(good.trajectory) == trajectory
    assert (good.latency_ms, good.tokens_in, good.tokens_out, good.cost) == (120.5, 7, 3, 0.00042)
    assert good.created_at is not None and good.item_id == good.item.pk
    assert (bad.status, bad.error, bad.output, bad.cost) == ("error", "the app timed out", "", None)
