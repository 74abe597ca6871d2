"""Stored paired statistics: a comparison of finished runs is paired once and read back while
both runs' aggregates are unchanged; a correction pairs it again; a page of the row diff reads
only its own ids, in the order of the whole list."""

import pytest

from experiments import services
from experiments.models import PairedComparison, Result
from experiments.results.compare import compare_experiments, diff_rows
from tests.support.factories import make_code_version, make_evalset_version, qa_rows, run_inline

pytestmark = pytest.mark.django_db


@pytest.fixture
def pair(workspace, user):
    """Two runs of `contains` on 60 rows; the candidate's rows 0–29 were re-scored pass → fail
    on the even ones (15 regressions) by a direct update before its aggregates were made."""
    version = make_evalset_version(workspace=workspace, user=user, rows=qa_rows(60))
    check = make_code_version(workspace=workspace, user=user)
    baseline = run_inline(
        workspace=workspace, user=user, version=version, evaluator_version=check, name="base"
    )
    candidate = run_inline(
        workspace=workspace, user=user, version=version, evaluator_version=check, name="cand"
    )
    Result.objects.filter(experiment=candidate, position__lt=30, verdict="pass").update(
        verdict="fail", score=0.0
    )
    from experiments.results.aggregates import aggregates_refresh

    aggregates_refresh(experiment=candidate)
    return baseline, candidate


def compared(workspace, baseline, candidate, **options):
    [result] = compare_experiments(
        workspace=workspace, baseline=baseline, candidates=[candidate], **options
    )
    return result.evaluators[0]


def test_a_comparison_is_stored_and_read_back(pair, workspace):
    baseline, candidate = pair
    first = compared(workspace, baseline, candidate)
    assert first.stats["counts"]["regressions"] == 15 and len(first.stats["regressions"]) == 15
    stored = PairedComparison.objects.get(kind="compare")
    assert len(bytes(stored.rows)) == 16 * 60  # every row's id: 15 regressions, 45 unchanged
    # a change the aggregates do not know of is not seen: the stored numbers are read
    Result.objects.filter(experiment=candidate, verdict="fail").update(verdict="pass")
    again = compared(workspace, baseline, candidate)
    assert again.stats["counts"]["regressions"] == 15
    assert again.stats["regressions"] == first.stats["regressions"]
    assert PairedComparison.objects.count() == 1


def test_a_correction_pairs_the_runs_again(pair, workspace, user):
    baseline, candidate = pair
    before = compared(workspace, baseline, candidate)
    uid = before.stats["regressions"][0]
    result = Result.objects.get(experiment=candidate, item__item_id=uid)
    services.result_correct(result=result, user=user, verdict="pass", note="it is right")
    after = compared(workspace, baseline, candidate)
    assert after.stats["counts"]["regressions"] == 14 and uid not in after.stats["regressions"]
    assert PairedComparison.objects.count() == 1  # replaced, not added


def test_the_page_reads_its_ids_in_the_lists_order(pair, workspace, api):
    baseline, candidate = pair
    query = f"baseline={baseline.public_id}&candidates={candidate.public_id}"
    ev = compared(workspace, baseline, candidate)
    whole = diff_rows(baseline=baseline, candidate=candidate, comparison=ev)
    assert whole[:15] == ev.stats["regressions"] and len(whole) == 60
    for flt, ids, pages in (("all", whole, 4), ("regressions", ev.stats["regressions"], 3)):
        shown = []
        for page in range(1, pages + 1):  # 7 a page: the first 28 of all, all 15 regressions
            body = api.get(f"/api/v1/compare?{query}&filter={flt}&page={page}&page_size=7")
            shown += [row["item_id"] for row in body.json()["diff"]["results"]]
        assert shown == ids[: pages * 7] and body.json()["diff"]["count"] == len(ids)


def test_the_page_shows_the_stored_counts(pair, web):
    baseline, candidate = pair
    query = f"baseline={baseline.public_id}&candidates={candidate.public_id}"
    body = web.get(f"/w/acme/compare/?{query}&filter=regressions").content.decode()
    assert "15 regressions" in body and "15 rows" in body
    assert body.count('class="diff-row kind-regression"') == 15
