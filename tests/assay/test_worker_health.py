"""Worker faults are seen: workers beat by running tasks, /healthz reports the beats' ages and
the queues' depths ("degraded" with no live worker), a run with no live worker says so on its
page, and the filesystem broker skips a message it cannot read instead of dying on it."""

import logging
from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from assay import services
from assay.models import WorkerBeat
from tests.experiments.conftest import wait_for
from tests.support.factories import make_code_version, make_evalset_version, qa_rows

pytestmark = pytest.mark.django_db(transaction=True)


def health(client) -> dict:
    response = client.get("/healthz?sandbox=0")
    assert response.status_code == 200, response.content
    return response.json()


def test_with_no_worker_beat_healthz_is_degraded(client):
    body = health(client)
    assert body["status"] == "degraded"
    assert body["workers"]["ok"] is False and body["workers"]["last_beat_age_s"] is None
    assert body["workers"]["stale_after_s"] == 90 and body["workers"]["workers"] == []
    assert body["database"]["ok"] and body["broker"]["ok"]


def test_a_stale_beat_is_no_live_worker(client, settings):
    services.worker_beat(hostname="celery@old")
    WorkerBeat.objects.update(beat_at=timezone.now() - timedelta(seconds=300))
    body = health(client)
    assert body["status"] == "degraded" and body["workers"]["ok"] is False
    [old] = body["workers"]["workers"]
    assert old["hostname"] == "celery@old" and old["age_s"] >= 300


def test_a_real_worker_beats_and_healthz_reports_it(client, celery_worker_inproc):
    from assay.tasks import worker_heartbeat

    worker_heartbeat.delay()  # what the beat schedule sends every ASSAY_WORKER_HEARTBEAT_S
    wait_for(lambda: WorkerBeat.objects.exists(), 30, "the worker's heartbeat")
    body = health(client)
    assert body["status"] == "ok" and body["workers"]["ok"] is True
    [beat] = body["workers"]["workers"]
    assert beat["hostname"] in (
        celery_worker_inproc.hostname,
        celery_worker_inproc.hostname.split("@")[-1],
    )
    assert 0 <= beat["age_s"] <= body["workers"]["stale_after_s"]


def test_healthz_reports_each_queues_depth(client):
    from assay.celery import app

    before = health(client)["queues"]
    assert set(before) == {"default", "code", "llm"}
    for _ in range(3):
        app.send_task("assay.tasks.ping", args=["depth"], queue="code")
    after = health(client)["queues"]
    assert after["code"] == before["code"] + 3 and after["llm"] == before["llm"]


def launched_run(api, workspace, user):
    version = make_evalset_version(workspace=workspace, user=user, rows=qa_rows(3))
    contains = make_code_version(workspace=workspace, user=user)
    body = {
        "name": "waiting run",
        "evalset_version": str(version.public_id),
        "bindings": [{"evaluator_version": str(contains.public_id)}],
        "launch": True,
    }
    response = api.post("/api/v1/experiments/", body, format="json")
    assert response.status_code == 202, response.content
    from experiments.models import Experiment

    return Experiment.objects.get(public_id=response.json()["id"])


def test_a_run_launched_with_no_live_worker_says_so_on_its_page(api, web, workspace, user):
    experiment = launched_run(api, workspace, user)
    kwargs = {"ws": "acme", "id": experiment.public_id}
    page = web.get(reverse("experiments:detail", kwargs=kwargs)).content.decode()
    assert 'id="no-worker"' in page and "No worker is running." in page
    polled = web.get(reverse("experiments:progress", kwargs=kwargs) + "?active=1")
    assert 'id="no-worker"' in polled.content.decode()  # the polled progress says it too
    services.worker_beat(hostname="celery@alive")  # a worker comes up
    page = web.get(reverse("experiments:detail", kwargs=kwargs)).content.decode()
    assert 'id="no-worker"' not in page


def test_a_running_run_that_progresses_shows_no_banner(api, web, workspace, user):
    from experiments.models import Experiment

    experiment = launched_run(api, workspace, user)
    now = timezone.now()
    Experiment.objects.filter(pk=experiment.pk).update(
        status="running", started_at=now, heartbeat_at=now
    )
    kwargs = {"ws": "acme", "id": experiment.public_id}
    page = web.get(reverse("experiments:detail", kwargs=kwargs)).content.decode()
    assert 'id="no-worker"' not in page  # its own progress shows a busy worker
    Experiment.objects.filter(pk=experiment.pk).update(heartbeat_at=now - timedelta(seconds=300))
    page = web.get(reverse("experiments:detail", kwargs=kwargs)).content.decode()
    assert 'id="no-worker"' in page


def test_the_filesystem_broker_skips_an_unreadable_message(tmp_path, caplog):
    import kombu

    import assay.celery  # noqa: F401 - registers the transport under `filesystem`

    queue_dir, processed = tmp_path / "queue", tmp_path / "processed"
    queue_dir.mkdir()
    options = {
        "data_folder_in": str(queue_dir),
        "data_folder_out": str(queue_dir),
        "processed_folder": str(processed),
        "store_processed": False,
    }
    # what an unclean stop leaves: a message cut short, and bytes that are no message at all
    # (names that sort before any kombu writes: they are read first)
    (queue_dir / "0_cut.work.msg").write_bytes(b'{"body": "eyJ0YXNrIjog", "prop')
    (queue_dir / "00_junk.work.msg").write_bytes(b"\xff\xfe not json")
    (queue_dir / "000_list.work.msg").write_bytes(b"[1, 2]")
    caplog.set_level(logging.ERROR, logger="assay.broker")
    with kombu.Connection("filesystem://", transport_options=options) as conn:
        queue = conn.SimpleQueue("work")
        queue.put({"task": "after the garbage"})
        message = queue.get(timeout=5)
        assert message.payload == {"task": "after the garbage"}
        message.ack()
        queue.close()
    kept = sorted(p.name for p in (processed / "unreadable").iterdir())
    assert kept == ["000_list.work.msg", "00_junk.work.msg", "0_cut.work.msg"]
    skipped = [r.getMessage() for r in caplog.records if "unreadable message" in r.getMessage()]
    assert len(skipped) == 3 and all("queue work" in line for line in skipped)
