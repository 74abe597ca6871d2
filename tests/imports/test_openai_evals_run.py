"""The experiment an OpenAI Evals import makes of its samples, scored by a real worker: it
completes, and each imported grader's verdicts on the pre-computed outputs are the ones the
fixture's rows call for (string_check eq and ilike, the python grader, the multi formula)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from experiments.models import Experiment
from imports.services import import_run

FIXTURES = Path(__file__).parent.parent / "fixtures" / "openai_evals"

pytestmark = pytest.mark.django_db(transaction=True)

EXPECTED = {  # grader → scores of the three rows, in the file's order
    "Match output to human label": [1.0, 0.0, 0.0],
    "Mentions the label, any case": [1.0, 1.0, 0.0],
    "Starts with the label": [1.0, 1.0, 0.0],
    "Exact and starts": [1.0, 0.5, 0.0],
}


def test_the_samples_experiment_completes_with_the_graders_scores(
    celery_worker_inproc, workspace, user
):
    files = {
        "definition": (FIXTURES / "definition.json").read_bytes(),
        "data": (FIXTURES / "data.jsonl").read_bytes(),
    }
    import_run(workspace=workspace, user=user, kind="openai-evals", files=files)
    experiment = Experiment.objects.get(workspace=workspace)
    deadline = time.monotonic() + 90
    while experiment.status not in ("completed", "failed") and time.monotonic() < deadline:
        time.sleep(0.3)
        experiment.refresh_from_db()
    assert experiment.status == "completed"
    for grader, scores in EXPECTED.items():
        results = experiment.results.filter(
            binding__evaluator_version__evaluator__name=f"IT Ticket Categorization · {grader}"
        ).order_by("item__position")
        assert [r.score for r in results] == scores, grader
