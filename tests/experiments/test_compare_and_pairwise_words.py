"""What the compare and pairwise pages say (issue 28): the compare title reads baseline →
candidate and a count of nothing is a neutral pill; a strongly position-biased pairwise judge
gets a badge and a warning, and the leaderboard explains P(best) in plain words."""

import pytest

from experiments import services
from experiments.models import PairwiseRun
from experiments.pairwise import work as pairwise_work
from experiments.pairwise.services import pairwise_run_create
from tests.support.factories import make_code_version, make_evalset_version, qa_rows, run_inline
from tests.support.pairwise import pushed_run, steered

pytestmark = pytest.mark.django_db


def compare_page(web, baseline, candidate) -> str:
    query = f"baseline={baseline.public_id}&candidates={candidate.public_id}"
    response = web.get(f"/w/acme/compare/?{query}")
    assert response.status_code == 200
    return response.content.decode()


@pytest.fixture
def twins(workspace, user):
    """Two runs of the same evaluator on the same rows: nothing flips."""
    version = make_evalset_version(workspace=workspace, user=user, rows=qa_rows(12))
    contains = make_code_version(workspace=workspace, user=user)
    first = run_inline(
        workspace=workspace, user=user, version=version, evaluator_version=contains, name="Old"
    )
    second = run_inline(
        workspace=workspace, user=user, version=version, evaluator_version=contains, name="New"
    )
    return first, second


def test_the_compare_title_reads_baseline_to_candidate(web, twins):
    old, new = twins
    page = compare_page(web, old, new)
    assert '<h2 class="compare-title">Old → New</h2>' in page
    assert "<title>Old → New · Assay</title>" in page


def test_a_count_of_nothing_is_a_neutral_pill(web, twins):
    page = compare_page(web, *twins)
    assert '<span class="badge neutral flips-regressions">0 regressions</span>' in page
    assert '<span class="badge neutral flips-improvements">0 improvements</span>' in page
    assert "badge fail flips-regressions" not in page


def test_regressions_stay_red(web, user, twins):
    old, new = twins
    passed = new.results.filter(verdict="pass").first()
    services.result_correct(result=passed, user=user, verdict="fail", note="wrong after all")
    page = compare_page(web, old, new)
    assert '<span class="badge fail flips-regressions">1 regressions</span>' in page
    assert "badge neutral flips-improvements" in page


# ----------------------------------------------------------------------------- pairwise


def bias(rate, share, ci):
    return {"inconsistent_rate": rate, "first_position_share": share, "first_position_ci": ci}


def test_strong_position_bias_needs_many_flips_leaning_beyond_chance():
    from experiments.pairwise.cards import strong_position_bias

    assert strong_position_bias(bias(0.75, 1.0, [0.7, 1.0])) == {"share": 1.0, "first": True}
    assert strong_position_bias(bias(0.5, 0.1, [0.02, 0.3])) == {"share": 0.9, "first": False}
    assert strong_position_bias(bias(0.1, 1.0, [0.7, 1.0])) is None  # few flips
    assert strong_position_bias(bias(0.6, 0.55, [0.3, 0.8])) is None  # noise, no slot
    assert strong_position_bias(None) is None
    assert strong_position_bias(bias(None, None, None)) is None


def test_a_strongly_biased_judge_gets_a_badge_and_a_warning(
    web, workspace, user, pw_version, pw_scorer, pw_judge
):
    def app(label):  # every output asks for the first slot: the judge always picks it
        return pushed_run(
            workspace=workspace,
            user=user,
            version=pw_version,
            evaluator_version=pw_scorer,
            name=f"app {label}",
            answer=steered(label, lambda i: True),
        )

    run = pairwise_run_create(
        workspace=workspace,
        user=user,
        name="biased",
        experiments=[app("P"), app("Q")],
        evaluator_version=pw_judge,
        chunk_size=10,
    )
    run = pairwise_work.pairwise_run_inline(run_id=run.pk)
    page = web.get(f"/w/acme/pairwise/{run.public_id}/").content.decode()
    assert 'id="strong-bias"' in page and 'id="judge-bias-badge"' in page
    warning = page.split('class="bias-warning"')[1].split("</p>")[0]
    assert "100.0% of those favoured the output shown first." in warning


def test_an_unbiased_judge_gets_no_badge(web, pw_finished):
    run = pw_finished("X", "Y")
    summary = dict(run.summary)
    summary["position_bias"] = {**summary["position_bias"], "inconsistent_rate": 0.05}
    PairwiseRun.objects.filter(pk=run.pk).update(summary=summary)
    page = web.get(f"/w/acme/pairwise/{run.public_id}/").content.decode()
    assert 'id="strong-bias"' not in page and 'id="judge-bias-badge"' not in page


def test_the_leaderboard_explains_p_best_in_plain_words(web, pw_finished):
    run = pw_finished("X", "Y", "Z")
    page = web.get(f"/w/acme/pairwise/{run.public_id}/").content.decode()
    note = page.split('id="p-best-note"')[1].split("</p>")[0]
    assert "P(best) is how often the experiment came first" in note
    assert "need not fall with the rank" in note
