"""Bindings scored per assistant turn: one result per assistant reply with the history up to
it (checked by a code evaluator that reports how many messages it saw), the row's verdict by
all-pass, mean or min pinned on hand-computed data, turn intervals clustered by item, exactly
once on a chunk run twice, the grid, drawer and dashboard, compare, and the binding's
validation."""

from __future__ import annotations

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse

from assay.vocabulary import Verdict
from evalsets import services as evalset_services
from evaluators import services as evaluator_services
from experiments import scoring as engine
from experiments import services
from experiments.models import ChunkStatus, ExperimentChunk, Result
from experiments.results.compare import evaluator_side
from experiments.scoring.turns import result_turn
from experiments.stats import bootstrap_ci
from experiments.stats.per_turn import item_outcomes, turn_summary

pytestmark = pytest.mark.django_db

SCORES_LAST_REPLY = """
def exec_evaluation(turn):
    messages = turn["evaluate_dataset_fields"]["dialogue"]["messages"]
    reply = messages[-1]
    if reply["role"] != "assistant":
        return EvalOutput(score=None, reason="the last message is not a reply")
    if reply["content"] == "ERROR":
        return 1 / 0
    return EvalOutput(score=float(reply["content"]), reason=str(len(messages)) + " messages")
"""


def chat(*replies, system=False):
    """user / assistant pairs whose replies are the scores the evaluator will give."""
    messages = [{"role": "system", "content": "Be kind."}] if system else []
    for i, reply in enumerate(replies):
        messages += [{"role": "user", "content": f"q{i}"}, {"role": "assistant", "content": reply}]
    return messages


TOOL_CALL = {"id": "c1", "type": "function", "function": {"name": "look", "arguments": "{}"}}
ROWS = {
    # three turns: 0.9 pass, 0.3 fail, 0.6 pass
    "A": chat("0.9", "0.3", "0.6"),
    # a tool call without text is not a turn: turns at messages 5 and 7 (0.8, 0.7)
    "B": [
        {"role": "system", "content": "Be kind."},
        {"role": "user", "content": "q0"},
        {"role": "assistant", "content": None, "tool_calls": [TOOL_CALL]},
        {"role": "tool", "tool_call_id": "c1", "content": "{}"},
        {"role": "assistant", "content": "0.8"},
        {"role": "user", "content": "q1"},
        {"role": "assistant", "content": "0.7"},
    ],
    # the first turn errors (unknown), the second scores 1.0
    "C": chat("ERROR", "1.0"),
    # no assistant turn at all
    "D": [{"role": "user", "content": "only a question"}],
}
# threshold 0.5: the rows' verdicts by each rule, computed by hand
EXPECTED = {
    "all_pass": {"A": "fail", "B": "pass", "C": "unknown", "D": "unknown"},
    "mean": {"A": "pass", "B": "pass", "C": "pass", "D": "unknown"},
    "min": {"A": "fail", "B": "pass", "C": "pass", "D": "unknown"},
}
SCORES = {
    "all_pass": {"A": 0.6, "B": 0.75, "C": 1.0, "D": None},
    "mean": {"A": 0.6, "B": 0.75, "C": 1.0, "D": None},
    "min": {"A": 0.3, "B": 0.7, "C": 1.0, "D": None},
}


@pytest.fixture
def version(workspace, user):
    evalset = evalset_services.evalset_create(
        workspace=workspace,
        user=user,
        name="Chats",
        columns=[
            {"name": "name", "content_type": "Text", "required": True},
            {"name": "dialogue", "content_type": "Conversation", "required": True},
        ],
    )
    for name, messages in ROWS.items():
        evalset_services.item_create(evalset=evalset, data={"name": name, "dialogue": messages})
    return evalset_services.version_commit(evalset=evalset, user=user, version="1.0.0")


