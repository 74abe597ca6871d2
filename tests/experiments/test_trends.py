"""Trends: pass rate per evaluator across the completed runs on one evalset, with the regressions
McNemar finds between consecutive runs — on the evalset page and the experiment page."""

import pytest
from django.urls import reverse

from assay.models import Workspace
from evaluators import services as evaluator_services
from experiments import scoring as engine
from experiments import services
from experiments.models import Result
from experiments.results.trend_chart import short_label
from experiments.results.trends import evalset_trends, paired_flips
from tests.support.factories import make_code_version, make_evalset_version, qa_rows

pytestmark = pytest.mark.django_db

# 1.1.0 of "Contains": the same check, but the first sixty questions fail whatever they say, so
# the thirty even rows among them (which passed under 1.0.0) go pass → fail and nothing improves.
STRICT = """def exec_evaluation(turn):
    output = turn["evaluate_target_output_fields"]["actual_output"]["text"]
    reference = turn["evaluate_dataset_fields"]["reference_output"]["text"]
    number = int(turn["evaluate_dataset_fields"]["input"]["text"].split()[1])
    ok = reference.lower() in output.lower() and number >= 60
    return EvalOutput(score=1.0 if ok else 0.0, reason="strict")
"""


def launch(workspace, user, version, evaluator_versions, name):
    """A finished run of `evaluator_versions` on `version`, run in this process."""
    experiment = services.experiment_create(
        workspace=workspace,
        user=user,
        name=name,
        evalset_version=version,
        bindings=[{"evaluator_version": ev} for ev in evaluator_versions],
    )
    services.experiment_launch(experiment=experiment)
    return engine.experiment_run_inline(experiment_id=experiment.pk)


def stricter(contains, user):
    """Version 1.1.0 of the evaluator: STRICT, which also reads the input column."""
    evaluator = contains.evaluator
    variables = evaluator.draft_config["input_variables"] + [
        {"name": "input", "content_type": "Text", "required": True, "description": ""}
    ]
    config = {**evaluator.draft_config, "source": STRICT, "input_variables": variables}
    evaluator_services.evaluator_update_draft(evaluator=evaluator, user=user, config=config)
    return evaluator_services.evaluator_submit_version(
        evaluator=evaluator, user=user, version="1.1.0"
    )


@pytest.fixture
def history(workspace, user):
    """Four finished runs on one 80-row evalset (even rows pass under 1.0.0): "one" and "two"
    alike, "three" with 1.1.0 (30 rows pass → fail), "four" like "three". "Echo" (the plain
    check under another name) scores every run and never moves."""
    version = make_evalset_version(workspace=workspace, user=user, rows=qa_rows(80))
    contains = make_code_version(workspace=workspace, user=user)
    echo = make_code_version(workspace=workspace, user=user, name="Echo")
    strict = stricter(contains, user)
    plan = [("one", contains), ("two", contains), ("three", strict), ("four", strict)]
    runs = [launch(workspace, user, version, [ev, echo], name) for name, ev in plan]
    return version.evalset, runs


def by_name(trends):
    return {line["name"]: line for line in trends["series"]}


def test_one_series_per_evaluator_with_rates_versions_and_intervals(history, workspace):
    evalset, runs = history
    trends = evalset_trends(workspace=workspace, evalset=evalset)
    assert trends["enough"] and [r["name"] for r in trends["runs"]] == [
        "one",
        "two",
        "three",
        "four",
    ]
    lines = by_name(trends)
    assert list(lines) == ["Contains", "Echo"]  # sorted by name
    points = lines["Contains"]["points"]
    assert [p["pass_rate"] for p in points] == [0.5, 0.5, 10 / 80, 10 / 80]
    assert [p["version"] for p in points] == ["1.0.0", "1.0.0", "1.1.0", "1.1.0"]
    assert [p["n"] for p in points] == [80] * 4
    for point in points:  # 80 decided rows: every run stored an interval around its rate
        low, high = point["ci"]
        assert low <= point["pass_rate"] <= high and high - low > 0
    assert trends["confidence"] == 0.95
    assert [p["pass_rate"] for p in lines["Echo"]["points"]] == [0.5] * 4


