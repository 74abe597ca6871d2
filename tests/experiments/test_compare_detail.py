"""One compared row: its inputs once, baseline and candidate side by side with the output's
text difference marked, the judge's prompt and answer, links to both rows; page, drawer, API."""

import re
import uuid

import pytest
from django.core.exceptions import ValidationError

from evalsets import services as evalset_services
from evalsets.models import EvalSetItem
from evaluators import services as evaluator_services
from experiments import scoring as engine
from experiments import services
from experiments.models import Result
from experiments.results.textdiff import diff_json, marked_sides, text_diff
from experiments.selectors import results_list
from tests.support.factories import (
    make_code_version,
    make_evalset_version,
    make_llm_evaluator,
    make_provider,
    qa_rows,
    run_inline,
)

pytestmark = pytest.mark.django_db

ROWS = [
    {
        "input": "capital of France?",
        "actual_output": "The capital is Paris.",
        "reference_output": "Paris",
    },
    {
        "input": "capital of Italy?",
        "actual_output": "Rome is the capital.",
        "reference_output": "Rome",
    },
    {
        "input": "capital of Spain?",
        "actual_output": "Barcelona, I think. [[script:score:0.2]]",
        "reference_output": "Madrid",
    },
]
# the candidate's outputs where they differ: row 1 regresses (with markup in it), row 3 improves
CANDIDATE = {
    0: "The capital is <b>Lyon</b>, surely. [[script:score:0.1]]",
    2: "Madrid is the capital.",
}
JUDGE_USER = (
    "<question>\n{{input}}\n</question>\n<reference>\n{{reference_output}}\n</reference>\n"
    "<answer>\n{{output}}\n</answer>"
)
MAPPING = {
    "input": "column:input",
    "output": "column:actual_output",
    "reference_output": "column:reference_output",
}


def judge_version(workspace, user, provider):
    """An LLM judge that also reads the reference, so the turn carries it."""
    judge = make_llm_evaluator(workspace=workspace, user=user, provider=provider)
    config = judge.draft_config
    reference = {"name": "reference_output", "content_type": "Text", "required": True}
    messages = [m for m in config["messages"] if m["role"] == "system"]
    config = {
        **config,
        "input_variables": [*config["input_variables"], {**reference, "description": ""}],
        "messages": [*messages, {"role": "user", "content": JUDGE_USER}],
    }
    evaluator_services.evaluator_update_draft(evaluator=judge, user=user, config=config)
    return evaluator_services.evaluator_submit_version(evaluator=judge, user=user, version="1.0.0")


def judged_run(workspace, user, version, judge, name):
    experiment = services.experiment_create(
        workspace=workspace,
        user=user,
        name=name,
        evalset_version=version,
        bindings=[{"evaluator_version": judge, "mapping": MAPPING}],
        launch=True,
    )
    return engine.experiment_run_inline(experiment_id=experiment.pk)


@pytest.fixture
def judged(workspace, user, llm_server):
    """Baseline on 1.0.0 and candidate on 1.1.0 (two outputs changed, one row added), both
    scored by one LLM judge on the local scripted server. Returns (baseline, candidate, items,
    added) with items the three shared item ids in row order."""
    provider = make_provider(workspace=workspace, server=llm_server)
    judge = judge_version(workspace, user, provider)
    v1 = make_evalset_version(workspace=workspace, user=user, rows=ROWS)
    evalset = v1.evalset
    draft = EvalSetItem.objects.filter(evalset=evalset, version__isnull=True).order_by("position")
    items = [str(i) for i in draft.values_list("item_id", flat=True)]
    for index, output in CANDIDATE.items():
        data = {**ROWS[index], "actual_output": output}
        evalset_services.item_update(evalset=evalset, item_id=items[index], data=data)
    added = evalset_services.item_create(
        evalset=evalset,
        data={"input": "capital of Peru?", "actual_output": "Lima", "reference_output": "Lima"},
    )
    v2 = evalset_services.version_commit(evalset=evalset, user=user, version="1.1.0")
    baseline = judged_run(workspace, user, v1, judge, "baseline")
    candidate = judged_run(workspace, user, v2, judge, "candidate <i>new</i>")
    return baseline, candidate, items, str(added.item_id)


