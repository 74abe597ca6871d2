"""Pairwise runs on one's own set (issue 28): when the question column is not named `input`,
the judge's `input` is mapped — explicitly in the API, from the experiments' own mappings or a
synonym when left out, and with a mapping control on the new-run form that starts from the
experiments' mappings. The baseline is never offered in list B."""

import pytest
from django.urls import reverse

from experiments.models import PairwiseResult, PairwiseRun
from experiments.pairwise import work as pairwise_work
from tests.support.own_set import app_run, own_set
from tests.support.pairwise import FIRST, SECOND

pytestmark = pytest.mark.django_db
R = "/api/v1/pairwise-runs/"


@pytest.fixture
def own_runs(workspace, user, pw_scorer):
    def make(question: str = "question"):
        version = own_set(workspace, user, question)
        return [
            app_run(workspace, user, version, pw_scorer, label, question, marker)
            for label, marker in (("prompt", SECOND), ("HTTP app", FIRST))
        ]

    return make


def test_api_run_on_a_question_column_with_an_explicit_mapping(api, own_runs, pw_judge):
    a, b = own_runs("question")
    body = {
        "name": "FAQ · prompt vs HTTP",
        "experiments": [str(a.public_id), str(b.public_id)],
        "evaluator_version": str(pw_judge.public_id),
        "chunk_size": 10,
    }
    explicit = api.post(R, {**body, "mapping": {"input": "column:question"}}, format="json")
    assert explicit.status_code == 202, explicit.content[:400]
    assert explicit.json()["mapping"]["input"] == "column:question"
    run = pairwise_work.pairwise_run_inline(run_id=PairwiseRun.objects.get().pk)
    assert run.status == "completed" and run.results.count() == 4
    pair = PairwiseResult.objects.filter(run=run).order_by("position").first()
    assert pair.input["evaluate_dataset_fields"]["input"]["text"] == "what is 0?"
    assert {r.outcome for r in run.results.all()} == {"B"}  # the HTTP app's marker wins
    left_out = api.post(R, {**body, "name": "suggested"}, format="json")
    assert left_out.status_code == 202, left_out.content[:400]
    assert left_out.json()["mapping"]["input"] == "column:question"


def test_a_wrong_explicit_mapping_is_refused_by_name_and_nothing_saved(api, own_runs, pw_judge):
    a, b = own_runs("question")
    response = api.post(
        R,
        {
            "name": "wrong",
            "experiments": [str(a.public_id), str(b.public_id)],
            "evaluator_version": str(pw_judge.public_id),
            "mapping": {"input": "column:input"},
        },
        format="json",
    )
    assert response.status_code == 400 and "mapping" in response.json()["error"]["details"]
    assert PairwiseRun.objects.count() == 0


def test_left_out_the_mapping_is_the_experiments_own(workspace, user, own_runs, pw_judge):
    a, b = own_runs("ask")  # no synonym: only the experiments' bindings know
    run = services_create(workspace, user, [a, b], pw_judge)
    assert run.mapping["input"] == "column:ask"


def services_create(workspace, user, experiments, judge, **fields):
    from experiments.pairwise.services import pairwise_run_create

    return pairwise_run_create(
        workspace=workspace,
        user=user,
        name="own",
        experiments=experiments,
        evaluator_version=judge,
        **fields,
    )


# ----------------------------------------------------------------------------- the form


def url(name: str) -> str:
    return reverse(f"pairwise:{name}", kwargs={"ws": "acme"})


def form_data(a, b, judge, **extra) -> dict:
    return {
        "name": "FAQ · prompt vs HTTP, pairwise",
        "evalset": str(a.evalset_version.evalset.public_id),
        "baseline": str(a.public_id),
        "others": [str(b.public_id)],
        "evaluator_version": str(judge.public_id),
        "repetitions": "1",
        **extra,
    }


def test_the_form_has_a_mapping_prefilled_from_the_experiments(web, own_runs, pw_judge):
    a, b = own_runs("ask")
    query = f"?evalset={a.evalset_version.evalset.public_id}&experiments={a.public_id}"
    page = web.get(url("new") + query + f"&experiments={b.public_id}").content.decode()
    assert 'id="pairwise-mapping"' in page and 'name="map__input"' in page
    assert '<option value="column:ask" selected>ask (Text)</option>' in page
    assert 'name="map__output_a"' not in page  # the outputs are the experiments' answers


def test_the_form_launches_on_a_question_column_with_the_chosen_mapping(web, own_runs, pw_judge):
    a, b = own_runs("question")
    response = web.post(url("new"), form_data(a, b, pw_judge, map__input="column:question"))
    run = PairwiseRun.objects.get()
    assert response.status_code == 302, response.content.decode()[:2000]
    assert run.mapping["input"] == "column:question"
    assert pairwise_work.pairwise_run_inline(run_id=run.pk).status == "completed"


def test_an_unmapped_input_is_named_beside_the_mapping_and_nothing_saved(web, own_runs, pw_judge):
    a, b = own_runs("question")
    response = web.post(url("new"), form_data(a, b, pw_judge, map__input=""))
    page = response.content.decode()
    assert response.status_code == 400 and PairwiseRun.objects.count() == 0
    mapping = page[page.index('id="pairwise-mapping"') :]
    assert "Required variable &#x27;input&#x27; is not mapped." in mapping
    assert '<option value="" selected>' in mapping  # the choice made is kept


def test_the_baseline_is_not_offered_in_list_b(web, own_runs, pw_judge):
    a, b = own_runs("question")
    query = f"?evalset={a.evalset_version.evalset.public_id}&experiments={b.public_id}"
    page = web.get(url("new") + query).content.decode()
    others = page[page.index('id="others-field"') : page.index('id="pairwise-mapping"')]
    as_b = others[others.index(f'data-other="{b.public_id}"') :].split("</label>")[0]
    assert "hidden" in as_b.split(">")[0] and "disabled" in as_b
    offered = others[others.index(f'data-other="{a.public_id}"') :].split("</label>")[0]
    assert "hidden" not in offered.split(">")[0] and "disabled" not in offered
    both = web.post(
        url("new"), form_data(a, b, pw_judge, others=[str(a.public_id), str(b.public_id)])
    )
    assert both.status_code == 400 and PairwiseRun.objects.count() == 0
    assert "The baseline (A) is not judged against itself" in both.content.decode()