@pytest.fixture
def scorers(workspace, user):
    """Three versions of one code evaluator (a version is bound once per experiment)."""
    evaluator = evaluator_services.evaluator_create(
        workspace=workspace, user=user, name="Scores replies", kind="code", language="python"
    )
    variables = [{"name": "dialogue", "content_type": "Conversation", "required": True}]
    config = {**evaluator.draft_config, "input_variables": variables, "source": SCORES_LAST_REPLY}
    evaluator_services.evaluator_update_draft(evaluator=evaluator, user=user, config=config)
    return [
        evaluator_services.evaluator_submit_version(evaluator=evaluator, user=user, version=v)
        for v in ("1.0.0", "1.0.1", "1.0.2")
    ]


def per_turn(version, aggregate, **extra):
    return {
        "evaluator_version": version,
        "policy": {"kind": "threshold", "threshold": 0.5},
        "per_turn": True,
        "turn_aggregate": aggregate,
        **extra,
    }


def create(workspace, user, version, bindings, launch=True):
    return services.experiment_create(
        workspace=workspace,
        user=user,
        name="per turn",
        evalset_version=version,
        bindings=bindings,
        launch=launch,
    )


@pytest.fixture
def finished(workspace, user, version, scorers):
    bindings = [per_turn(v, a) for v, a in zip(scorers, ("all_pass", "mean", "min"), strict=True)]
    experiment = create(workspace, user, version, bindings)
    return engine.experiment_run_inline(experiment_id=experiment.pk)


def by_row(experiment, binding):
    found: dict[str, list[Result]] = {}
    rows = Result.objects.filter(experiment=experiment, binding=binding).select_related("item")
    for result in rows.order_by("turn"):
        found.setdefault(result.item.data["name"]["text"], []).append(result)
    return found


# ----------------------------------------------------------------------------- the engine


def test_one_result_per_assistant_turn_with_the_history_up_to_it(finished):
    assert finished.status == "completed"
    binding = finished.bindings.get(turn_aggregate="all_pass")
    assert binding.turn_source == "column:dialogue"  # the only Conversation the mapping reads
    rows = by_row(finished, binding)
    assert {name: len(results) for name, results in rows.items()} == {
        "A": 3,
        "B": 2,
        "C": 2,
        "D": 1,
    }
    assert [r.turn for r in rows["A"]] == [0, 1, 2]
    assert [r.reason for r in rows["A"]] == ["2 messages", "4 messages", "6 messages"]
    assert [r.reason for r in rows["B"]] == ["5 messages", "7 messages"]
    assert [r.score for r in rows["A"]] == [0.9, 0.3, 0.6]
    assert rows["C"][0].status == "error" and rows["C"][1].score == 1.0
    assert rows["D"][0].status == "skipped" and rows["D"][0].turn == 0
    assert "no assistant turn" in rows["D"][0].error
    # the rebuilt turn is the truncated conversation the evaluator received
    sent = result_turn(result=rows["A"][1])["evaluate_dataset_fields"]["dialogue"]["messages"]
    assert sent == ROWS["A"][:4]
    # progress counts rows, not turns
    assert finished.results_done == finished.results_total == 12


def test_the_rows_verdicts_by_all_pass_mean_and_min(finished):
    for binding in finished.bindings.all():
        rule = binding.turn_aggregate
        summary = binding.aggregate.summary
        verdicts = EXPECTED[rule].values()
        counts = {v: list(verdicts).count(v) for v in ("pass", "fail", "unknown")}
        assert (summary["passed"], summary["fails"], summary["nones"]) == (
            counts["pass"],
            counts["fail"],
            counts["unknown"],
        ), rule
        assert summary["total_processed"] == 4
        scored = [s for s in SCORES[rule].values() if s is not None]
        assert summary["mean"] == pytest.approx(sum(scored) / len(scored)), rule
        turns = summary["per_turn"]
        assert turns["aggregate"] == rule
        assert (turns["turns"], turns["passed"], turns["fails"], turns["nones"]) == (8, 5, 1, 2)
        assert turns["conversations"] == 4 and turns["max_turns"] == 3
        assert turns["by_turn"] == [
            {"turn": 1, "passed": 2, "fails": 0, "nones": 2},
            {"turn": 2, "passed": 2, "fails": 1, "nones": 0},
            {"turn": 3, "passed": 1, "fails": 0, "nones": 0},
        ]


