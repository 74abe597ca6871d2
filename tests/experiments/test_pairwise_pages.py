"""Pairwise pages: the list, the new-run form (only compatible experiments and pairwise judges
offered; bad input back with its message and nothing saved), a run's page (the numbers are
`experiments.stats.pairwise` on the stored outcomes, the ties switch, p-values in words, position
bias, the leaderboard), live progress, the rows with their filters, one pair, the exports."""

import csv
import io
import json
import re

import pytest
from django.urls import reverse

from assay.templatetags.assay_tags import percent, pvalue
from experiments import services as experiment_services
from experiments.models import PairwiseResult, PairwiseRun
from experiments.pairwise import work as pairwise_work
from experiments.stats.pairwise import win_rate
from tests.support.factories import make_llm_version

pytestmark = pytest.mark.django_db


def url(name, run=None, **kwargs):
    if run is not None:
        kwargs["id"] = run.public_id
    return reverse(f"pairwise:{name}", kwargs={"ws": "acme", **kwargs})


def html(response) -> str:
    assert response.status_code == 200, response.status_code
    return response.content.decode()


def test_the_run_page_shows_the_stored_statistics(web, pw_finished):
    run = pw_finished("X", "Y")
    page = html(web.get(url("detail", run)))
    rows = PairwiseResult.objects.filter(run=run)
    keyed = [(str(r.item_uid), r.outcome) for r in rows]
    split = win_rate(keyed, ties="split")
    assert f'<div class="metric win-rate">{percent(split.rate)}</div>' in page
    assert f"p = {pvalue(split.sign_test_p)}" in page
    assert "Ties split: a tie counts as half a win for each side" in page
    assert "no detectable difference at n = 12" in page  # 3 wins to none: p = 0.25
    excluded = html(web.get(url("detail", run), {"ties": "exclude"}))
    rate = win_rate(keyed, ties="exclude")
    assert f'<div class="metric win-rate">{percent(rate.rate)}</div>' in excluded
    assert "Ties excluded: the rate is B&#x27;s share of the pairs one side won" in excluded
    assert 'id="position-bias"' in page and 'class="metric inconsistent-rate">75.0%' in page
    assert 'id="leaderboard"' not in page  # two experiments: no ranking


def test_the_interval_is_shown_once_there_are_enough_pairs(web, pw_finished):
    run = pw_finished("X", "Y", interval={"min_sample": 5})
    page = html(web.get(url("detail", run)))
    pair = run.summary["pairs"][0]["win_rate"]["split"]
    low, high = pair["ci"]
    assert f"95% CI {percent(low)} – {percent(high)}" in page
    assert re.search(r'<line x1="[\d.]+%" y1="12" x2="[\d.]+%" y2="12" class="range"/>', page)


def test_three_experiments_get_a_leaderboard_in_rank_order(web, pw_finished):
    run = pw_finished("X", "Y", "Z")
    page = html(web.get(url("detail", run)))
    board = run.summary["leaderboard"]["models"]
    ranked = sorted(board, key=lambda m: m["rank"])
    order = [page.index(f'data-experiment="{m["name"]}" data-rank') for m in ranked]
    assert order == sorted(order) and page.count('class="pair-card"') == 3
    best = ranked[0]
    assert f'<td class="p-best">{percent(best["p_best"])}</td>' in page
    assert f'<strong class="win-probability">{percent(best["win_probability"])}</strong>' in page


def test_rows_show_both_outputs_and_both_orders_and_filter(web, pw_finished):
    run = pw_finished("X", "Y")
    page = html(web.get(url("rows", run)))
    assert page.count('class="card pair-row"') == 12
    first = PairwiseResult.objects.filter(run=run).order_by("position").first()
    assert first.output_a in page and first.output_b in page
    assert "Shown A, B" in page and "Shown B, A" in page
    wins = html(web.get(url("rows", run), {"outcome": "B"}))
    assert wins.count('class="card pair-row"') == 3 and 'data-outcome="A"' not in wins
    flagged = html(web.get(url("rows", run), {"inconsistent": "true"}))
    assert flagged.count('data-inconsistent="1"') == 9 and 'data-inconsistent="0"' not in flagged
    bad = web.get(url("rows", run), {"outcome": "C"})
    assert bad.status_code == 400 and "Unknown outcome &#x27;C&#x27;" in bad.content.decode()


