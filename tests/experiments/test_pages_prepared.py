"""A run's first pages are counted when it completes: the trends' flips against the run
before it and the statistics of the comparison its pages propose are stored in the
finishing path, so the first view of the experiment page and of that compare page only reads
them; the stored numbers are those a fresh pairing gives."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from experiments import scoring as engine
from experiments import services
from experiments.models import PairedComparison, Result
from experiments.results.compare import compare_experiments
from experiments.results.compare.prepare import default_baseline, run_pages_prepare
from tests.support.factories import make_code_version, make_evalset_version, qa_rows, run_inline

pytestmark = pytest.mark.django_db
WRITES = ("INSERT", "UPDATE")


@pytest.fixture
def setup(workspace, user):
    version = make_evalset_version(workspace=workspace, user=user, rows=qa_rows(40))
    return version, make_code_version(workspace=workspace, user=user)


def finished(workspace, user, version, check, name, capture, **fields):
    """A run executed inline, its completion's after-commit work run as a worker's would."""
    with capture() as callbacks:
        run = run_inline(
            workspace=workspace,
            user=user,
            version=version,
            evaluator_version=check,
            name=name,
            **fields,
        )
    return prepared(run, callbacks)


def prepared(run, callbacks):
    """Run the completion's page preparation (only it: the test's transaction never commits,
    so the engine's other after-commit marks must not be set)."""
    found = [c for c in callbacks if c.__qualname__.startswith("run_pages_prepare_on_commit")]
    assert len(found) == 1
    found[0]()
    return run


def pair_writes(client, url: str) -> list[str]:
    with CaptureQueriesContext(connection) as queries:
        assert client.get(url).status_code == 200
    table = PairedComparison._meta.db_table
    return [q["sql"] for q in queries if table in q["sql"] and q["sql"].startswith(WRITES)]


def test_the_previous_runs_pair_is_stored_when_a_run_completes(
    workspace, user, setup, web, django_capture_on_commit_callbacks
):
    version, check = setup
    base = finished(workspace, user, version, check, "base", django_capture_on_commit_callbacks)
    cand = finished(workspace, user, version, check, "cand", django_capture_on_commit_callbacks)
    assert default_baseline(cand) == base and default_baseline(base) is None
    pair = {"baseline__experiment": base, "candidate__experiment": cand}
    assert set(PairedComparison.objects.filter(**pair).values_list("kind", flat=True)) == {
        "compare",
        "flips",
    }
    # the first views read what is stored: nothing paired, nothing written
    compare = f"/w/{workspace.slug}/compare/?baseline={base.public_id}&candidates={cand.public_id}"
    assert pair_writes(web, f"/w/{workspace.slug}/experiments/{cand.public_id}/") == []
    assert pair_writes(web, compare) == []
    assert pair_writes(web, compare + "&filter=regressions") == []


def test_the_stored_numbers_are_those_of_a_fresh_pairing(
    workspace, user, setup, django_capture_on_commit_callbacks
):
    version, check = setup
    base = finished(workspace, user, version, check, "base", django_capture_on_commit_callbacks)
    cand = finished(workspace, user, version, check, "cand", django_capture_on_commit_callbacks)
    # the candidate's even rows from pass to fail: regressions for the numbers to show
    Result.objects.filter(experiment=cand, position__lt=10, verdict="pass").update(verdict="fail")
    from experiments.results.aggregates import aggregates_refresh

    aggregates_refresh(experiment=cand)
    run_pages_prepare(experiment_id=cand.pk)  # as the correction's refresh left it
    assert PairedComparison.objects.filter(kind="compare").count() == 1
    [stored] = compare_experiments(workspace=workspace, baseline=base, candidates=[cand])
    PairedComparison.objects.all().delete()
    [fresh] = compare_experiments(workspace=workspace, baseline=base, candidates=[cand])
    assert stored.evaluators[0].stats == fresh.evaluators[0].stats
    assert stored.evaluators[0].stats["counts"]["regressions"] == 5


def test_a_clone_is_compared_with_its_origin(
    workspace, user, setup, django_capture_on_commit_callbacks
):
    version, check = setup
    origin = finished(workspace, user, version, check, "origin", django_capture_on_commit_callbacks)
    finished(workspace, user, version, check, "between", django_capture_on_commit_callbacks)
    clone = services.experiment_clone(experiment=origin, user=user, name="clone")
    services.experiment_launch(experiment=clone)
    with django_capture_on_commit_callbacks() as callbacks:
        clone = engine.experiment_run_inline(experiment_id=clone.pk)
    prepared(clone, callbacks)
    assert default_baseline(clone) == origin
    stored = PairedComparison.objects.filter(kind="compare", candidate__experiment=clone)
    assert list(stored.values_list("baseline__experiment", flat=True)) == [origin.pk]
    assert Result.objects.filter(experiment=clone).count() == 40