def test_compare_and_the_gate_read_the_rows_outcomes(finished):
    for binding in finished.bindings.all():
        side = evaluator_side(finished, binding)
        names = {
            str(i.item_id): i.data["name"]["text"] for i in finished.evalset_version.items.all()
        }
        got = {names[uid]: verdict for uid, (verdict, _score) in side.items()}
        assert got == EXPECTED[binding.turn_aggregate]


def test_a_human_correction_of_one_turn_changes_the_rows_verdict(finished, user):
    binding = finished.bindings.get(turn_aggregate="all_pass")
    failing = by_row(finished, binding)["A"][1]
    services.result_correct(result=failing, user=user, verdict="pass", note="fine really")
    summary = binding.aggregate.__class__.objects.get(binding=binding).summary
    assert (summary["passed"], summary["fails"]) == (2, 0)
    assert summary["per_turn"]["fails"] == 0 and summary["corrected"] == 1


def test_a_chunk_run_twice_writes_each_turn_once(workspace, user, version, scorers):
    experiment = create(workspace, user, version, [per_turn(scorers[0], "all_pass")])
    engine.experiment_begin(experiment_id=experiment.pk)
    chunk = ExperimentChunk.objects.filter(experiment=experiment).get()
    claimed, token = engine.chunk_claim(chunk_id=chunk.pk)
    assert engine.chunk_run(chunk=claimed, token=token, keeper=False) == "done"
    # a marker a second write would overwrite (results keep no update time)
    Result.objects.filter(experiment=experiment).update(stdout="written once")
    first = sorted(Result.objects.filter(experiment=experiment).values_list("pk", "stdout"))
    assert len(first) == 8
    # forced back to pending, the chunk finds every row scored and writes nothing
    ExperimentChunk.objects.filter(pk=chunk.pk).update(status=ChunkStatus.PENDING)
    claimed, token = engine.chunk_claim(chunk_id=chunk.pk)
    assert engine.chunk_run(chunk=claimed, token=token, keeper=False) == "done"
    again = sorted(Result.objects.filter(experiment=experiment).values_list("pk", "stdout"))
    assert again == first
    # two runners that both found the rows missing still leave one row per turn
    rows = list(Result.objects.filter(experiment=experiment))
    for row in rows:
        row.pk, row.reason = None, "written again"
    engine.results_upsert(rows=rows, prune_turns=True)
    assert Result.objects.filter(experiment=experiment).count() == 8
    assert set(Result.objects.values_list("reason", flat=True)) == {"written again"}


def test_a_row_scored_again_with_fewer_turns_loses_the_turns_it_no_longer_has(
    workspace, user, version, scorers
):
    experiment = create(workspace, user, version, [per_turn(scorers[0], "all_pass")])
    engine.experiment_run_inline(experiment_id=experiment.pk)
    three = list(Result.objects.filter(experiment=experiment, turn__lte=2).order_by("turn"))
    a_rows = [r for r in three if r.item.data["name"]["text"] == "A"]
    rewritten = a_rows[:1]
    rewritten[0].pk = None
    engine.results_upsert(rows=rewritten, prune_turns=True)
    left = Result.objects.filter(experiment=experiment, item=a_rows[0].item)
    assert list(left.values_list("turn", flat=True)) == [0]
    assert Result.objects.filter(experiment=experiment).count() == 6


def test_a_retry_round_rescores_a_row_with_a_failed_turn_whole(workspace, user, version, scorers):
    experiment = create(workspace, user, version, [per_turn(scorers[0], "all_pass")])
    done = engine.experiment_run_inline(experiment_id=experiment.pk)
    assert services.experiment_retry_failed(experiment=done).total == 1  # row C, one of its turns
    engine.experiment_run_inline(experiment_id=done.pk)
    done.refresh_from_db()
    assert done.status == "completed" and done.results_done == done.results_total == 4
    assert Result.objects.filter(experiment=done).count() == 8
    assert set(
        Result.objects.filter(experiment=done, attempt=1).values_list("turn", flat=True)
    ) == {
        0,
        1,
    }


