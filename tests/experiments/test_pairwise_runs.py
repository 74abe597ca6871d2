"""Pairwise runs through the real engine and the real judge kind against the local scripted
server: both orders stored, rows paired by item id across evalset versions, round robin over
three experiments with a Bradley–Terry leaderboard, the stored statistics equal to
`experiments.stats.pairwise` on the stored outcomes, exactly-once under a double delivery,
retry of failed pairs, and bad input refused with nothing saved."""

import pytest
from django.core.exceptions import ValidationError

from evalsets import services as evalset_services
from experiments import scoring as engine
from experiments.models import (
    PairwiseChunk,
    PairwiseEntry,
    PairwiseResult,
    PairwiseRun,
)
from experiments.pairwise import services
from experiments.pairwise import work as pairwise_work
from experiments.stats.pairwise import bradley_terry, position_bias, win_rate
from tests.support.factories import make_llm_version
from tests.support.pairwise import GOOD, N, expected_outcome, pushed_run, qa_version, steered

pytestmark = pytest.mark.django_db


def create(workspace, user, experiments, judge, **options):
    return services.pairwise_run_create(
        workspace=workspace,
        user=user,
        name=options.pop("name", "pairwise"),
        experiments=experiments,
        evaluator_version=judge,
        chunk_size=options.pop("chunk_size", 10),
        **options,
    )


def run_inline(workspace, user, experiments, judge, **options):
    run = create(workspace, user, experiments, judge, **options)
    return pairwise_work.pairwise_run_inline(run_id=run.pk)


def stored(run, a, b):
    return PairwiseResult.objects.filter(run=run, experiment_a=a, experiment_b=b)


def test_each_pair_is_judged_in_both_orders_and_stored(
    workspace, user, pw_apps, pw_judge, llm_server
):
    x, y = pw_apps("X", "Y")
    run = run_inline(workspace, user, [x, y], pw_judge)
    assert run.status == "completed" and run.results_done == run.results_total == N
    assert run.chunks_total == 2 and run.chunks_done == 2  # 12 items, 10 a chunk
    rows = list(stored(run, x, y).order_by("position"))
    assert [r.position for r in rows] == list(range(N))
    for row in rows:
        expected = expected_outcome(GOOD["X"](row.position), GOOD["Y"](row.position))
        assert (row.outcome, row.position_inconsistent) == expected
        shown_ab = row.request_ab["messages"][-1]["content"]
        shown_ba = row.request_ba["messages"][-1]["content"]
        a, b = f"X answer {row.position} ", f"Y answer {row.position} "
        assert shown_ab.index(a) < shown_ab.index(b) and shown_ba.index(b) < shown_ba.index(a)
        assert row.raw_ab and row.raw_ba and row.answer_ab in "AB" and row.answer_ba in "AB"
        assert row.input["evaluate_target_output_fields"]["output_b"]["text"].startswith("Y")
    assert len(llm_server.chat_requests()) == 2 * N


def test_the_stored_statistics_are_the_pure_functions_on_the_stored_outcomes(
    workspace, user, pw_apps, pw_judge
):
    x, y = pw_apps("X", "Y")
    run = run_inline(workspace, user, [x, y], pw_judge)
    rows = stored(run, x, y)
    keyed = [(str(r.item_uid), r.outcome) for r in rows]
    [pair] = run.summary["pairs"]
    assert (pair["a"], pair["b"]) == (str(x.public_id), str(y.public_id))
    for mode in ("split", "exclude"):
        expected = win_rate(keyed, ties=mode, resamples=10_000, min_sample=30, seed=0)
        assert pair["win_rate"][mode] == expected.to_dict()
    answers = [(r.answer_ab, r.answer_ba) for r in rows]
    assert run.summary["position_bias"] == position_bias(answers).to_dict()
    # X good on i%4==0, Y on even i: Y wins 3, X wins none, 9 ties (judge picked a slot)
    assert pair["win_rate"]["split"]["wins_b"] == 3 and pair["win_rate"]["split"]["ties"] == 9
    assert run.summary["position_bias"]["inconsistent"] == 9 and run.summary["leaderboard"] is None