def test_one_pair_shows_each_orders_request_and_raw_answer(web, pw_finished):
    run = pw_finished("X", "Y")
    pair = PairwiseResult.objects.filter(run=run, position_inconsistent=True).first()
    page = html(web.get(url("row", run, result_id=pair.pk)))
    assert page.count("Rendered request") == 2 and page.count("Raw model answer") == 2
    assert "position-inconsistent" in page and "tie" in page


def test_the_progress_partial_counts_while_running_and_reloads_when_done(web, pw_finished):
    run = pw_finished("X", "Y")
    PairwiseRun.objects.filter(pk=run.pk).update(status="running", summary={})
    live = html(web.get(url("progress", run)))
    assert 'id="live-pairs"' in live and "B 3 · tie 9 · A 0" in live
    PairwiseRun.objects.filter(pk=run.pk).update(status="completed")
    done = web.get(url("progress", run), {"active": "1"})
    assert done.status_code == 204 and done["HX-Refresh"] == "true"


def test_the_form_offers_only_what_can_be_paired(
    web, workspace, user, pw_apps, pw_judge, pw_provider
):
    x, y = pw_apps("X", "Y")
    running = experiment_services.experiment_create(
        workspace=workspace,
        user=user,
        name="still running",
        evalset_version=x.evalset_version,
        bindings=[{"evaluator_version": x.bindings.first().evaluator_version}],
        target={"kind": "external"},
        launch=True,
    )
    score_judge = make_llm_version(workspace=workspace, user=user, provider=pw_provider)
    page = html(web.get(url("new")))
    assert str(x.public_id) in page and str(y.public_id) in page
    assert str(running.public_id) not in page and str(pw_judge.public_id) in page
    assert str(score_judge.public_id) not in page


def test_the_form_launches_a_run_and_refuses_a_lone_experiment(web, pw_apps, pw_judge):
    x, y = pw_apps("X", "Y")
    evalset = str(x.evalset_version.evalset.public_id)
    lone = {
        "name": "lone",
        "evalset": evalset,
        "baseline": str(x.public_id),
        "evaluator_version": str(pw_judge.public_id),
        "repetitions": "1",
    }
    refused = web.post(url("new"), lone)
    assert refused.status_code == 400 and PairwiseRun.objects.count() == 0
    assert (
        "Choose at least two experiments to judge against each other." in refused.content.decode()
    )
    made = web.post(url("new"), {**lone, "name": "x vs y", "others": [str(y.public_id)]})
    run = PairwiseRun.objects.get()
    assert made.status_code == 302 and made["Location"] == url("detail", run)
    assert [e.experiment_id for e in run.entries.order_by("position")] == [x.pk, y.pk]
    assert pairwise_work.pairwise_run_inline(run_id=run.pk).status == "completed"


def test_the_list_shows_runs_and_an_empty_state(web, pw_finished):
    assert "No pairwise runs yet" in html(web.get(url("list")))
    run = pw_finished("X", "Y", name="X against Y")
    page = html(web.get(url("list")))
    assert "X against Y" in page and url("detail", run) in page


def test_exports_stream_every_pair_with_formula_safe_cells(web, workspace, user, pw_finished):
    run = pw_finished("X", "Y")
    pair = PairwiseResult.objects.filter(run=run).first()
    PairwiseResult.objects.filter(pk=pair.pk).update(reason_ab="=HYPERLINK(1)")
    response = web.get(url("export", run, fmt="csv"))
    assert response.status_code == 200 and response["Content-Type"].startswith("text/csv")
    rows = list(csv.DictReader(io.StringIO(b"".join(response.streaming_content).decode())))
    assert len(rows) == 12 and "'=HYPERLINK(1)" in {r["reason_ab"] for r in rows}
    lines = b"".join(web.get(url("export", run, fmt="jsonl")).streaming_content).splitlines()
    assert len(lines) == 12 and {json.loads(line)["outcome"] for line in lines} <= {"A", "B", "tie"}
    assert web.get(url("export", run, fmt="xml")).status_code == 404


def test_the_experiments_list_links_to_pairwise_runs(web):
    page = html(web.get(reverse("experiments:list", kwargs={"ws": "acme"})))
    assert f'href="{url("list")}"' in page
