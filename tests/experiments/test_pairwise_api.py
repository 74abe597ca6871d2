"""The pairwise API: create (launched at once), list, get, the pairs with their filters, one
pair, the statistics with the leaderboard, cancel, retry, exports, and bad bodies refused with
the field named and nothing saved; the schema documents it under "experiments"."""

import csv
import io

import pytest

from experiments.models import PairwiseResult, PairwiseRun
from experiments.pairwise import work as pairwise_work
from experiments.stats.pairwise import bradley_terry

pytestmark = pytest.mark.django_db
R = "/api/v1/pairwise-runs/"


def create(api, chosen, judge, **body):
    payload = {
        "name": "api run",
        "experiments": [str(e.public_id) for e in chosen],
        "evaluator_version": str(judge.public_id),
        "chunk_size": 10,
        **body,
    }
    return api.post(R, payload, format="json")


def test_create_run_and_read_it_back(api, pw_apps, pw_judge):
    x, y, z = pw_apps("X", "Y", "Z")
    response = create(api, [x, y, z], pw_judge)
    assert response.status_code == 202, response.content[:400]
    body = response.json()
    assert body["status"] == "queued" and [e["id"] for e in body["experiments"]] == [
        str(e.public_id) for e in (x, y, z)
    ]
    assert body["progress"]["results_total"] == 36 and body["evaluator_version"] == "1.0.0"
    run = PairwiseRun.objects.get(public_id=body["id"])
    pairwise_work.pairwise_run_inline(run_id=run.pk)
    got = api.get(f"{R}{run.public_id}/").json()
    assert got["status"] == "completed" and got["summary"]["leaderboard"]["models"]
    listed = api.get(R).json()
    assert listed["count"] == 1 and "summary" not in listed["results"][0]
    summary = api.get(f"{R}{run.public_id}/summary/").json()["summary"]
    matches = [
        (str(r.experiment_a.public_id), str(r.experiment_b.public_id), r.outcome, str(r.item_uid))
        for r in PairwiseResult.objects.filter(run=run).select_related(
            "experiment_a", "experiment_b"
        )
    ]
    names = [str(e.public_id) for e in (x, y, z)]
    assert summary["leaderboard"] == bradley_terry(matches, names=names, seed=0).to_dict()


def test_pairs_are_listed_with_filters_and_one_pair_in_full(api, pw_finished):
    run = pw_finished("X", "Y")
    pairs = api.get(f"{R}{run.public_id}/results/").json()
    assert pairs["count"] == 12
    first = pairs["results"][0]
    assert set(first) >= {"outcome", "answer_ab", "answer_ba", "reason_ab", "reason_ba"}
    assert "raw_ab" not in first
    wins = api.get(f"{R}{run.public_id}/results/", {"outcome": "B"}).json()
    assert wins["count"] == 3 and {p["outcome"] for p in wins["results"]} == {"B"}
    flagged = api.get(f"{R}{run.public_id}/results/", {"inconsistent": "true"}).json()
    assert flagged["count"] == 9
    a, b = (
        str(e.public_id)
        for e in (run.entries.get(position=0).experiment, run.entries.get(position=1).experiment)
    )
    assert api.get(f"{R}{run.public_id}/results/", {"pair": f"{a}:{b}"}).json()["count"] == 12
    bad = api.get(f"{R}{run.public_id}/results/", {"outcome": "C", "pair": "x:y"})
    assert bad.status_code == 400 and set(bad.json()["error"]["details"]) == {"outcome", "pair"}
    one = api.get(f"{R}{run.public_id}/results/{first['id']}/").json()
    assert one["request_ab"]["messages"] and one["raw_ba"] and one["input"]
    other = PairwiseResult.objects.exclude(run=run).first()
    assert other is None or api.get(f"{R}{run.public_id}/results/{other.pk}/").status_code == 404


def test_cancel_retry_and_exports(api, pw_finished):
    run = pw_finished("X", "Y")
    assert api.post(f"{R}{run.public_id}/cancel/").status_code == 400
    retried = api.post(f"{R}{run.public_id}/retry-failed/")
    assert retried.status_code == 400
    assert retried.json()["error"]["details"] == {"status": ["There are no failed pairs to retry."]}
    csv_text = b"".join(api.get(f"{R}{run.public_id}/export/?format=csv").streaming_content)
    rows = list(csv.DictReader(io.StringIO(csv_text.decode())))
    assert len(rows) == 12 and rows[0]["experiment_a_name"] == "app X"
    jsonl = api.get(f"{R}{run.public_id}/export/", {"format": "jsonl"})
    assert len(b"".join(jsonl.streaming_content).splitlines()) == 12
    assert api.get(f"{R}{run.public_id}/export/", {"format": "xml"}).status_code == 400


def test_a_queued_run_is_cancelled_through_the_api(api, pw_apps, pw_judge):
    x, y = pw_apps("X", "Y")
    run = create(api, [x, y], pw_judge).json()
    cancelled = api.post(f"{R}{run['id']}/cancel/")
    assert cancelled.status_code == 202 and cancelled.json()["status"] == "cancelled"


def test_bad_bodies_name_their_fields_and_save_nothing(api, pw_apps, pw_judge):
    x, y = pw_apps("X", "Y")
    one = create(api, [x], pw_judge)
    assert one.status_code == 400
    assert one.json()["error"]["details"] == {
        "experiments": ["Choose at least two experiments to judge against each other."]
    }
    missing = create(api, [x, y], pw_judge, experiments=[str(x.public_id), "not-an-id"])
    assert missing.json()["error"]["details"] == {
        "experiments[1]": ["No such experiment in this workspace."]
    }
    typo = create(api, [x, y], pw_judge, repetition=2)
    assert typo.status_code == 400 and "repetition" in typo.json()["error"]["details"]
    judge = create(api, [x, y], pw_judge, evaluator_version="nobody@1.0.0")
    assert judge.json()["error"]["details"] == {
        "evaluator_version": ["No such evaluator version in this workspace."]
    }
    numbers = create(api, [x, y], pw_judge, repetitions=0, chunk_size=1, mapping={"nope": "x"})
    assert set(numbers.json()["error"]["details"]) == {"repetitions", "chunk_size", "mapping"}
    assert PairwiseRun.objects.count() == 0


def test_the_schema_documents_every_operation_under_experiments(client):
    schema = client.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json").json()
    operations = {
        (method, path): op
        for path, ops in schema["paths"].items()
        if path.startswith(R)
        for method, op in ops.items()
    }
    assert len(operations) == 9
    for op in operations.values():
        assert op["tags"] == ["experiments"] and op["summary"] and len(op["description"]) > 40
