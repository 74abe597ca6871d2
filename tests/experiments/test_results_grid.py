"""The results grid (one row per item, one column per evaluator) and the row drawer."""

import re

import pytest
from django.urls import reverse

from evalsets.models import EvalSetItem
from experiments.models import Result
from tests.support.factories import make_code_version, make_evalset_version, qa_rows, run_inline

pytestmark = pytest.mark.django_db

OPPOSITE = """def exec_evaluation(turn):
    output = turn["evaluate_target_output_fields"]["actual_output"]["text"]
    return EvalOutput(score=1.0 if "Lyon" in output else 0.0, reason="opposite")
"""
HALF = """def exec_evaluation(turn):
    print("looked at it")
    return EvalOutput(score=0.5, reason="half marks")
"""


@pytest.fixture
def three(workspace, user):
    """12 rows scored by three evaluators: A passes even rows, B odd rows, C every row."""
    version = make_evalset_version(workspace=workspace, user=user, rows=qa_rows(12))
    versions = [
        make_code_version(workspace=workspace, user=user, name="A"),
        make_code_version(workspace=workspace, user=user, name="B", source=OPPOSITE),
        make_code_version(workspace=workspace, user=user, name="C", source=HALF),
    ]
    return run_inline(
        workspace=workspace, user=user, version=version, versions=versions, name="three"
    )


def detail(experiment, query="", ws="acme"):
    return reverse("experiments:detail", kwargs={"ws": ws, "id": experiment.public_id}) + query


def numbers(body: str) -> list[int]:
    """Row numbers of the grid, in page order."""
    return [int(n) for n in re.findall(r'class="link open-item"[^>]*>(\d+)</button>', body)]


def binding(experiment, name):
    return experiment.bindings.get(evaluator_version__evaluator__name=name)


def test_one_row_per_item_with_a_column_per_evaluator(web, three):
    body = web.get(detail(three)).content.decode()
    assert numbers(body) == list(range(1, 13))
    items = EvalSetItem.objects.filter(version=three.evalset_version).order_by("position")
    uids = re.findall(r'<tr data-item-id="([0-9a-f-]+)"', body)
    assert uids == [str(i.item_id) for i in items]
    assert body.count('class="eval-cell"') == 36
    assert body.count('class="eval-head"') == 3
    first = body.split(f'data-item-id="{items[0].item_id}"')[1].split("</tr>")[0]
    assert re.findall(r'data-verdict="(\w+)"', first) == ["pass", "fail", "pass"]
    assert "question 0" in first and "The capital is Paris" in first


def test_filter_by_one_evaluators_fails(web, three):
    b = binding(three, "B")
    body = web.get(detail(three, f"?evaluator={b.pk}&verdict=fail")).content.decode()
    assert numbers(body) == [1, 3, 5, 7, 9, 11]  # the even positions: B fails them
    anyone = web.get(detail(three, "?verdict=fail")).content.decode()
    assert numbers(anyone) == list(range(1, 13))
    nobody = web.get(detail(three, f"?evaluator={binding(three, 'C').pk}&verdict=fail"))
    assert numbers(nobody.content.decode()) == [] and 'id="no-results"' in nobody.content.decode()


def test_sort_by_an_evaluators_verdict_and_score(web, three):
    a = binding(three, "A")
    fails_first = numbers(web.get(detail(three, f"?sort=verdict:{a.pk}")).content.decode())
    assert fails_first == [2, 4, 6, 8, 10, 12, 1, 3, 5, 7, 9, 11]
    high = numbers(web.get(detail(three, f"?sort=-score:{a.pk}")).content.decode())
    low = numbers(web.get(detail(three, f"?sort=score:{a.pk}")).content.decode())
    assert high[:6] == [1, 3, 5, 7, 9, 11] and low[:6] == [2, 4, 6, 8, 10, 12]


def test_text_search_reads_cells_and_reasons(web, three):
    assert numbers(web.get(detail(three, "?q=question+7")).content.decode()) == [8]
    assert len(numbers(web.get(detail(three, "?q=half+marks")).content.decode())) == 12
    assert numbers(web.get(detail(three, "?q=nowhere")).content.decode()) == []


