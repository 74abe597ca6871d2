"""Per-row target latency, tokens and cost where a row is read — `GET …/items/` and the results
export (CSV and JSONL) — and a re-score's summary saying its outputs and their latency are the
source run's and that nothing was called."""

import csv
import io
import json

import pytest
from django.urls import reverse

from experiments import scoring as engine
from experiments.models import Experiment, TargetResult
from tests.experiments.test_http_target import by_question, row, rows_version, run

USAGE = ("latency_ms", "tokens_in", "tokens_out", "cost")


@pytest.fixture
def finished(workspace, user, contains, app):
    rows = [row("q1"), row("q2", reply="Lyon"), row("bad", script="400")]
    return run(workspace, user, rows_version(workspace, user, rows), contains, app)


def export(api, experiment, fmt):
    response = api.get(f"/api/v1/experiments/{experiment.public_id}/export/?format={fmt}")
    assert response.status_code == 200
    return b"".join(response.streaming_content).decode()


def test_the_items_endpoint_has_each_rows_target_usage(finished, api):
    stored = by_question(finished, TargetResult)
    response = api.get(f"/api/v1/experiments/{finished.public_id}/items/")
    assert response.status_code == 200, response.content
    items = {i["data"]["question"]["text"]: i for i in response.json()["results"]}
    for question, target in stored.items():
        [shown] = items[question]["target"]
        assert shown["repeat"] == 0 and shown["status"] == target.status
        assert [shown[k] for k in USAGE] == [getattr(target, k) for k in USAGE]
    assert items["q1"]["target"][0]["tokens_in"] == 12
    assert items["q1"]["target"][0]["cost"] == 0.0005
    assert items["q1"]["target"][0]["latency_ms"] > 0
    assert items["bad"]["target"][0]["status"] == "error"
    assert items["bad"]["target"][0]["cost"] is None


def test_a_run_without_a_target_says_null(workspace, user, contains, api):
    from experiments import services

    version = rows_version(workspace, user, [row("q1")])
    experiment = services.experiment_create(
        workspace=workspace,
        user=user,
        name="columns only",
        evalset_version=version,
        bindings=[
            {
                "evaluator_version": contains,
                "mapping": {"actual_output": "column:reply", "reference_output": "column:reply"},
            }
        ],
        launch=True,
    )
    engine.experiment_run_inline(experiment_id=experiment.pk)
    [item] = api.get(f"/api/v1/experiments/{experiment.public_id}/items/").json()["results"]
    assert item["target"] is None
    [line] = export(api, experiment, "jsonl").splitlines()
    assert json.loads(line)["target_latency_ms"] is None


def test_the_export_has_each_rows_target_usage(finished, api):
    stored = {str(t.item_uid): t for t in TargetResult.objects.filter(experiment=finished)}
    table = list(csv.DictReader(io.StringIO(export(api, finished, "csv"))))
    lines = [json.loads(line) for line in export(api, finished, "jsonl").splitlines()]
    assert len(table) == len(lines) == 3
    for csv_row, line in zip(table, lines, strict=True):
        target = stored[line["item_id"]]
        assert line["target_status"] == csv_row["target_status"] == target.status
        assert line["target_latency_ms"] == round(target.latency_ms, 3)
        assert float(csv_row["target_latency_ms"]) == round(target.latency_ms, 3)
        assert line["target_tokens_in"] == target.tokens_in
        assert line["target_tokens_out"] == target.tokens_out
        assert line["target_cost"] == target.cost
        # the evaluator's own figures stay in their columns
        assert line["latency_ms"] != line["target_latency_ms"] or target.status != "success"
    ok = next(line for line in lines if stored[line["item_id"]].status == "success")
    assert (ok["target_tokens_in"], ok["target_tokens_out"], ok["target_cost"]) == (12, 3, 0.0005)
    assert ok["tokens_in"] == 0  # the code evaluator's


def test_a_rescores_summary_says_its_outputs_and_latency_came_from_the_source(
    finished, workspace, user, app, api, web
):
    calls = app.calls
    made = api.post(
        f"/api/v1/experiments/{finished.public_id}/rescore/",
        {"bindings": [{"evaluator_version": "Contains@1.0.0"}], "name": "again"},
        format="json",
    )
    assert made.status_code == 202, made.content
    rescored = engine.experiment_run_inline(
        experiment_id=Experiment.objects.get(public_id=made.json()["id"]).pk
    )
    assert app.calls == calls
    summary = api.get(f"/api/v1/experiments/{rescored.public_id}/").json()["target_summary"]
    assert summary["outputs_from"] == str(finished.public_id)
    assert summary["reused_from_source"] == ["outputs", "latency_ms"]
    assert summary["calls_made"] == 0
    assert summary["usage"]["tokens_in"] == 0
    page = web.get(
        reverse("experiments:detail", kwargs={"ws": workspace.slug, "id": rescored.public_id})
    ).content.decode()
    source = reverse("experiments:detail", kwargs={"ws": workspace.slug, "id": finished.public_id})
    assert "The outputs and their latency come from the source run" in page
    assert f'<a href="{source}">{finished.name}</a>; nothing was called' in page
    # per row too: the latency is the source's, tokens and cost are not
    source_rows = by_question(finished, TargetResult)
    items = api.get(f"/api/v1/experiments/{rescored.public_id}/items/").json()["results"]
    for item in items:
        [target] = item["target"]
        source_row = source_rows[item["data"]["question"]["text"]]
        assert target["latency_ms"] == source_row.latency_ms
        assert (target["tokens_in"], target["cost"]) == (0, None)
