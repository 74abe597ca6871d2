import json
import pytest
from evalsets import services, selectors
from evalsets.importing import import_create, import_claim, import_run
from tests.evalsets.conftest import upload

pytestmark = pytest.mark.django_db

def test_smoke(evalset, user, stored_image):
    lines = "\n".join(json.dumps({"question": f"q{i}", "answer": "a", "tags": ["x", "y"] if i % 2 else ["z"]}) for i in range(12000))
    job = import_create(evalset=evalset, user=user, upload=upload("f.jsonl", lines))
    assert job.status == "queued", job.status
    job = import_claim(import_id=job.pk)
    job = import_run(job=job)
    print(job.status, job.message, job.rows_done, job.rows_total, job.errors[:3])
    assert job.status == "completed"
    assert selectors.items_list(evalset=evalset).count() == 12000
    assert selectors.items_list(evalset=evalset, tag="z").count() == 6000
    assert selectors.items_list(evalset=evalset, search="q1199").count() == 11
    services.item_create(evalset=evalset, data={"question": "hé 北京", "image": stored_image}, tags=["img"])
    assert selectors.items_list(evalset=evalset, search="北京").count() == 1
    v = services.version_commit(evalset=evalset, user=user, version="1.0.0")
    assert v.item_count == 12001
    assert selectors.items_list(evalset=evalset, version=v).count() == 12001
    rows = selectors.evalset_rows_for_debug(workspace=evalset.workspace, evalset_version_or_draft=v)
    print(rows[:1])