def test_bad_sort_and_item_filters_name_the_problem(web, three):
    bad = web.get(detail(three, "?sort=score:999999")).content.decode()
    assert 'id="filter-error"' in bad and "no evaluator 999999" in bad and numbers(bad) == []
    worse = web.get(detail(three, "?sort=colour")).content.decode()
    assert "sort" in worse and 'id="filter-error"' in worse
    item = web.get(detail(three, "?item=not-a-uuid")).content.decode()
    assert "item" in item and "UUID" in item and numbers(item) == []


def test_item_filter_shows_that_row(web, three):
    item = EvalSetItem.objects.get(version=three.evalset_version, position=4)
    assert numbers(web.get(detail(three, f"?item={item.item_id}")).content.decode()) == [5]


def drawer_url(experiment, item, ws="acme", query=""):
    kwargs = {"ws": ws, "id": experiment.public_id, "item_id": item.item_id}
    return reverse("experiments:item", kwargs=kwargs) + query


def test_the_drawer_shows_every_evaluator_side_by_side(web, three):
    item = EvalSetItem.objects.get(version=three.evalset_version, position=1)
    body = web.get(drawer_url(three, item)).content.decode()
    assert len(re.findall(r'class="drawer-eval( focus)?"', body)) == 3
    assert "Row 2" in body and "looked at it" in body and "half marks" in body
    assert "opposite" in body and "missing" in body  # B's and A's reasons
    assert "question 1" in body and "The capital is Lyon" in body
    assert body.count('class="correct-form"') == 3
    assert body.index('class="correct-form"') < body.index("half marks")  # correction on top


def test_a_correction_updates_the_row_in_place(web, three, user):
    item = EvalSetItem.objects.get(version=three.evalset_version, position=1)
    result = Result.objects.get(experiment=three, item=item, binding=binding(three, "A"))
    url = reverse(
        "experiments:result_correct",
        kwargs={"ws": "acme", "id": three.public_id, "result_id": result.pk},
    )
    data = {f"r{result.pk}-verdict": "pass", f"r{result.pk}-note": "Lyon is fine here"}
    response = web.post(url, data)
    body = response.content.decode()
    assert response.status_code == 200 and response["HX-Trigger"] == "result-corrected"
    oob = body.split("<template>")[1]
    assert f'id="item-{item.item_id}" hx-swap-oob="true"' in oob
    assert "corrected · was fail" in oob and 'data-verdict="pass"' in oob
    result.refresh_from_db()
    assert result.human_verdict == "pass" and result.corrected_by == user
    summary = binding(three, "A").aggregate.summary
    assert summary["passed"] == 7


def test_a_correction_without_a_reason_is_refused_in_the_drawer(web, three):
    item = EvalSetItem.objects.get(version=three.evalset_version, position=1)
    result = Result.objects.get(experiment=three, item=item, binding=binding(three, "A"))
    url = reverse(
        "experiments:result_correct",
        kwargs={"ws": "acme", "id": three.public_id, "result_id": result.pk},
    )
    response = web.post(url, {f"r{result.pk}-verdict": "pass", f"r{result.pk}-note": ""})
    assert response.status_code == 400 and "Say why you correct this result" in (
        response.content.decode()
    )
    result.refresh_from_db()
    assert result.human_verdict == ""


def test_the_old_result_link_opens_the_rows_drawer_on_that_evaluator(web, three):
    result = Result.objects.filter(experiment=three, binding=binding(three, "B")).first()
    url = reverse(
        "experiments:result",
        kwargs={"ws": "acme", "id": three.public_id, "result_id": result.pk},
    )
    body = web.get(url).content.decode()
    assert len(re.findall(r'class="drawer-eval( focus)?"', body)) == 3
    assert f'class="drawer-eval focus" data-binding="{result.binding_id}"' in body


def one_check(workspace, user, rows, name):
    """A set of `rows` scored by the contains check: (the finished run, the version)."""
    version = make_evalset_version(workspace=workspace, user=user, rows=rows, name=name)
    evaluator_version = make_code_version(workspace=workspace, user=user)
    experiment = run_inline(
        workspace=workspace, user=user, version=version, evaluator_version=evaluator_version
    )
    return experiment, version


