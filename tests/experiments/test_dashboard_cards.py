"""The dashboard cards say what they count: the histogram with axes and a count on each bar, the
by-tag table with n and each tag's interval, the interval strip's scale, one score precision."""

import re

import pytest
from django.template import Context, Template

from assay.templatetags.assay_tags import grouped, percent, pvalue, score
from experiments import scoring as engine
from experiments import services
from experiments.stats import bootstrap_ci
from experiments.stats.clustered import clustered_rate_ci
from tests.support.factories import make_code_version, make_evalset_version, qa_rows

pytestmark = pytest.mark.django_db


def page_url(experiment, suffix=""):
    return f"/w/acme/experiments/{experiment.public_id}/{suffix}"


def run(workspace, user, rows, *, name="QA", repetitions=1):
    version = make_evalset_version(workspace=workspace, user=user, rows=rows, name=name)
    check = make_code_version(workspace=workspace, user=user, name=f"Check {name}")
    experiment = services.experiment_create(
        workspace=workspace,
        user=user,
        name=f"run {name}",
        evalset_version=version,
        bindings=[{"evaluator_version": check}],
        repetitions=repetitions,
    )
    services.experiment_launch(experiment=experiment)
    return engine.experiment_run_inline(experiment_id=experiment.pk)


def chart_of(html: str) -> str:
    return html.split('<figure class="chart histogram-chart">')[1].split("</figure>")[0]


def texts(svg: str, group: str) -> list[str]:
    """The labels inside one <g class="…group…"> of the chart."""
    body = re.search(rf'<g class="[^"]*\b{group}\b[^"]*"[^>]*>(.*?)</g>', svg, re.S).group(1)
    return re.findall(r"<text[^>]*>([^<]*)</text>", body)


def tag_row(html: str, tag: str) -> str:
    return re.search(rf'<tr data-tag="{tag}">(.*?)</tr>', html, re.S).group(1)


def test_the_histogram_has_axes_and_a_count_on_every_bar(web, workspace, user):
    finished = run(workspace, user, qa_rows(60, error_every=10))  # 30 × 1.0, 24 × 0.0, 6 errors
    stored = finished.aggregates.get().summary["histogram"]
    html = web.get(page_url(finished)).content.decode()
    chart = chart_of(html)
    svg = chart.split("</svg>")[0]
    assert 'role="img"' in svg and "54 scored rows in 10 bins from 0.00 to 1.00" in svg
    assert texts(svg, "x-ticks") == ["0.00", "0.25", "0.50", "0.75", "1.00"]
    assert texts(svg, "y-ticks") == ["0", "15", "30"]  # 0, the middle, the tallest bin
    assert ">score</text>" in svg and ">rows</text>" in svg  # the axis titles
    # one count written above each non-empty bar, equal to the stored bins
    assert [int(t) for t in texts(svg, "values")] == [c for c in stored["counts"] if c] == [24, 30]
    assert svg.count("<rect ") == 2
    # the text alternative lists every bin with its count
    table = re.findall(r"<tr><td>([^<]*)</td><td>(\d+)</td></tr>", chart)
    assert len(table) == 10 and table[0] == ("0.00–0.10", "24") and table[-1] == ("0.90–1.00", "30")
    assert [int(c) for _r, c in table] == stored["counts"]
    assert 'class="histogram"' not in html  # the CSS bars are gone


def test_the_histogram_spans_the_bins_own_range():
    bins = [{"from": 2 + i / 2, "to": 2.5 + i / 2, "count": c} for i, c in enumerate([1, 0, 7, 2])]
    html = Template("{% load charts %}{% histogram_chart bins 'Spread' %}").render(
        Context({"bins": bins})
    )
    assert texts(html, "x-ticks") == ["2.00", "2.50", "3.00", "3.50", "4.00"]
    assert texts(html, "y-ticks") == ["0", "3", "7"]
    assert texts(html, "values") == ["1", "7", "2"]
    assert "Spread: 10 scored rows in 4 bins from 2.00 to 4.00; the most, 7, in 3.00–3.50." in html
    empty = Template("{% load charts %}{% histogram_chart bins %}").render(
        Context({"bins": [{"from": 0, "to": 1, "count": 0}]})
    )
    assert "<svg" not in empty and "No scores to plot." in empty