def detail_url(baseline, candidate, item, ws="acme") -> str:
    return f"/w/{ws}/compare/{baseline.public_id}/vs/{candidate.public_id}/items/{item}/"


def api_url(baseline, candidate, item) -> str:
    return f"/api/v1/compare/{baseline.public_id}/vs/{candidate.public_id}/items/{item}"


def section(page: str, marker: str) -> str:
    """The HTML from `marker` to the end of its <section>."""
    return page.split(marker, 1)[1].split("</section>", 1)[0]


# ----------------------------------------------------------------------------- the text diff


def test_the_diff_marks_deleted_and_inserted_words_and_keeps_whitespace():
    old, new = marked_sides(
        text_diff("The capital is Paris.\nSure.", "The capital is Lyon.\nSure.")
    )
    assert old == "The capital is <del>Paris.</del>\nSure."
    assert new == "The capital is <ins>Lyon.</ins>\nSure."
    runs = text_diff("a b c", "a c d")
    assert diff_json(runs) == [
        {"op": "equal", "text": "a "},
        {"op": "delete", "text": "b "},
        {"op": "equal", "text": "c "},
        {"op": "insert", "text": "d"},
    ]
    assert marked_sides(text_diff("same  text", "same text")) == ("same  text", "same text")


def test_the_diff_escapes_every_piece_it_does_not_mark():
    old, new = marked_sides(
        text_diff('keep <script>alert("x")</script> & go', "keep <img src=x onerror=y> & go")
    )
    assert "<script>" not in old and "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;" in old
    assert "<img" not in new and "<ins>&lt;img src=x onerror=y&gt;</ins>" in new
    assert old.endswith("&amp; go") and new.endswith("&amp; go")


def test_very_long_texts_are_compared_line_by_line():
    old = "\n".join(f"word{i} " * 3 for i in range(3000))
    new = old.replace("word1500 word1500 word1500", "changed line")
    runs = text_diff(old, new)
    deleted = [text for op, text, _ in runs if op == "delete"]
    assert deleted == ["word1500 word1500 word1500 \n"]  # one whole line, the rest equal


# ----------------------------------------------------------------------------- the page


def test_a_regression_shows_inputs_once_then_both_sides_with_the_diff(judged, web):
    baseline, candidate, items, _ = judged
    page = web.get(detail_url(baseline, candidate, items[0])).content.decode()
    assert page.count("Inputs and reference") == 1
    inputs = page.split('class="detail-inputs"', 1)[1].split('class="grid two', 1)[0]
    assert "capital of France?" in inputs and "reference_output" in inputs and ">Paris<" in inputs
    assert 'data-row-number="1"' in page and 'id="detail-kind">regression<' in page
    base, cand = section(page, 'data-side="baseline"'), section(page, 'data-side="candidate"')
    assert "<del>Paris.</del>" in base and "<ins>" not in base
    assert "<ins>&lt;b&gt;Lyon&lt;/b&gt;, surely. [[script:score:0.1]]</ins>" in cand
    assert "<b>Lyon</b>" not in page and "<i>new</i>" not in page  # outputs and names escaped
    assert ">pass</span>" in base and "The answer matches" in base
    assert re.search(r'class="score">0\.80?<', base) and re.search(r'class="score">0\.10?<', cand)
    assert ">fail</span>" in cand
    evalset = baseline.evalset_version.evalset.public_id
    for side, run in ((base, baseline), (cand, candidate)):
        link = f"/w/acme/experiments/{run.public_id}/?item={items[0]}#item-{items[0]}"
        assert f'href="{link}"' in side
        version = run.evalset_version.version
        row = f"/w/acme/evalsets/{evalset}/items/{items[0]}/?version={version}"
        assert f'href="{row}"' in side and f"row 1 of QA {version}" in side
        assert web.get(row)["Location"].endswith(f"#item-{items[0]}")
        assert "Rendered prompt" in side and "capital of France?" in side.split("Rendered")[1]
        assert "Raw model answer" in side and "&quot;score&quot;" in side


