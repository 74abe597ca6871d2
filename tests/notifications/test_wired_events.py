"""The apps' events reach webhooks: an experiment's end (completed, failed, cancelled; once
per move, from the experiment kind's settle) and an evalset import's (finished, failed)."""

from __future__ import annotations

import pytest

from assay.vocabulary import EventType
from evalsets.importing import import_create
from experiments import services as experiment_services
from experiments.runs.finish import run_fail
from experiments.scoring.kind import EXPERIMENT
from notifications.models import Event
from notifications.services import endpoint_create
from tests.evalsets.conftest import run_now, upload
from tests.support.factories import make_code_version, make_evalset_version, qa_rows, run_inline

pytestmark = pytest.mark.django_db


@pytest.fixture
def listening(workspace, user):
    endpoint, _ = endpoint_create(
        workspace=workspace,
        user=user,
        url="http://127.0.0.1:9/hook",
        events=[
            EventType.EXPERIMENT_COMPLETED,
            EventType.EXPERIMENT_FAILED,
            EventType.EXPERIMENT_CANCELLED,
            EventType.IMPORT_FINISHED,
            EventType.IMPORT_FAILED,
        ],
    )
    return endpoint


def _events():
    return [(e.type, e.data) for e in Event.objects.order_by("pk")]


def test_a_completed_experiment_is_announced_once(workspace, user, listening):
    version = make_evalset_version(workspace=workspace, user=user, rows=qa_rows(4))
    code = make_code_version(workspace=workspace, user=user)
    experiment = run_inline(
        workspace=workspace, user=user, version=version, evaluator_version=code, name="nightly"
    )
    [(event_type, data)] = _events()
    assert event_type == "experiment.completed"
    assert data["experiment"] == str(experiment.public_id) and data["name"] == "nightly"
    assert (data["results_done"], data["results_total"]) == (4, 4)
    assert data["path"] == f"/w/acme/experiments/{experiment.public_id}/"
    assert listening.deliveries.count() == 1


def test_failed_and_cancelled_experiments_are_announced(workspace, user, listening):
    version = make_evalset_version(workspace=workspace, user=user, rows=qa_rows(2))
    code = make_code_version(workspace=workspace, user=user)
    runs = []
    for name in ("to fail", "to cancel"):
        experiment = experiment_services.experiment_create(
            workspace=workspace,
            user=user,
            name=name,
            evalset_version=version,
            bindings=[{"evaluator_version": code}],
        )
        experiment_services.experiment_launch(experiment=experiment)
        runs.append(experiment)
    run_fail(EXPERIMENT, run_id=runs[0].pk, message="the target is down")
    run_fail(EXPERIMENT, run_id=runs[0].pk, message="again")  # no move, no event
    experiment_services.experiment_cancel(experiment=runs[1])
    (failed, failed_data), (cancelled, cancelled_data) = _events()
    assert (failed, failed_data["name"]) == ("experiment.failed", "to fail")
    assert failed_data["error"] == "the target is down"
    assert (cancelled, cancelled_data["name"]) == ("experiment.cancelled", "to cancel")


def test_an_import_is_announced_when_it_finishes_or_fails(workspace, user, listening):
    from evalsets.services import evalset_create

    evalset = evalset_create(workspace=workspace, user=None, name="Imported")
    good = import_create(evalset=evalset, user=None, upload=upload("a.jsonl", '{"q": "hi"}\n'))
    run_now(good)
    body = '{"q": "x"}\n{not json\n'
    bad = import_create(evalset=evalset, user=None, upload=upload("b.jsonl", body))
    run_now(bad)
    (finished, data), (failed, failed_data) = _events()
    assert finished == "import.finished" and data["rows_imported"] == 1
    assert data["evalset_name"] == "Imported" and data["file_name"] == "a.jsonl"
    assert failed == "import.failed" and failed_data["file_name"] == "b.jsonl"
    assert failed_data["rows_imported"] == 0 and failed_data["message"]
