"""Model answers, reasons, stdout and errors are stored at capped sizes with a marker saying
how much was dropped: a 6 MB answer cannot grow the database by more than a few hundred KB (a
provider's answer past 8 MiB is not read at all: test_llm_call_limits.py)."""

import json

import pytest
from django.db import connection

from assay.safety import caps
from evaluators.services import evaluator_debug
from experiments import scoring as engine
from experiments import services
from experiments.models import Result, TargetResult
from experiments.scoring.turns import result_turn
from tests.support.factories import (
    make_code_version,
    make_evalset_version,
    make_llm_evaluator,
    make_llm_version,
    make_provider,
)

pytestmark = pytest.mark.django_db

COLUMNS = [
    {"name": n, "content_type": "Text", "required": True, "description": ""}
    for n in ("input", "output")
]
CHATTY = """def exec_evaluation(turn):
    print("x" * 200000)
    return EvalOutput(score=1.0, reason="y" * 16000)
"""


def stored_bytes() -> int:
    """What results and target rows occupy: table + TOAST + indexes on PostgreSQL, else the
    length of every stored value."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT pg_total_relation_size('experiments_result') "
                "+ pg_total_relation_size('experiments_targetresult')"
            )
            return cursor.fetchone()[0]
    rows = [*Result.objects.values(), *TargetResult.objects.values()]
    return len(json.dumps(rows, default=str))


def test_cap_text_marks_what_it_dropped():
    assert caps.cap_text("short", 100) == "short"
    capped = caps.cap_text("é" * 1000, 101)  # 2 bytes each: the cut lands inside a character
    assert capped.startswith("é" * 50) and capped.endswith("… truncated 1,900 bytes")
    assert caps.cap_json({"a": ["x" * 50]}, 10) == {"a": ["x" * 10 + "… truncated 40 bytes"]}


def test_a_6_mb_judge_answer_grows_the_database_by_a_few_hundred_kb(workspace, user, llm_server):
    provider = make_provider(workspace=workspace, server=llm_server, timeout_s=60)
    judge = make_llm_version(workspace=workspace, user=user, provider=provider)
    rows = [{"input": f"q{i} [[script:huge:6]]", "output": "a"} for i in range(2)]
    version = make_evalset_version(workspace=workspace, user=user, columns=COLUMNS, rows=rows)
    experiment = services.experiment_create(
        workspace=workspace,
        user=user,
        name="huge",
        evalset_version=version,
        bindings=[{"evaluator_version": judge}],
    )
    services.experiment_launch(experiment=experiment)
    before = stored_bytes()
    engine.experiment_run_inline(experiment_id=experiment.pk)
    grown = stored_bytes() - before
    results = list(Result.objects.filter(experiment=experiment))
    assert len(results) == 2
    for result in results:
        assert result.status == "error" and result.verdict == "unknown"
        assert len(result.raw_answer.encode()) <= caps.ANSWER_BYTES + 40
        assert "… truncated" in result.raw_answer
    # two capped answers (2 × 256 KB) plus page and TOAST overhead; uncapped: 12 MB
    assert grown < 768 * 1024, f"{grown:,} bytes stored for two rows"


def test_a_6_mb_target_answer_is_stored_capped(workspace, user, llm_server):
    provider = make_provider(workspace=workspace, server=llm_server, timeout_s=60)
    code = make_code_version(workspace=workspace, user=user, source=CHATTY)
    columns = [*COLUMNS[:1], {"name": "reference_output", "content_type": "Text"}]
    version = make_evalset_version(
        workspace=workspace,
        user=user,
        columns=columns,
        rows=[{"input": "[[script:huge:6]]", "reference_output": "r"}],
    )
    target = {
        "kind": "prompt",
        "provider_id": str(provider.public_id),
        "messages": [{"role": "user", "content": "{{input}}"}],
    }
    experiment = services.experiment_create(
        workspace=workspace,
        user=user,
        name="t",
        evalset_version=version,
        bindings=[{"evaluator_version": code}],
        target=target,
    )
    services.experiment_launch(experiment=experiment)
    engine.experiment_run_inline(experiment_id=experiment.pk)
    output = TargetResult.objects.get().output
    assert len(output.encode()) <= caps.ANSWER_BYTES + 40 and "… truncated" in output
    result = Result.objects.get()
    assert result.status == "success"
    stored_output = result_turn(result=result)["evaluate_target_output_fields"]["actual_output"][
        "text"
    ]
    assert len(stored_output.encode()) <= caps.DISPLAY_STRING_BYTES + 40
    assert len(result.stdout.encode()) <= caps.STDOUT_BYTES + 40
    assert len(result.reason.encode()) <= caps.REASON_BYTES + 40


def test_a_debug_response_stays_bounded(api, workspace, user, llm_server):
    provider = make_provider(workspace=workspace, server=llm_server, timeout_s=60)
    judge = make_llm_evaluator(workspace=workspace, user=user, provider=provider)
    turn = {
        "evaluate_dataset_fields": {"input": {"content_type": "Text", "text": "[[script:huge:6]]"}},
        "evaluate_target_output_fields": {
            "output": {"content_type": "Text", "text": "a" * 200_000}
        },
    }
    response = api.post(
        f"/api/v1/evaluators/{judge.public_id}/debug", {"turns": [turn, turn]}, format="json"
    )
    assert response.status_code == 200, response.content[:300]
    assert len(response.content) < 2 * (caps.ANSWER_BYTES + 4 * caps.DISPLAY_STRING_BYTES) + 20_000
    (outcome,) = evaluator_debug(evaluator=judge, turns=[turn])
    prompt = outcome.rendered_request["messages"][-1]["content"]
    assert "… truncated" in prompt