def test_the_tag_table_shows_n_and_each_tags_interval(web, workspace, user):
    rows = qa_rows(48)  # even rows pass, odd rows fail
    for i, row in enumerate(rows):
        row["tags"] = ["big"] if i < 40 else ["small"]
    finished = run(workspace, user, rows, name="Tagged")
    summary = finished.aggregates.get().summary
    # 20 pass and 20 fail under "big": the card's own bootstrap on those counts (95 %, 10,000
    # resamples, seed 0), mirrored to a pass rate; by hand, 50 % ± 1.96 × √(.25 / 40) ≈ ±15.5 pts
    fail_ci = bootstrap_ci(20, 20, iterations=10_000, confidence=0.95, min_sample=30, seed=0)
    low, high = 1 - fail_ci[1], 1 - fail_ci[0]
    assert 0.33 < low < 0.37 and 0.63 < high < 0.67
    assert summary["tag_fail_rate_ci"]["big"] == list(fail_ci)
    assert summary["tag_fail_rate_ci"]["small"] is None  # 8 decided rows < 30
    html = web.get(page_url(finished)).content.decode()
    table = html.split('class="tags-table"')[1].split("</details>")[0]
    assert table.index('data-tag="big"') < table.index('data-tag="small"')  # by n, descending
    big = tag_row(table, "big")
    assert '<td class="n">40</td>' in big and '<td class="rate">50.0%</td>' in big
    assert f"{percent(low)} – {percent(high)}" in big
    small = tag_row(table, "small")
    assert '<td class="n">8</td>' in small and "n &lt; 30" in small
    assert ">95% CI</th>" in table and "computed like the card" in table
    assert "widthratio" not in table and "treat each repetition" not in table


def test_tag_intervals_with_repetitions_resample_rows_together(web, workspace, user):
    rows = qa_rows(40)
    for row in rows:
        row["tags"] = ["all"]
    finished = run(workspace, user, rows, name="Repeated", repetitions=2)
    aggregate = finished.aggregates.get()
    # each of the 40 rows decided twice, the same way: 20 rows fail twice, 20 pass twice
    expected = clustered_rate_ci([2] * 20 + [0] * 20, [2] * 40, min_sample=30, seed=0)
    got = aggregate.summary["tag_fail_rate_ci"]["all"]
    assert got == pytest.approx(sorted(expected))
    html = web.get(page_url(finished)).content.decode()
    assert '<td class="n">80</td>' in tag_row(html, "all")
    assert "resamples a row with all its repetitions together" in html
    # an aggregate stored before tags had intervals: computed from the counts, and said so
    summary = dict(aggregate.summary)
    del summary["tag_fail_rate_ci"]
    aggregate.summary = summary
    aggregate.save(update_fields=["summary"])
    html = web.get(page_url(finished)).content.decode()
    independent = bootstrap_ci(40, 40, min_sample=30, seed=0)
    row = tag_row(html, "all")
    assert f"{percent(1 - independent[1])} – {percent(1 - independent[0])}" in row
    assert "treat each repetition as an independent row" in html


def test_the_interval_strip_has_a_scale_and_the_point():
    html = Template("{% load assay_tags %}{% ci_whisker rate ci %}").render(
        Context({"rate": 0.774, "ci": (0.72, 0.82)})
    )
    labels = re.findall(r"<text[^>]*>([^<]*)</text>", html)
    assert labels == ["0%", "25%", "50%", "75%", "100%"]
    assert 'cx="77.40%"' in html and 'x1="72.00%"' in html and 'x2="82.00%"' in html
    assert 'aria-hidden="true"' in html  # the card writes the interval out beside it
    labelled = Template("{% load assay_tags %}{% ci_whisker 0.5 None '50.0%' %}").render(Context())
    assert 'role="img" aria-label="50.0%"' in labelled and 'class="range"' not in labelled


def test_one_precision_for_scores_and_percentages():
    assert [score(v) for v in (0.5, 1, 1.0, 0, 0.125, 0.9999, -0.0001)] == [
        "0.50",
        "1.00",
        "1.00",
        "0.00",
        "0.12",
        "1.00",
        "0.00",
    ]
    assert score(None) == "—" and score(float("nan")) == "—"
    assert percent(0.774) == "77.4%" and percent(None) == "—"
    assert pvalue(0.0004) == "< 0.001" and pvalue(0.0123) == "0.012" and pvalue(None) == "—"


def test_the_card_shows_scores_with_two_decimals(web, workspace, user):
    finished = run(workspace, user, qa_rows(60, error_every=10))
    html = web.get(page_url(finished)).content.decode()
    card = html.split('class="card eval-card"')[1].split("</article>")[0]
    mean = re.search(r'Mean score</div>\s*<div class="metric">([^<]*)</div>', card).group(1)
    assert mean == "0.56"  # 30 ones over 54 scores
    assert re.search(r"σ 0\.\d\d<", card)


def test_counts_group_their_thousands_and_leave_other_values_alone():
    assert [grouped(v) for v in (0, 999, 1000, 1_000_000, -12345)] == [
        "0",
        "999",
        "1,000",
        "1,000,000",
        "-12,345",
    ]
    assert grouped(12.5) == 12.5 and grouped("n/a") == "n/a" and grouped(True) is True
    shown = Template(
        "{% load assay_tags %}{% load i18n %}{% blocktranslate with done=d|grouped "
        "total=t|grouped %}{{ done }} of {{ total }} results{% endblocktranslate %}"
    ).render(Context({"d": 999_999, "t": 1_000_000}))
    assert shown == "999,999 of 1,000,000 results"
