"""Helpers of the annotation tests: API clients per member, a finished experiment, a queue."""

from __future__ import annotations

import uuid

from rest_framework.test import APIClient

from assay import services as platform
from experiments.models import Result
from tests.support.factories import make_code_version, make_evalset_version, qa_rows, run_inline

Q = "/api/v1/annotation-queues/"
C = "/api/v1/score-configs/"


def client_of(*, workspace, user) -> APIClient:
    """An API client with a real token of `user` in `workspace`."""
    issued = platform.token_issue(workspace=workspace, user=user, name=f"t-{user.username}")
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {issued.key}")
    return client


def finished_results(*, workspace, user, rows: int = 4) -> tuple[str, list[int]]:
    """A finished experiment of `rows` rows scored by a code evaluator: (its id, result ids)."""
    tag = uuid.uuid4().hex[:6]  # several per workspace
    version = make_evalset_version(
        workspace=workspace, user=user, rows=qa_rows(rows), name=f"QA {tag}"
    )
    code = make_code_version(workspace=workspace, user=user, name=f"Contains {tag}")
    experiment = run_inline(workspace=workspace, user=user, version=version, evaluator_version=code)
    ids = list(
        Result.objects.filter(experiment=experiment)
        .order_by("position")
        .values_list("pk", flat=True)
    )
    return str(experiment.public_id), ids


def queue_with_items(api, *, workspace, user, rows: int = 4, **settings) -> dict:
    """A boolean config, a queue asking for it, and `rows` experiment results as its items."""
    config = api.post(C, {"name": "Correct?", "kind": "boolean"}, format="json").json()
    body = {"name": "Review", "score_configs": [config["id"]], **settings}
    queue = api.post(Q, body, format="json").json()
    experiment, ids = finished_results(workspace=workspace, user=user, rows=rows)
    added = api.post(
        f"{Q}{queue['id']}/items/", {"experiment": experiment, "results": ids}, format="json"
    )
    assert added.status_code == 201, added.content
    return {"queue": queue, "config": config, "experiment": experiment, "results": ids}
