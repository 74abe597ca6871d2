"""A new evaluator kind is one module: this toy kind, registered in a few lines, works through
the API, the debug runner, versions, the draft page and an experiment, with nothing else
changed."""

import pytest
from django.urls import reverse

from evaluators import kinds
from evaluators.kinds.base import EvaluatorKindSpec
from evaluators.runner import RunOutcome
from experiments.models import Result
from tests.support.factories import make_evalset_version, qa_rows, run_inline

pytestmark = pytest.mark.django_db


class ToyKind(EvaluatorKindSpec):
    """Passes when the output contains a configured word."""

    name, label, queue, keys = "toy", "Toy", "code", frozenset({"word"})

    def validate(self, config, errors):
        if not isinstance(config.get("word"), str) or not config["word"]:
            errors.add("word", "Give a word.")
        return {"word": config.get("word")}

    def default_config(self, language):
        variables = [{"name": "actual_output", "content_type": "Text"}]
        return {"input_variables": variables, "word": "Paris"}

    def run(self, batch):
        texts = [t["evaluate_target_output_fields"]["actual_output"]["text"] for t in batch.turns]
        word = batch.config["word"]
        return [RunOutcome(status="success", score=float(word in text)) for text in texts]


@pytest.fixture
def toy():
    kind = kinds.register(ToyKind())
    yield kind
    kinds.unregister("toy")


def test_a_toy_kind_runs_everywhere(api, web, workspace, user, toy):
    created = api.post("/api/v1/evaluators/", {"name": "Says Paris", "kind": "toy"}, format="json")
    assert created.status_code == 201, created.content
    evaluator_id = created.json()["id"]
    bad = api.patch(
        f"/api/v1/evaluators/{evaluator_id}/",
        {"config": {"input_variables": [], "word": ""}},
        format="json",
    )
    assert bad.status_code == 400 and "config.word" in bad.json()["error"]["details"]
    output = {"content_type": "Text", "text": "It is Paris"}
    turn = {"evaluate_target_output_fields": {"actual_output": output}}
    debugged = api.post(
        f"/api/v1/evaluators/{evaluator_id}/debug", {"turns": [turn]}, format="json"
    )
    assert debugged.json()["results"][0]["verdict"] == "pass"
    submitted = api.post(
        f"/api/v1/evaluators/{evaluator_id}/versions/", {"version": "1.0.0"}, format="json"
    )
    assert submitted.status_code == 201, submitted.content
    page = web.get(reverse("evaluators:detail", kwargs={"ws": "acme", "id": evaluator_id}))
    assert page.status_code == 200 and b"Toy" in page.content and b"code-card" not in page.content
    from evaluators.models import EvaluatorVersion

    version = EvaluatorVersion.objects.get(evaluator__public_id=evaluator_id)
    evalset = make_evalset_version(workspace=workspace, user=user, rows=qa_rows(10))
    experiment = run_inline(
        workspace=workspace, user=user, version=evalset, evaluator_version=version
    )
    assert experiment.status == "completed"
    verdicts = list(Result.objects.filter(experiment=experiment).values_list("verdict", flat=True))
    assert verdicts.count("pass") == 5 and verdicts.count("fail") == 5


def test_an_unknown_kind_is_refused_with_the_known_ones_named(api):
    response = api.post("/api/v1/evaluators/", {"name": "x", "kind": "magic"}, format="json")
    assert response.status_code == 400
    assert "'llm' or 'code'" in response.json()["error"]["message"]
