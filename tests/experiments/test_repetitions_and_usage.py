"""Repetitions run the target (or, without one, each judge) k times per row, and every row's
latency, tokens and cost add up in the aggregates."""

import json

import pytest

from assay import services as platform
from experiments import scoring as engine
from experiments import services
from experiments.models import Result, TargetResult
from tests.support.app_server import ScriptedApp
from tests.support.factories import (
    make_code_version,
    make_evalset_version,
    make_llm_version,
    make_provider,
    qa_rows,
)

MAPPING = {"actual_output": "target:actual_output", "reference_output": "column:reference_output"}


@pytest.fixture
def app():
    with ScriptedApp() as server:
        yield server


def launch(workspace, user, version, bindings, **options):
    experiment = services.experiment_create(
        workspace=workspace,
        user=user,
        name="repeated",
        evalset_version=version,
        bindings=bindings,
        launch=True,
        **options,
    )
    return engine.experiment_run_inline(experiment_id=experiment.pk)


def test_an_http_target_runs_k_times_per_row_and_intervals_cluster_by_item(
    workspace, user, app, api, web
):
    version = make_evalset_version(workspace=workspace, user=user, rows=qa_rows(12))
    contains = make_code_version(workspace=workspace, user=user)
    target = {
        "kind": "http",
        "url": app.url,
        "body": {"question": "{{input}}", "reply": "{{actual_output}}"},
        "output": "answer",
        "tokens_in": "usage.input_tokens",
        "tokens_out": "usage.output_tokens",
        "cost": "usage.cost",
    }
    bindings = [{"evaluator_version": contains, "mapping": MAPPING}]
    done = launch(workspace, user, version, bindings, target=target, repetitions=3)
    assert done.status == "completed" and app.calls == 36
    repeats = TargetResult.objects.filter(experiment=done).values_list("repeat", flat=True)
    assert sorted(set(repeats)) == [0, 1, 2] and len(repeats) == 36
    assert Result.objects.filter(experiment=done).count() == done.results_total == 36
    summary = done.aggregates.get().summary
    assert summary["interval"] == "clustered by item"
    assert summary["repetitions"]["k"] == 3 and summary["repetitions"]["items"] == 12
    assert summary["repetitions"]["pass_at_k"] == 0.5  # even rows answer Paris every time
    assert summary["repetitions"]["pass_all_k"] == 0.5
    assert summary["fail_rate_ci"] is not None  # 36 decided rows, 12 items
    usage = done.target_summary["usage"]
    assert (usage["tokens_in"], usage["tokens_out"], usage["rows"]) == (12 * 36, 3 * 36, 36)
    assert usage["cost"] == pytest.approx(0.0005 * 36)
    assert usage["latency_ms"]["p50"] > 0
    body = api.get(f"/api/v1/experiments/{done.public_id}/").json()
    assert body["repetitions"] == 3 and body["target_summary"]["usage"]["rows"] == 36
    assert body["outputs_received"] == 36
    listed = api.get(f"/api/v1/experiments/{done.public_id}/results/?page_size=100").json()
    assert sorted({r["repeat"] for r in listed["results"]}) == [0, 1, 2]
    exported = api.get(f"/api/v1/experiments/{done.public_id}/export/?format=jsonl")
    lines = [json.loads(x) for x in b"".join(exported.streaming_content).splitlines()]
    assert sorted((r["position"], r["repeat"]) for r in lines) == [
        (p, k) for p in range(12) for k in range(3)
    ]
    assert lines[0]["cost"] is None  # a code check has no price; the target's cost is its own
    page = web.get(f"/w/acme/experiments/{done.public_id}/").content.decode()
    assert 'class="repetitions"' in page and "pass@3" in page and "pass^3" in page
    assert '<dd class="pass-at-k">50.0%' in page
    # one grid row per item, its cell showing a verdict per repetition
    assert page.count("<tr data-item-id=") == 12 and page.count('<span class="reps"') == 12
    first = page.split('<span class="reps"')[1].split("</span> ")[0]
    assert first.count('data-verdict="') == 3


def test_without_a_target_each_judge_is_sampled_k_times(workspace, user, llm_server):
    provider = make_provider(
        workspace=workspace,
        server=llm_server,
        prices={"judge-model": {"input": 2.0, "output": 8.0}},
    )
    judge = make_llm_version(workspace=workspace, user=user, provider=provider)
    version = make_evalset_version(workspace=workspace, user=user, rows=qa_rows(5))
    mapping = {"input": "column:input", "output": "column:actual_output"}
    done = launch(
        workspace, user, version, [{"evaluator_version": judge, "mapping": mapping}], repetitions=2
    )
    assert done.status == "completed"
    assert len(llm_server.chat_requests()) == 10  # the second repetition is not a cache hit
    rows = Result.objects.filter(experiment=done)
    assert rows.count() == 10 and sorted(set(rows.values_list("repeat", flat=True))) == [0, 1]
    for row in rows:
        expected = (row.tokens_in * 2.0 + row.tokens_out * 8.0) / 1_000_000
        assert row.cost == pytest.approx(expected) and row.cost > 0
    usage = done.aggregates.get().summary["usage"]
    assert usage["cost"] == pytest.approx(sum(r.cost for r in rows))
    assert usage["priced_rows"] == 10

    again = launch(
        workspace, user, version, [{"evaluator_version": judge, "mapping": mapping}], repetitions=2
    )
    assert len(llm_server.chat_requests()) == 10  # a re-run is served by the cache…
    assert {r.cost for r in Result.objects.filter(experiment=again)} == {0.0}  # …and is free


def test_repetitions_are_bounded(workspace, user):
    version = make_evalset_version(workspace=workspace, user=user, rows=qa_rows(2))
    contains = make_code_version(workspace=workspace, user=user)
    from django.core.exceptions import ValidationError

    with pytest.raises(ValidationError) as caught:
        services.experiment_create(
            workspace=workspace,
            user=user,
            name="too many",
            evalset_version=version,
            bindings=[{"evaluator_version": contains}],
            repetitions=21,
        )
    assert "repetitions" in caught.value.message_dict


def test_a_provider_price_table_is_checked(workspace, llm_server):
    from django.core.exceptions import ValidationError

    with pytest.raises(ValidationError) as caught:
        platform.provider_create(
            workspace=workspace,
            name="Priced",
            base_url=llm_server.base_url,
            default_model="m",
            prices={"m": {"input": -1}},
        )
    assert "prices" in caught.value.message_dict
