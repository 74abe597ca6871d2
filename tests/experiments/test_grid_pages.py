"""Pages of the results grid: keyset pages (Next and Previous) that are complete and in order
across page boundaries in every order the grid has, page numbers where they are known, counts
that stop at a cap, and the text search through its two paths (rare text looked up, common
text tested row by row) finding the same rows."""

import html
import re

import pytest
from django.urls import reverse

from experiments.models import Result
from experiments.results import grid, grid_pages
from tests.support.factories import make_code_version, make_evalset_version, qa_rows, run_inline

pytestmark = pytest.mark.django_db

ROWS = 130  # three grid pages of 50
OPPOSITE = """def exec_evaluation(turn):
    output = turn["evaluate_target_output_fields"]["actual_output"]["text"]
    return EvalOutput(score=1.0 if "Lyon" in output else 0.0, reason="opposite")
"""
RANK = {"fail": 0, "unknown": 1, "pass": 2}


@pytest.fixture
def run(workspace, user):
    """130 rows scored by A (contains: even rows pass, every tenth row unknown: "cannot tell",
    rows 65 and 130 an error: a division by zero) and B (passes odd rows, reason "opposite")."""
    rows = qa_rows(ROWS, unknown_every=10, error_every=65)
    version = make_evalset_version(workspace=workspace, user=user, rows=rows)
    versions = [
        make_code_version(workspace=workspace, user=user, name="A"),
        make_code_version(workspace=workspace, user=user, name="B", source=OPPOSITE),
    ]
    return run_inline(workspace=workspace, user=user, version=version, versions=versions)


def url(experiment, query=""):
    return reverse("experiments:detail", kwargs={"ws": "acme", "id": experiment.public_id}) + query


def numbers(body: str) -> list[int]:
    return [int(n) for n in re.findall(r'class="link open-item"[^>]*>(\d+)</button>', body)]


def link(body: str, rel: str) -> str | None:
    found = re.search(rf'<a href="(\?[^"]*)" rel="{rel}"', body)
    return html.unescape(found.group(1)) if found else None


def walk(web, experiment, query: str, rel: str = "next") -> tuple[list[list[int]], str]:
    """Every page from `query` on, following the `rel` links: (their rows, the last body)."""
    pages, body = [], ""
    while query is not None:
        body = web.get(url(experiment, query)).content.decode()
        pages.append(numbers(body))
        query = link(body, rel)
    return pages, body


def binding(experiment, name):
    return experiment.bindings.get(evaluator_version__evaluator__name=name)


def final(result) -> str:
    return result.human_verdict or result.verdict


def expected(experiment, name: str, key) -> list[int]:
    """Row numbers of one binding's results in the order `key` (of a result) gives."""
    results = Result.objects.filter(binding=binding(experiment, name))
    return [r.position + 1 for r in sorted(results, key=key)]


def test_row_order_pages_are_numbered_and_complete(web, run):
    pages, last = walk(web, run, "?")
    assert [len(p) for p in pages] == [50, 50, 30]
    assert sum(pages, []) == list(range(1, ROWS + 1))
    assert "Page 3 of 3 · 130 in all" in last and 'id="results-count">130 rows' in last
    second = web.get(url(run, "?page=2")).content.decode()  # a page number is a position
    assert numbers(second) == list(range(51, 101)) and "Page 2 of 3" in second
    back, _body = walk(web, run, link(last, "prev"), rel="prev")
    assert back == pages[:-1][::-1]  # Previous walks the same pages back


@pytest.mark.parametrize(
    "query",
    [
        "?verdict=fail",  # any evaluator: rows with a matching result
        "?evaluator={A}&verdict=fail",  # one evaluator's rows
        "?q=question+1",  # text in cells
        "?sort=verdict:{A}",  # fails first, rank by rank
        "?sort=-score:{B}",  # by score, highest first
        "?sort=score:{A}&verdict=pass",  # sorted and filtered
    ],
)
def test_filtered_and_sorted_pages_are_complete_and_in_order(web, run, query):
    ids = {"A": binding(run, "A").pk, "B": binding(run, "B").pk}
    query = query.format(**ids)
    [everything] = walk_one(web, run, query)
    pages, last = walk(web, run, query)
    assert len(pages) >= 2 or len(everything) <= 50
    assert sum(pages, []) == everything
    if link(last, "prev"):
        back, _body = walk(web, run, link(last, "prev"), rel="prev")
        assert back == pages[:-1][::-1]


def walk_one(web, experiment, query: str) -> list[list[int]]:
    """The whole filtered list on one page (the grid's page size raised past the rows)."""
    from experiments.views import run_page as runs

    size, runs.GRID_PAGE = runs.GRID_PAGE, 1000
    try:
        return [numbers(web.get(url(experiment, query)).content.decode())]
    finally:
        runs.GRID_PAGE = size


def test_sorted_orders_are_the_results_own(web, run):
    fails_first = expected(run, "A", lambda r: (RANK[final(r)], r.position))
    [shown] = walk_one(web, run, f"?sort=verdict:{binding(run, 'A').pk}")
    assert shown == fails_first and shown[:3] == [2, 4, 6]
    high = expected(run, "B", lambda r: (-(r.score if r.score is not None else -1), r.position))
    assert walk_one(web, run, f"?sort=-score:{binding(run, 'B').pk}") == [high]


def test_a_filtered_count_stops_at_the_cap(web, run, monkeypatch):
    query = f"?evaluator={binding(run, 'A').pk}&verdict=fail"
    fails = Result.objects.filter(binding=binding(run, "A"), verdict="fail").count()
    exact = web.get(url(run, query)).content.decode()
    assert f'id="results-count">{fails} rows' in exact and "in all" not in exact
    monkeypatch.setattr(grid_pages, "COUNT_CAP", 10)
    capped = web.get(url(run, query)).content.decode()
    assert 'id="results-count">More than 10 rows' in capped


def test_text_search_finds_cells_reasons_and_errors_both_ways(web, run, monkeypatch):
    a = binding(run, "A").pk
    cases = {
        "?q=question+77": [78],  # a cell
        "?q=cannot+tell": list(range(10, ROWS, 10)),  # a reason (A's unknown rows)
        "?q=division+by+zero": [65, 130],  # an error
        f"?evaluator={a}&q=question+77": [78],  # one evaluator's rows, by a cell
        f"?evaluator={a}&q=opposite": list(range(1, ROWS + 1)),  # another evaluator's reason
        "?q=nowhere": [],
    }
    looked_up = {query: walk_one(web, run, query)[0] for query in cases}
    assert looked_up == cases
    monkeypatch.setattr(grid, "TEXT_HITS_CAP", 0)  # any text found counts as common: the walk
    assert {query: walk_one(web, run, query)[0] for query in cases} == cases


def test_rare_text_is_looked_up_and_common_text_is_walked(run, monkeypatch):
    assert grid.text_hits(experiment=run, q="question 77") == [77]  # positions
    monkeypatch.setattr(grid, "TEXT_HITS_CAP", 5)
    assert grid.text_hits(experiment=run, q="question") is None


def test_a_bad_page_link_names_the_problem(web, run):
    body = web.get(url(run, "?verdict=fail&after=nonsense")).content.decode()
    assert 'id="filter-error"' in body and "page link" in body and numbers(body) == []
