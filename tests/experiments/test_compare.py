"""Comparing finished experiments: pairing by item, evaluators by evaluator, the API, exports."""

import json
import uuid

import pytest

from evalsets import services as evalset_services
from evalsets.models import EvalSetItem
from evaluators import services as evaluator_services
from experiments.results.compare import compare_experiments, diff_rows, marked_diff
from tests.support.factories import (
    make_code_version,
    make_evalset_version,
    qa_rows,
    run_inline,
    text,
)

pytestmark = pytest.mark.django_db

STRICT = """def exec_evaluation(turn):
    output = turn["evaluate_target_output_fields"]["actual_output"]["text"]
    reference = turn["evaluate_dataset_fields"]["reference_output"]["text"]
    question = turn["evaluate_dataset_fields"]["input"]["text"]
    if "7" in question:
        return EvalOutput(score=None, reason="rows with a 7 are undecidable here")
    ok = output.endswith(reference) and not question.startswith("question 1")
    return EvalOutput(score=1.0 if ok else 0.0, reason="strict: " + output)
"""


def run(workspace, user, version, ev, name):
    return run_inline(
        workspace=workspace, user=user, version=version, evaluator_version=ev, name=name
    )


@pytest.fixture
def pair(workspace, user):
    """Baseline on v1.0.0 with `contains`; candidate on v1.1.0 (5 rows gone, 3 new) with
    the evaluator's stricter 1.1.0."""
    v1 = make_evalset_version(workspace=workspace, user=user, rows=qa_rows(40))
    evalset = v1.evalset
    EvalSetItem.objects.filter(evalset=evalset, version__isnull=True, position__lt=5).delete()
    EvalSetItem.objects.bulk_create(
        [
            EvalSetItem(
                evalset=evalset,
                item_id=uuid.uuid4(),
                position=100 + i,
                data={
                    "input": text(f"new {i}"),
                    "actual_output": text("Paris"),
                    "reference_output": text("Paris"),
                },
                tags=["new"],
            )
            for i in range(3)
        ]
    )
    v2 = evalset_services.version_commit(evalset=evalset, user=user, version="1.1.0")
    contains = make_code_version(workspace=workspace, user=user)
    evaluator = contains.evaluator
    variables = evaluator.draft_config["input_variables"] + [
        {"name": "input", "content_type": "Text", "required": True, "description": ""}
    ]
    config = {**evaluator.draft_config, "source": STRICT, "input_variables": variables}
    evaluator_services.evaluator_update_draft(evaluator=evaluator, user=user, config=config)
    strict = evaluator_services.evaluator_submit_version(
        evaluator=evaluator, user=user, version="1.1.0"
    )
    baseline = run(workspace, user, v1, contains, "baseline")
    candidate = run(workspace, user, v2, strict, "candidate")
    return baseline, candidate


def test_pairing_counts_missing_rows_and_keeps_unknown_flips_apart(pair, workspace):
    baseline, candidate = pair
    [result] = compare_experiments(workspace=workspace, baseline=baseline, candidates=[candidate])
    [ev] = result.evaluators
    s = ev.stats
    assert ev.versions_differ and (ev.baseline_version, ev.candidate_version) == ("1.0.0", "1.1.0")
    assert len(s["only_in_baseline"]) == 5 and len(s["only_in_candidate"]) == 3
    assert s["n_paired"] == 35
    # questions 10–19 pass under `contains`, fail under the strict rule → regressions
    assert len(s["regressions"]) > 0 and len(s["improvements"]) == 0
    # rows whose input has a 7 turn unknown: counted as flips, never as regressions
    assert len(s["to_unknown"]) > 0
    assert not set(s["to_unknown"]) & set(s["regressions"])
    assert s["plain_words"] in {"worse", f"no detectable difference at n = {s['n_decided']}"}
    ids = diff_rows(baseline=baseline, candidate=candidate, comparison=ev)
    assert ids[: len(s["regressions"])] == s["regressions"]  # regressions first
    assert set(
        diff_rows(baseline=baseline, candidate=candidate, comparison=ev, flt="unknown")
    ) == set(s["to_unknown"] + s["from_unknown"])
    assert (
        diff_rows(
            baseline=baseline, candidate=candidate, comparison=ev, flt="regressions", tag="odd"
        )
        == []
    )  # odd rows fail on both sides


def test_other_evalsets_cannot_be_compared(pair, workspace, user):
    baseline, _ = pair
    other = make_evalset_version(workspace=workspace, user=user, rows=qa_rows(5), name="Other")
    elsewhere = run(workspace, user, other, baseline.bindings.get().evaluator_version, "x")
    from django.core.exceptions import ValidationError

    with pytest.raises(ValidationError, match="another evalset"):
        compare_experiments(workspace=workspace, baseline=baseline, candidates=[elsewhere])