def test_a_true_regression_is_marked_and_a_no_change_pair_is_not(history, workspace):
    evalset, runs = history
    lines = by_name(evalset_trends(workspace=workspace, evalset=evalset))
    first, same, worse, again = lines["Contains"]["points"]
    assert first["p"] is None and not first["regression"]  # nothing before it
    assert same["flips"] == {"worse": 0, "better": 0, "paired": 80} and same["p"] == 1.0
    assert not same["regression"]
    assert worse["flips"] == {"worse": 30, "better": 0, "paired": 80}
    assert worse["regression"] and worse["p"] == pytest.approx(0.5**30)
    assert worse["p_shown"] == "p < 0.001" and worse["previous"]["run_name"] == "two"
    assert not again["regression"] and again["flips"]["worse"] == 0
    assert lines["Contains"]["regressions"] == 1 and lines["Echo"]["regressions"] == 0
    chart = lines["Contains"]["chart"]
    assert [p["marker"] != "" for p in chart["points"]] == [False, False, True, False]


def test_a_human_correction_counts_as_the_rows_verdict(history, workspace, user):
    evalset, runs = history
    before = by_name(evalset_trends(workspace=workspace, evalset=evalset))  # stores the flips
    assert before["Contains"]["points"][2]["flips"]["worse"] == 30
    three = runs[2].bindings.get(evaluator_version__version="1.1.0")
    two = runs[1].bindings.get(evaluator_version__evaluator=three.evaluator_version.evaluator)
    regressed = Result.objects.filter(binding=three, verdict="fail").order_by("position")
    for result in regressed.filter(position__lt=60, position__in=range(0, 60, 2))[:25]:
        services.result_correct(result=result, user=user, verdict="pass", note="judge was wrong")
    assert paired_flips(earlier=two.pk, later=three.pk) == (5, 0, 80)
    lines = by_name(evalset_trends(workspace=workspace, evalset=evalset))
    worse = lines["Contains"]["points"][2]
    assert worse["pass_rate"] == 35 / 80  # the stored aggregate follows the corrections too
    # the corrections refreshed the aggregate, so the stored flips were counted again
    assert worse["flips"]["worse"] == 5
    assert worse["regression"] and worse["p"] == pytest.approx(0.5**5)


def test_the_window_is_capped_and_reads_stored_flips(history, workspace, django_assert_num_queries):
    evalset, runs = history
    evalset_trends(workspace=workspace, evalset=evalset, cap=3)  # pairs the runs, stores flips
    # the runs, their bindings with aggregates, then the stored flips of each series: no pairing
    with django_assert_num_queries(2 + 2):
        trends = evalset_trends(workspace=workspace, evalset=evalset, cap=3)
    assert [r["name"] for r in trends["runs"]] == ["two", "three", "four"]
    assert trends["runs"][-1]["name"] == "four"  # newest right


def test_the_current_run_is_highlighted_and_an_old_one_ends_the_window(history, workspace):
    evalset, runs = history
    trends = evalset_trends(workspace=workspace, evalset=evalset, current=runs[2])
    assert [r["current"] for r in trends["runs"]] == [False, False, True, False]
    assert [p["current"] for p in by_name(trends)["Contains"]["points"]] == [0, 0, 1, 0]
    old = evalset_trends(workspace=workspace, evalset=evalset, current=runs[1], cap=2)
    assert [(r["name"], r["current"]) for r in old["runs"]] == [("one", False), ("two", True)]


def test_fewer_than_two_completed_runs_show_a_sentence(web, workspace, user):
    version = make_evalset_version(workspace=workspace, user=user, rows=qa_rows(4), name="Lone")
    ev = make_code_version(workspace=workspace, user=user)
    run = launch(workspace, user, version, [ev], "only run")
    draft = services.experiment_create(
        workspace=workspace,
        user=user,
        name="draft",
        evalset_version=version,
        bindings=[{"evaluator_version": ev}],
    )
    page = web.get(reverse("evalsets:detail", args=["acme", version.evalset.public_id]))
    body = page.content.decode()
    assert 'id="trends-empty"' in body and "1 completed run on this evaluation set" in body
    assert "trend-chart" not in body
    body = web.get(reverse("experiments:detail", args=["acme", draft.public_id])).content.decode()
    assert "a trend needs two" in body and "This run joins the trend once it completes." in body
    assert run.status == "completed"