def test_three_experiments_are_judged_round_robin_with_a_leaderboard(
    workspace, user, pw_apps, pw_judge
):
    x, y, z = pw_apps("X", "Y", "Z")
    run = run_inline(workspace, user, [x, y, z], pw_judge)
    assert run.status == "completed" and run.results_total == 3 * N
    assert {(p["a"], p["b"]) for p in run.summary["pairs"]} == {
        (str(x.public_id), str(y.public_id)),
        (str(x.public_id), str(z.public_id)),
        (str(y.public_id), str(z.public_id)),
    }
    matches = [
        (str(r.experiment_a.public_id), str(r.experiment_b.public_id), r.outcome, str(r.item_uid))
        for r in PairwiseResult.objects.filter(run=run).select_related(
            "experiment_a", "experiment_b"
        )
    ]
    names = [str(e.public_id) for e in (x, y, z)]
    expected = bradley_terry(matches, names=names, resamples=1000, seed=0)
    board = run.summary["leaderboard"]
    assert board == expected.to_dict()
    ranks = {m["name"]: m["rank"] for m in board["models"]}
    assert ranks[str(z.public_id)] == 1 and ranks[str(x.public_id)] == 3
    assert abs(sum(m["p_best"] for m in board["models"]) - 1) < 1e-9
    assert board["clustered"]  # an item's three matches are resampled together


def test_rows_pair_by_item_id_across_evalset_versions(
    workspace, user, pw_version, pw_apps, pw_judge
):
    evalset = pw_version.evalset
    items = list(evalset.items.filter(version__isnull=True).order_by("position"))
    evalset_services.item_delete(evalset=evalset, item_id=items[0].item_id)
    cell = {"content_type": "Text", "text": "a new question"}
    evalset_services.item_create(evalset=evalset, data={"input": cell})
    newer = evalset_services.version_commit(evalset=evalset, user=user, version="1.1.0")
    [x] = pw_apps("X")
    [y] = pw_apps("Y", on=newer)
    run = run_inline(workspace, user, [x, y], pw_judge)
    shared = set(pw_version.items.values_list("item_id", flat=True)) & set(
        newer.items.values_list("item_id", flat=True)
    )
    assert len(shared) == N - 1 and run.results_total == N - 1
    assert set(stored(run, x, y).values_list("item_uid", flat=True)) == shared
    assert run.status == "completed" and run.summary["pairs"][0]["pairs"] == N - 1


def test_a_missing_output_is_a_skipped_unknown_row(
    workspace, user, pw_version, pw_scorer, pw_apps, pw_judge
):
    [x] = pw_apps("X")
    broken = pushed_run(
        workspace=workspace,
        user=user,
        version=pw_version,
        evaluator_version=pw_scorer,
        name="crashes on row 1",
        answer=lambda item: None if item.position == 1 else steered("W", GOOD["Y"])(item),
    )
    run = run_inline(workspace, user, [x, broken], pw_judge)
    row = stored(run, x, broken).get(position=1)
    assert (row.status, row.outcome) == ("skipped", "unknown")
    assert row.error == "no output from crashes on row 1: the app crashed"
    assert run.summary["pairs"][0]["win_rate"]["split"]["unknown"] == 1


# Delivered twice, a live lease, cancel, fail, retry and the reaper: for every kind of run in
# test_run_lifecycle.py.


def test_retry_judges_only_the_pairs_that_failed(
    workspace, user, pw_version, pw_scorer, pw_apps, pw_judge
):
    [x] = pw_apps("X")
    flaky = pushed_run(
        workspace=workspace,
        user=user,
        version=pw_version,
        evaluator_version=pw_scorer,
        name="flaky",
        # the judge refuses row 2 once (HTTP 400 is not retried), then answers
        answer=lambda item: (
            f"answer [[script:400,verdict:A]] {item.position}"
            if item.position == 2
            else steered("Y", GOOD["Y"])(item)
        ),
    )
    run = run_inline(workspace, user, [x, flaky], pw_judge)
    failed = stored(run, x, flaky).get(position=2)
    assert run.status == "completed" and failed.status == "error" and failed.outcome == "unknown"
    assert services.pairwise_run_retry_failed(run=run) == 1
    run = pairwise_work.pairwise_run_inline(run_id=run.pk)
    failed.refresh_from_db()
    assert run.status == "completed" and run.retry_round == 1 and failed.attempt == 1
    assert failed.status == "success" and failed.outcome == "B"  # the retried row only
    assert run.results_done == N and run.summary["statuses"] == {"success": N}