# ----------------------------------------------------------------------------- pages


def test_the_grid_shows_a_chip_per_turn_and_the_rows_verdict(web, finished):
    page = web.get(
        reverse("experiments:detail", kwargs={"ws": "acme", "id": finished.public_id})
    ).content.decode()
    assert page.count('class="reps turns"') == 12  # 4 rows × 3 bindings
    assert page.count("data-turn=") >= 3 * 8
    assert 'class="badge fail turn-outcome"' in page
    assert "Scored per assistant turn: 8 turns of 4 conversations" in page
    assert 'id="per-turn-' in page and "By turn (3)" in page


def test_the_drawer_shows_each_turns_result(web, finished):
    item = next(i for i in finished.evalset_version.items.all() if i.data["name"]["text"] == "A")
    url = reverse(
        "experiments:item", kwargs={"ws": "acme", "id": finished.public_id, "item_id": item.item_id}
    )
    drawer = web.get(url).content.decode()
    for n in (1, 2, 3):
        assert f"turn {n} of 3" in drawer
    assert drawer.count("data-result=") == 9
    assert "The row's verdict (every turn passes):" in drawer
    assert "4 messages" in drawer and "Scored reply" in drawer


def test_the_api_shows_the_bindings_options_and_each_results_turn(api, finished):
    body = api.get(f"/api/v1/experiments/{finished.public_id}/").json()
    binding = body["bindings"][0]
    assert (binding["per_turn"], binding["turn_source"], binding["turn_aggregate"]) == (
        True,
        "column:dialogue",
        "all_pass",
    )
    assert binding["summary"]["per_turn"]["turns"] == 8
    results = api.get(f"/api/v1/experiments/{finished.public_id}/results/").json()["results"]
    assert {r["turn"] for r in results} == {0, 1, 2}


def test_the_new_form_offers_per_turn_for_a_conversation_evaluator(web, version, scorers):
    vid = scorers[0].public_id
    plan = web.post(
        reverse("experiments:new_plan", kwargs={"ws": "acme"}),
        {
            "evalset_version": str(version.public_id),
            "target_kind": "none",
            "evaluator_versions": [str(vid)],
            f"turns__{vid}": "min",
        },
    ).content.decode()
    assert f'name="turns__{vid}"' in plan and '<option value="min" selected>' in plan
    data = {
        "name": "From the form",
        "evalset_version": str(version.public_id),
        "target_kind": "none",
        "evaluator_versions": [str(vid)],
        "concurrency": "4",
        "chunk_size": "10",
        f"map__{vid}__dialogue": "column:dialogue",
        f"policy__{vid}__kind": "threshold",
        f"policy__{vid}__threshold": "0.5",
        f"turns__{vid}": "mean",
        "step": "draft",
    }
    response = web.post(reverse("experiments:new", kwargs={"ws": "acme"}), data)
    assert response.status_code == 302
    binding = scorers[0].bindings.get()
    assert binding.per_turn and binding.turn_aggregate == "mean"
    assert binding.turn_source == "column:dialogue"


# ----------------------------------------------------------------------------- validation


@pytest.mark.parametrize(
    ("extra", "field", "message"),
    [
        ({"turn_aggregate": "median"}, "turn_aggregate", "Use one of all_pass, mean, min."),
        ({"turn_source": "column:name"}, "turn_source", "is not a Conversation the mapping"),
        ({"per_turn": "yes"}, "per_turn", "per_turn is true or false."),
    ],
)
def test_bad_per_turn_options_are_refused(workspace, user, version, scorers, extra, field, message):
    with pytest.raises(ValidationError) as raised:
        create(workspace, user, version, [per_turn(scorers[0], "all_pass", **extra)])
    assert any(message in m for m in raised.value.message_dict[f"bindings[0].{field}"])