def test_api_and_exports(pair, api, web):
    baseline, candidate = pair
    query = f"baseline={baseline.public_id}&candidates={candidate.public_id}"
    body = api.get(f"/api/v1/compare?{query}&filter=regressions&page_size=5").json()
    ev = body["candidates"][0]["evaluators"][0]
    assert ev["versions_differ"] is True
    assert body["diff"]["count"] == len(ev["stats"]["regressions"])
    assert all(r["kind"] == "regression" for r in body["diff"]["results"])
    assert len(body["diff"]["results"]) == min(5, body["diff"]["count"])
    csv_text = web.get(f"/w/acme/compare/export/?{query}&format=csv").content.decode()
    assert csv_text.splitlines()[0].startswith("candidate,evaluator,baseline_version")
    assert "candidate,Contains,1.0.0,1.1.0,35" in csv_text
    exported = json.loads(web.get(f"/w/acme/compare/export/?{query}&format=json").content)
    assert exported["baseline"]["name"] == "baseline"
    page = web.get(f"/w/acme/compare/?{query}&filter=regressions")
    assert page.status_code == 200 and b"regression" in page.content


def test_bad_requests(pair, api):
    baseline, _ = pair
    assert api.get("/api/v1/compare").status_code == 400
    response = api.get(
        f"/api/v1/compare?baseline={baseline.public_id}&candidates={baseline.public_id}"
    )
    assert response.status_code == 400 and "baseline" in response.json()["error"]["message"]
    assert (
        api.get(f"/api/v1/compare?baseline={baseline.public_id}&candidates=nope").status_code == 404
    )


def test_outsider_gets_404(pair, outsider_api, client, outsider):
    baseline, candidate = pair
    query = f"baseline={baseline.public_id}&candidates={candidate.public_id}"
    assert outsider_api.get(f"/api/v1/compare?{query}").status_code == 404
    client.force_login(outsider)
    assert client.get(f"/w/acme/compare/?{query}").status_code == 404
    assert client.get(f"/w/other/compare/?{query}").status_code == 404
    assert client.get(f"/w/other/compare/export/?{query}").status_code == 404


def test_marked_diff_escapes_everything_it_does_not_mark():
    old, new = marked_diff("say <script>alert(1)</script> hi", "say <b>bold</b> hi")
    assert "<script>" not in old and "&lt;script&gt;" in old and "<del>" in old
    assert "<b>" not in new and "&lt;b&gt;bold&lt;/b&gt;" in new and "<ins>" in new


def test_compare_is_reachable_from_the_experiment_pages(pair, web, user):
    baseline, candidate = pair
    from experiments.models import Experiment

    Experiment.objects.filter(pk=candidate.pk).update(cloned_from=baseline)
    listing = web.get("/w/acme/experiments/").content.decode()
    assert 'id="compare-link"' in listing
    page = web.get(f"/w/acme/experiments/{candidate.public_id}/").content.decode()
    assert f"compare/?baseline={baseline.public_id}&amp;candidates={candidate.public_id}" in page


def test_bad_page_size_is_400(pair, api):
    baseline, candidate = pair
    query = f"baseline={baseline.public_id}&candidates={candidate.public_id}"
    response = api.get(f"/api/v1/compare?{query}&page_size=lots")
    assert response.status_code == 400 and "page_size" in response.json()["error"]["details"]


def test_the_picker_offers_only_runs_on_the_baselines_evalset(pair, web, workspace, user):
    baseline, candidate = pair
    other = make_evalset_version(workspace=workspace, user=user, rows=qa_rows(5), name="Other")
    elsewhere = run(workspace, user, other, baseline.bindings.get().evaluator_version, "x")
    everything = web.get("/w/acme/compare/").content.decode()
    assert f'data-candidate="{elsewhere.public_id}"' in everything  # no baseline yet: all runs
    page = web.get(f"/w/acme/compare/?baseline={baseline.public_id}").content.decode()
    assert f'data-candidate="{elsewhere.public_id}"' not in page
    assert f'data-candidate="{baseline.public_id}"' not in page  # not against itself
    offered = page.split(f'data-candidate="{candidate.public_id}"')[1].split("</label>")[0]
    assert "other version" in offered  # the candidate ran on 1.1.0, the baseline on 1.0.0


def test_the_page_opens_on_the_evaluator_with_the_most_regressions(pair, workspace):
    from experiments.results.compare import comparison_context

    baseline, candidate = pair
    params = {
        "baseline": str(baseline.public_id),
        "candidates": [str(candidate.public_id)],
        "candidate": "",
        "evaluator": "",
        "filter": "all",
        "tag": "",
        "page": 1,
    }
    context = comparison_context(workspace=workspace, params=params)
    evaluators = context["focus_candidate"].evaluators
    worst = max(evaluators, key=lambda e: e.stats["counts"]["regressions"])
    assert context["focus"] is worst and worst.stats["counts"]["regressions"] > 0