# --- bad input: refused with a clear message, nothing saved ----------------------------------


def refused(workspace, user, experiments, judge, **options) -> dict:
    with pytest.raises(ValidationError) as raised:
        create(workspace, user, experiments, judge, **options)
    assert PairwiseRun.objects.count() == 0 and PairwiseEntry.objects.count() == 0
    assert PairwiseChunk.objects.count() == 0
    return raised.value.message_dict


def test_fewer_than_two_experiments_are_refused(workspace, user, pw_apps, pw_judge):
    [x] = pw_apps("X")
    assert refused(workspace, user, [x], pw_judge) == {
        "experiments": ["Choose at least two experiments to judge against each other."]
    }


def test_experiments_on_different_evalsets_are_refused(workspace, user, pw_apps, pw_judge):
    other = qa_version(workspace=workspace, user=user, n=3, name="Other set")
    [x] = pw_apps("X")
    [y] = pw_apps("Y", on=other)
    errors = refused(workspace, user, [x, y], pw_judge)
    assert errors == {
        "experiments[1]": [
            "'app Y' runs on 'Other set', not 'Pairs': the experiments of a pairwise run share "
            "one evalset (any versions of it)."
        ]
    }


def test_an_unfinished_experiment_one_without_outputs_and_a_repeat_are_refused(
    workspace, user, pw_version, pw_scorer, pw_apps, pw_judge
):
    from experiments import services as experiment_services

    [x] = pw_apps("X")
    draft = experiment_services.experiment_create(
        workspace=workspace,
        user=user,
        name="not run yet",
        evalset_version=pw_version,
        bindings=[{"evaluator_version": pw_scorer, "mapping": None}],
        target={"kind": "external"},
    )
    columns = {"input": "column:input", "output": "column:reference_output"}
    scored = experiment_services.experiment_create(
        workspace=workspace,
        user=user,
        name="scored a column",
        evalset_version=pw_version,
        bindings=[{"evaluator_version": pw_scorer, "mapping": columns}],
        launch=True,
    )
    scored = engine.experiment_run_inline(experiment_id=scored.pk)
    errors = refused(workspace, user, [x, draft, scored, x], pw_judge)
    assert errors == {
        "experiments[1]": ["'not run yet' is draft: judge it once it has finished."],
        "experiments[2]": [
            "'scored a column' has no target outputs to judge (it scored the evalset's own "
            "columns)."
        ],
        "experiments[3]": ["'app X' is already in the run."],
    }


def test_a_judge_that_is_not_pairwise_is_refused(workspace, user, pw_apps, pw_provider):
    x, y = pw_apps("X", "Y")
    score_judge = make_llm_version(workspace=workspace, user=user, provider=pw_provider)
    assert refused(workspace, user, [x, y], score_judge) == {
        "evaluator_version": [
            "Judge@1.0.0 is a LLM judge, not a pairwise judge: choose one that compares two "
            "outputs."
        ]
    }


def test_another_workspaces_objects_are_no_such_objects(
    workspace, user, pw_apps, pw_judge, outsider
):
    from assay.models import Workspace

    x, y = pw_apps("X", "Y")
    other = Workspace.objects.get(slug="other")
    errors = refused(other, outsider, [x, y], pw_judge)
    assert errors == {
        "experiments[0]": ["No such experiment in this workspace."],
        "experiments[1]": ["No such experiment in this workspace."],
        "evaluator_version": ["No such evaluator version in this workspace."],
    }
