"""The memory limit, guarded a second way: a code evaluator's `memory_mb` reaches the real
sandbox through the debug API and through a run, and decides whether one allocation of the
same size fails or succeeds. (test_sandbox_contract.py calls `sandbox.execute` directly; a
sandbox that set no limit, or ignored the config's, would pass neither test here: 200 MB fit
easily in this machine's memory.)"""

from __future__ import annotations

import pytest

from evaluators import services as evaluator_services
from experiments.models import Result
from tests.support.factories import make_evalset_version, qa_rows, run_inline

pytestmark = pytest.mark.django_db

# 200 MB when the output names Lyon (qa_rows' odd rows): past a 32 MB limit, well within a
# 512 MB one.
ALLOCATES = """def exec_evaluation(turn):
    output = turn["evaluate_target_output_fields"]["actual_output"]["text"]
    if "Lyon" in output:
        block = "x" * (200 * 1024 * 1024)
        return EvalOutput(score=1.0, reason=f"allocated {len(block) // 2**20} MB")
    return EvalOutput(score=1.0, reason="small")
"""


def _evaluator(workspace, user, memory_mb: int):
    evaluator = evaluator_services.evaluator_create(
        workspace=workspace, user=user, name=f"Allocates {memory_mb}", kind="code"
    )
    config = {**evaluator.draft_config, "source": ALLOCATES, "memory_mb": memory_mb}
    return evaluator_services.evaluator_update_draft(evaluator=evaluator, user=user, config=config)


def _text(value: str) -> dict:
    return {"content_type": "Text", "text": value}


def _turn(output: str) -> dict:
    return {
        "evaluate_dataset_fields": {"reference_output": _text("Paris")},
        "evaluate_target_output_fields": {"actual_output": _text(output)},
        "ext": {},
    }


@pytest.mark.parametrize(
    ("memory_mb", "status", "verdict"), [(32, "error", "unknown"), (512, "success", "pass")]
)
def test_the_debug_api_applies_the_evaluators_memory_limit(
    api, workspace, user, memory_mb, status, verdict
):
    evaluator = _evaluator(workspace, user, memory_mb)
    response = api.post(
        f"/api/v1/evaluators/{evaluator.public_id}/debug/",
        {"turns": [_turn("The capital is Lyon"), _turn("The capital is Paris")]},
        format="json",
    )
    assert response.status_code == 200, response.content[:300]
    big, small = response.json()["results"]
    assert (big["status"], big["verdict"]) == (status, verdict), big
    if status == "error":
        assert "memory limit exceeded" in big["error"] and big["score"] is None
    else:
        assert big["reason"] == "allocated 200 MB"
    assert (small["status"], small["reason"]) == ("success", "small")  # a new child after it


def test_a_run_records_the_row_past_the_limit_as_a_memory_error(workspace, user):
    evaluator = _evaluator(workspace, user, 32)
    version = evaluator_services.evaluator_submit_version(
        evaluator=evaluator, user=user, version="1.0.0"
    )
    rows = make_evalset_version(workspace=workspace, user=user, rows=qa_rows(3))
    run = run_inline(workspace=workspace, user=user, version=rows, evaluator_version=version)
    results = list(Result.objects.filter(experiment=run).order_by("position"))
    assert [(r.status, r.verdict) for r in results] == [
        ("success", "pass"),
        ("error", "unknown"),
        ("success", "pass"),
    ]
    assert "memory limit exceeded" in results[1].error