def test_per_turn_needs_a_conversation_variable(workspace, user):
    from tests.support.factories import make_code_version, make_evalset_version, qa_rows

    texts = make_evalset_version(workspace=workspace, user=user, rows=qa_rows(3))
    ev = make_code_version(workspace=workspace, user=user)
    with pytest.raises(ValidationError) as raised:
        create(workspace, user, texts, [per_turn(ev, "all_pass")])
    assert (
        "needs a Conversation variable" in raised.value.message_dict["bindings[0].turn_source"][0]
    )
    with pytest.raises(ValidationError) as raised:
        create(workspace, user, texts, [{"evaluator_version": ev, "turn_source": "column:input"}])
    assert "bindings[0].turn_source" in raised.value.message_dict


# ----------------------------------------------------------------------------- statistics

DECIDE = {True: Verdict.PASS, False: Verdict.FAIL}
TURNS = [  # (item, verdict, score), as hand-checked above
    ("A", "pass", 0.9),
    ("A", "fail", 0.3),
    ("A", "pass", 0.6),
    ("B", "pass", 0.8),
    ("B", "pass", 0.7),
    ("C", "unknown", None),
    ("C", "pass", 1.0),
]


@pytest.mark.parametrize("rule", ["all_pass", "mean", "min"])
def test_item_outcomes_by_rule(rule):
    items, verdicts, scores = zip(*TURNS, strict=True)
    outcomes = item_outcomes(
        items, verdicts, scores, aggregate=rule, decide=lambda s: DECIDE[s >= 0.5]
    )
    assert {i: o.verdict for i, o in outcomes.items()} == {
        k: v for k, v in EXPECTED[rule].items() if k != "D"
    }
    for item, outcome in outcomes.items():
        assert outcome.score == pytest.approx(SCORES[rule][item])
    assert [o.turns for o in outcomes.values()] == [3, 2, 2]


def test_an_item_without_a_scored_turn_is_unknown_and_a_bad_rule_is_refused():
    decide = lambda s: DECIDE[s >= 0.5]  # noqa: E731
    for rule in ("all_pass", "mean", "min"):
        [outcome] = item_outcomes(
            ["X"], ["unknown"], [None], aggregate=rule, decide=decide
        ).values()
        assert (outcome.verdict, outcome.score) == ("unknown", None)
    with pytest.raises(ValueError, match="all_pass, mean, min"):
        item_outcomes(["X"], ["pass"], [1.0], aggregate="median", decide=decide)


def test_turn_intervals_are_clustered_by_item_and_wider_than_the_naive_one():
    # 60 conversations of 5 turns; a conversation's turns all pass (40) or all fail (20):
    # 300 turns, but only 60 independent conversations
    items = [i for i in range(60) for _turn in range(5)]
    turns = [t for _i in range(60) for t in range(5)]
    verdicts = [Verdict.PASS if i < 40 else Verdict.FAIL for i in items]
    scores = [1.0 if v == Verdict.PASS else 0.0 for v in verdicts]
    resampling = {"iterations": 4000, "confidence": 0.95, "min_sample": 30, "seed": 0}
    summary = turn_summary(items, turns, verdicts, scores, resampling=resampling)
    assert summary["pass_rate"] == pytest.approx(200 / 300)
    low, high = summary["pass_rate_ci"]
    naive = bootstrap_ci(100, 200, **resampling)
    assert high - low > 1.8 * (naive[1] - naive[0])
    assert low < 2 / 3 < high
    assert summary["turns_per_conversation"] == 5 and summary["max_turns"] == 5
    assert summary["mean_ci"][1] - summary["mean_ci"][0] == pytest.approx(high - low, abs=0.02)
    assert turn_summary(items, turns, verdicts, scores, resampling=None)["pass_rate_ci"] is None


def test_the_exports_name_each_results_turn(finished):
    import csv
    import io

    from experiments.results.exports import results_csv

    table = list(csv.DictReader(io.StringIO("".join(results_csv(finished)))))
    assert len(table) == 3 * 8
    assert sorted({row["turn"] for row in table}) == ["0", "1", "2"]