def test_without_javascript_it_is_a_page_with_a_way_back(judged, web):
    baseline, candidate, items, _ = judged
    query = f"baseline={baseline.public_id}&candidates={candidate.public_id}&filter=regressions"
    response = web.get(detail_url(baseline, candidate, items[0]) + "?" + query)
    page = response.content.decode()
    assert response.status_code == 200 and "<html" in page and "data-close-drawer" not in page
    assert f"/w/acme/compare/?baseline={baseline.public_id}&amp;candidates=" in page
    assert "filter=regressions" in page.split('id="back-to-compare"')[0].rsplit("<a", 1)[1]
    assert "HX-Request" in response["Vary"]


def test_htmx_gets_the_drawer_alone(judged, web):
    baseline, candidate, items, _ = judged
    response = web.get(detail_url(baseline, candidate, items[2]), HTTP_HX_REQUEST="true")
    page = response.content.decode()
    assert response.status_code == 200 and "<html" not in page
    assert (
        'class="drawer compare-drawer card compare-detail"' in page and "data-close-drawer" in page
    )
    assert 'id="detail-kind">improvement<' in page


def test_the_compare_rows_open_the_detail(judged, web):
    baseline, candidate, items, _ = judged
    query = f"baseline={baseline.public_id}&candidates={candidate.public_id}&filter=regressions"
    page = web.get(f"/w/acme/compare/?{query}").content.decode()
    row = page.split('class="diff-row', 1)[1].split("</tr>", 1)[0]
    url = detail_url(baseline, candidate, items[0])
    assert f'href="{url}?' in row and f'hx-get="{url}?' in row and 'hx-target="#drawer"' in row
    assert f"candidate={candidate.public_id}" in row and "evaluator=" in row
    assert 'data-row-number="1"' in row and "Row 1" in row
    assert 'id="drawer"' in page


def test_a_human_correction_is_shown_and_counts(judged, web, user):
    baseline, candidate, items, _ = judged
    result = Result.objects.get(experiment=candidate, item__item_id=items[0])
    services.result_correct(result=result, user=user, verdict="pass", score=0.9, note="fine")
    page = web.get(detail_url(baseline, candidate, items[0])).content.decode()
    cand = section(page, 'data-side="candidate"')
    assert ">pass</span>" in cand and "corrected · was fail" in cand
    assert "0.9" in cand and "was 0.1" in cand
    assert 'id="detail-kind">unchanged<' in page  # pass → corrected pass


def test_a_row_only_one_run_has(judged, web):
    baseline, candidate, _, added = judged
    page = web.get(detail_url(baseline, candidate, added)).content.decode()
    assert 'id="detail-kind">only in candidate<' in page
    assert "did not score this row" in section(page, 'data-side="baseline"')
    assert "capital of Peru?" in page.split('class="detail-inputs"', 1)[1]


def test_rows_evaluators_and_pairs_that_are_not_there(judged, web, workspace, user):
    baseline, candidate, items, _ = judged
    assert web.get(detail_url(baseline, candidate, uuid.uuid4())).status_code == 404
    assert (
        web.get(detail_url(baseline, candidate, items[0]) + "?evaluator=999999").status_code == 404
    )
    assert web.get(detail_url(baseline, candidate, items[0]) + "?evaluator=x").status_code == 404
    assert web.get(detail_url(baseline, baseline, items[0])).status_code == 400
    other = make_evalset_version(workspace=workspace, user=user, rows=qa_rows(2), name="Other")
    elsewhere = run_inline(
        workspace=workspace,
        user=user,
        version=other,
        evaluator_version=make_code_version(workspace=workspace, user=user),
    )
    response = web.get(detail_url(baseline, elsewhere, items[0]))
    assert response.status_code == 400 and b"another evalset" in response.content


# ----------------------------------------------------------------------------- the API


