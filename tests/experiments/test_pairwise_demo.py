"""The demo's three-way pairwise run: three apps on Demo QA, judged in both orders, stored as
a worker stores them, its statistics computed by the real summary code; loaded once."""

import pytest

from assay import services as platform
from experiments.models import PairwiseResult, PairwiseRun
from experiments.pairwise.summary import pairwise_summary_compute

pytestmark = pytest.mark.django_db


def test_the_demo_has_a_three_way_leaderboard(workspace, user):
    from experiments.demo import PUSHED, demo_load
    from experiments.pairwise.demo import CAREFUL, RUN_NAME, TERSE

    platform.provider_create(
        workspace=workspace,
        name="Local Ollama",
        base_url="http://127.0.0.1:11434/v1",
        default_model="qwen2.5:7b",
        structured_mode="json_object",
    )
    demo_load(workspace=workspace, user=user)
    demo_load(workspace=workspace, user=user)  # idempotent: nothing doubled
    run = PairwiseRun.objects.get(workspace=workspace, name=RUN_NAME)
    names = [e.experiment.name for e in run.entries.order_by("position")]
    assert names == [PUSHED, TERSE, CAREFUL] and run.status == "completed"
    assert run.results_done == run.results_total == 3 * 60
    assert PairwiseResult.objects.filter(run=run).count() == 180
    assert set(PairwiseResult.objects.filter(run=run).values_list("status", flat=True)) == {
        "success"
    }
    assert run.summary == pairwise_summary_compute(run=run)
    board = {m["name"]: m for m in run.summary["leaderboard"]["models"]}
    careful = str(run.entries.get(position=2).experiment.public_id)
    assert board[careful]["rank"] == 1 and len(board) == 3
    assert 0 < run.summary["position_bias"]["inconsistent"] < 180
    assert PairwiseRun.objects.filter(workspace=workspace).count() == 1


def test_without_a_provider_the_demo_skips_the_pairwise_run(workspace, user):
    from experiments.demo import demo_load

    demo_load(workspace=workspace, user=user)
    assert not PairwiseRun.objects.exists()