def test_both_pages_render_the_chart_and_its_table(history, web):
    evalset, runs = history
    pages = [
        reverse("evalsets:detail", args=["acme", evalset.public_id]),
        reverse("experiments:detail", args=["acme", runs[2].public_id]),
    ]
    for url in pages:
        body = web.get(url).content.decode()
        # two evaluators, each in a compact (phone) and a wide layout: CSS shows one
        assert body.count('<svg class="trend-chart" role="img"') == 4, url
        assert body.count("trend-box trend-compact") == body.count("trend-box trend-wide") == 2
        assert 'aria-label="Pass rate of Contains in 4 runs' in body
        assert '<details class="trend-table">' in body and "<table" in body
        # the point's title in both layouts and its cell
        assert body.count("regression (p &lt; 0.001)") == 3
        assert "no regression (p = 1)" in body
        assert "p &lt; 0.05" in body  # the threshold, in the legend
        for tick in ("0%", "25%", "50%", "75%", "100%"):
            assert f">{tick}</text>" in body
    experiment_page = web.get(pages[1]).content.decode()
    assert 'class="trend-current"' in experiment_page
    assert "The shaded column is this run." in experiment_page


def test_run_and_evaluator_names_are_escaped(workspace, user, web):
    version = make_evalset_version(workspace=workspace, user=user, rows=qa_rows(4))
    ev = make_code_version(workspace=workspace, user=user, name='<img src=x onerror="e()">')
    for name in ('<script>alert("run")</script>', "second"):
        launch(workspace, user, version, [ev], name)
    body = web.get(reverse("evalsets:detail", args=["acme", version.evalset.public_id]))
    text = body.content.decode()
    assert "<script>alert" not in text and "<img src=x" not in text
    assert "&lt;script&gt;alert(&quot;run&quot;)&lt;/script&gt;" in text
    assert short_label('<script>alert("run")</script>') == '<script>alert("ru…'


def test_outsiders_get_404_and_their_own_pages_show_none_of_acme(history, client, outsider, user):
    evalset, runs = history
    client.force_login(outsider)
    assert (
        client.get(reverse("evalsets:detail", args=["acme", evalset.public_id])).status_code == 404
    )
    acme_run = reverse("experiments:detail", args=["acme", runs[0].public_id])
    assert client.get(acme_run).status_code == 404
    assert client.get(acme_run.replace("/acme/", "/other/")).status_code == 404
    other = Workspace.objects.get(slug="other")
    # the outsider's own set, with a run of their own: Acme's runs never join its trend
    mine = make_evalset_version(workspace=other, user=outsider, rows=qa_rows(4), name="Mine")
    ev = make_code_version(workspace=other, user=outsider, name="Theirs")
    launch(other, outsider, mine, [ev], "their run")
    body = client.get(reverse("evalsets:detail", args=["other", mine.evalset.public_id]))
    text = body.content.decode()
    assert "1 completed run on this evaluation set" in text
    assert not any(str(run.public_id) in text for run in runs)
    assert evalset_trends(workspace=other, evalset=evalset)["runs"] == []


def test_the_demo_shows_a_trend(workspace, user):
    from evalsets.models import EvalSet
    from experiments.demo import EVALSET_NAME, EVALUATOR_NAME, demo_load

    demo_load(workspace=workspace, user=user)
    evalset = EvalSet.objects.get(workspace=workspace, name=EVALSET_NAME)
    trends = evalset_trends(workspace=workspace, evalset=evalset)
    assert trends["enough"] and len(trends["runs"]) >= 2
    line = by_name(trends)[EVALUATOR_NAME]
    assert len([p for p in line["points"] if p["pass_rate"] is not None]) >= 2
    assert line["regressions"] >= 1  # the stricter 1.1.0 after the baseline