def test_the_api_gives_the_same_detail(judged, api):
    baseline, candidate, items, _ = judged
    listed = api.get(
        f"/api/v1/compare?baseline={baseline.public_id}&candidates={candidate.public_id}"
    ).json()
    evaluator = listed["candidates"][0]["evaluators"][0]["evaluator_id"]
    body = api.get(api_url(baseline, candidate, items[0]) + f"?evaluator={evaluator}").json()
    assert body["item_id"] == items[0] and body["row_number"] == 1 and body["kind"] == "regression"
    assert body["evaluator"]["id"] == evaluator
    assert body["inputs"]["input"]["text"] == "capital of France?"
    assert body["inputs"]["reference_output"]["text"] == "Paris"
    ops = {(run["op"], run["text"].strip()) for run in body["output_diff"]}
    assert ("delete", "Paris.") in ops and (
        "insert",
        "<b>Lyon</b>, surely. [[script:score:0.1]]",
    ) in ops
    left, right = body["baseline"]["result"], body["candidate"]["result"]
    assert (left["verdict"], left["score"], right["verdict"], right["score"]) == (
        "pass",
        0.8,
        "fail",
        0.1,
    )
    assert (
        "capital of France?" in right["rendered_prompt"] and '"score": 0.1' in right["raw_answer"]
    )
    assert body["candidate"]["experiment"]["id"] == str(candidate.public_id)
    by_public = api.get(
        api_url(baseline, candidate, items[0]) + f"?evaluator={body['evaluator']['public_id']}"
    )
    assert by_public.json()["kind"] == "regression"


def test_the_api_says_what_is_missing(judged, api):
    baseline, candidate, items, added = judged
    assert api.get(api_url(baseline, candidate, uuid.uuid4())).status_code == 404
    assert api.get(api_url(baseline, candidate, items[0]) + "?evaluator=0").status_code == 404
    one_sided = api.get(api_url(baseline, candidate, added)).json()
    assert one_sided["baseline"]["result"] is None and one_sided["kind"] == "only in candidate"
    same = api.get(api_url(baseline, baseline, items[0]))
    assert same.status_code == 400 and "baseline" in same.json()["error"]["message"]


def test_the_schema_documents_the_endpoint(api):
    schema = api.get("/api/schema/?format=json").json()
    [path] = [p for p in schema["paths"] if p.startswith("/api/v1/compare/") and "items" in p]
    operation = schema["paths"][path]["get"]
    assert operation["summary"] and operation["description"] and operation["tags"] == ["compare"]


# ----------------------------------------------------------------------------- outsiders


@pytest.fixture
def own_run(outsider):
    """A finished run in the outsider's own workspace."""
    from assay.models import Workspace

    own = Workspace.objects.get(slug="other")
    version = make_evalset_version(workspace=own, user=outsider, rows=qa_rows(2), name="Mine")
    code = make_code_version(workspace=own, user=outsider)
    return run_inline(workspace=own, user=outsider, version=version, evaluator_version=code)


def test_an_outsider_gets_404_through_every_url(judged, client, outsider, outsider_api, own_run):
    baseline, candidate, items, _ = judged
    client.force_login(outsider)
    for ws in ("acme", "other"):
        assert client.get(detail_url(baseline, candidate, items[0], ws=ws)).status_code == 404
        with_own = detail_url(own_run, candidate, items[0], ws=ws)
        assert client.get(with_own).status_code == 404
    assert client.get(detail_url(candidate, own_run, items[0], ws="other")).status_code == 404
    assert outsider_api.get(api_url(baseline, candidate, items[0])).status_code == 404
    assert outsider_api.get(api_url(own_run, candidate, items[0])).status_code == 404
    assert outsider_api.get(api_url(candidate, own_run, items[0])).status_code == 404


def test_the_owner_cannot_reach_an_outsiders_run_either(judged, web, api, own_run):
    baseline, _, items, _ = judged
    assert web.get(detail_url(baseline, own_run, items[0])).status_code == 404
    assert api.get(api_url(baseline, own_run, items[0])).status_code == 404


# ----------------------------------------------------------------------------- the item filter


def test_results_list_filters_by_item(judged):
    baseline, _, items, _ = judged
    rows = results_list(experiment=baseline, item=items[1])
    assert [str(r.item.item_id) for r in rows] == [items[1]]
    with pytest.raises(ValidationError) as caught:
        results_list(experiment=baseline, item="row-2")
    assert "item" in caught.value.message_dict
