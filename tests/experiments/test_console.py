"""The operators' console: progress bar, summary lines, and the run-and-wait command."""

from io import StringIO

import pytest
from django.core.management import call_command

from experiments import services
from experiments.results.console import progress_bar, summary_lines
from tests.support.factories import make_code_version, make_evalset_version, qa_rows


def test_progress_bar():
    assert progress_bar(5, 10, width=10) == "[#####.....]  50% 5/10"
    assert progress_bar(0, 0, width=4).startswith("[####] 100%")
    assert progress_bar(1000, 4000, width=4, rate=1234.4).endswith("1,234 rows/s")


def test_summary_lines_wide_and_narrow():
    rows = [
        {
            "name": "contains@1.0.0",
            "passed": 96,
            "fails": 4,
            "nones": 2,
            "fail_rate_ci": (0.011, 0.099),
        },
        {"name": "strict@1.0.0", "passed": 10, "fails": 0, "nones": 0, "fail_rate_ci": None},
        {"name": "broken@1.0.0", "passed": 0, "fails": 0, "nones": 7, "fail_rate_ci": None},
        {"name": "small@1.0.0", "passed": 8, "fails": 2, "nones": 0, "fail_rate_ci": None},
    ]
    wide = summary_lines(rows)
    assert wide[0].split()[:5] == ["contains@1.0.0", "FAIL", "ok", "on", "96/"]
    assert "failure rate   4.00% (95% CI 1.10–9.90%)" in wide[0] and "2 unknown" in wide[0]
    assert " PASS " in wide[1] and "failure" not in wide[1]
    assert " SKIP " in wide[2]
    assert "n < 30: no interval" in wide[3]
    narrow = summary_lines(rows, wide=False)
    assert narrow[:2] == ["contains@1.0.0", "  FAIL  ok on 96/100"]
    assert "  2 unknown (not counted)" in narrow


@pytest.mark.django_db
def test_run_experiment_command_inline(workspace, user):
    version = make_evalset_version(workspace=workspace, user=user, rows=qa_rows(40))
    ev = make_code_version(workspace=workspace, user=user)
    experiment = services.experiment_create(
        workspace=workspace,
        user=user,
        name="cli",
        evalset_version=version,
        bindings=[{"evaluator_version": ev}],
    )
    out = StringIO()
    call_command(
        "run_experiment", str(experiment.public_id), "--inline", "--format", "assay", stdout=out
    )
    text = out.getvalue()
    assert "100% 40/40" in text and "cli: completed" in text
    assert "Contains@1.0.0" in text and "ok on     20/    40" in text
    assert "failure rate  50.00% (95% CI" in text