def test_untrusted_cells_are_escaped_in_grid_and_drawer(web, workspace, user):
    rows = [{"input": "<script>x()</script>", "actual_output": "<b>o</b>", "reference_output": "r"}]
    experiment, version = one_check(workspace, user, rows, "XSS")
    item = EvalSetItem.objects.get(version=version)
    for body in (web.get(detail(experiment)), web.get(drawer_url(experiment, item))):
        text = body.content.decode()
        assert "<script>x()</script>" not in text and "&lt;script&gt;x()&lt;/script&gt;" in text
        assert "<b>o</b>" not in text


def test_long_cells_are_collapsed(web, workspace, user):
    long = "word " * 400
    rows = [{"input": long, "actual_output": "Paris", "reference_output": "Paris"}]
    experiment, version = one_check(workspace, user, rows, "Long")
    grid = web.get(detail(experiment)).content.decode()
    assert '<details class="cell-more">' in grid
    item = EvalSetItem.objects.get(version=version)
    drawer = web.get(drawer_url(experiment, item)).content.decode()
    assert '<details class="long-text">' in drawer and "show all 2000 characters" in drawer


# ----------------------------------------------------------------------------- outsiders


def test_outsiders_cannot_open_grid_or_drawer(client, outsider, three):
    from assay.models import Workspace

    client.force_login(outsider)
    item = EvalSetItem.objects.filter(version=three.evalset_version).first()
    result = Result.objects.filter(experiment=three).first()
    for ws in ("acme", "other"):  # the other workspace's URL, and their own with our ids
        assert client.get(detail(three, ws=ws)).status_code == 404
        assert client.get(drawer_url(three, item, ws=ws)).status_code == 404
        url = reverse(
            "experiments:result_correct",
            kwargs={"ws": ws, "id": three.public_id, "result_id": result.pk},
        )
        assert client.post(url, {f"r{result.pk}-verdict": "pass", "note": "x"}).status_code == 404
    assert Workspace.objects.get(slug="other").experiments.count() == 0
    result.refresh_from_db()
    assert result.human_verdict == ""


def test_an_item_of_another_experiments_set_is_not_found(web, three, workspace, user):
    other = make_evalset_version(workspace=workspace, user=user, rows=qa_rows(2), name="Other")
    foreign = EvalSetItem.objects.filter(version=other).first()
    assert web.get(drawer_url(three, foreign)).status_code == 404


# ----------------------------------------------------------------------------- the API


def test_the_api_lists_one_row_per_item_with_every_evaluator(api, three):
    b = binding(three, "B")
    url = f"/api/v1/experiments/{three.public_id}/items/"
    body = api.get(url, {"evaluator": b.pk, "verdict": "fail"}).json()
    rows = body["results"]
    assert [r["row_number"] for r in rows] == [1, 3, 5, 7, 9, 11]
    first = rows[0]
    assert [r["evaluator_name"] for r in first["results"]] == ["A", "B", "C"]
    assert [r["final_verdict"] for r in first["results"]] == ["pass", "fail", "pass"]
    assert first["results"][2]["reason"] == "half marks" and first["output"] is None
    assert first["data"]["input"]["text"] == "question 0"
    bad = api.get(url, {"sort": "score:999999"})
    assert bad.status_code == 400 and "999999" in bad.content.decode()


def test_outsiders_cannot_list_the_grid_through_the_api(outsider_api, three):
    # a token is bound to its own workspace: our ids through it are not found
    url = f"/api/v1/experiments/{three.public_id}/items/"
    assert outsider_api.get(url).status_code == 404


def test_sorting_with_repetitions_groups_each_row(web, workspace, user):
    version = make_evalset_version(workspace=workspace, user=user, rows=qa_rows(6))
    experiment = run_inline(
        workspace=workspace,
        user=user,
        version=version,
        evaluator_version=make_code_version(workspace=workspace, user=user),
        name="reps",
        repetitions=3,
    )
    b = experiment.bindings.get()
    fails_first = numbers(web.get(detail(experiment, f"?sort=verdict:{b.pk}")).content.decode())
    assert fails_first == [2, 4, 6, 1, 3, 5]  # one row per item, odd positions fail
    high = numbers(web.get(detail(experiment, f"?sort=-score:{b.pk}")).content.decode())
    assert high == [1, 3, 5, 2, 4, 6]
