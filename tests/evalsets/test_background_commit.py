"""A commit above ASSAY_COMMIT_INLINE_ROWS returns at once with the version committing; the
task copies the draft in batches, exactly once, resumably; the draft is locked meanwhile and
experiments cannot pin the version; its progress polls on the versions page and in the API."""

import time

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse

from evalsets import committing, services
from evalsets.importing import import_configure, import_create
from evalsets.models import EvalSetItem, EvalSetVersion, VersionStatus
from evalsets.tasks import resume_commits, run_commit
from experiments import services as experiment_services
from tests.evalsets.conftest import upload
from tests.support.factories import make_code_version, make_evalset_version, qa_rows

pytestmark = pytest.mark.django_db

ROWS = 30


@pytest.fixture(autouse=True)
def small_threshold(settings):
    settings.ASSAY_COMMIT_INLINE_ROWS = 10
    settings.ASSAY_COMMIT_BATCH_ROWS = 7  # 30 rows: five batches, the last one short


@pytest.fixture
def draft(evalset):
    """30 draft rows with gaps in their positions (every fifth deleted), in shuffled order."""
    created = services.items_bulk(
        evalset=evalset, create=[{"data": {"question": f"Q{i}"}} for i in range(ROWS + 8)]
    )["created"]
    services.items_bulk(evalset=evalset, delete=[str(i.item_id) for i in created[::5]])
    return evalset


def draft_order(evalset) -> list:
    rows = EvalSetItem.objects.filter(evalset=evalset, version__isnull=True)
    return list(rows.order_by("position", "id").values_list("item_id", flat=True))


def version_rows(version) -> list[tuple]:
    rows = EvalSetItem.objects.filter(version=version).order_by("position")
    return list(rows.values_list("position", "item_id"))


def commit(evalset, user, version="1.0.0"):
    return services.version_commit(evalset=evalset, user=user, version=version)


def assert_copied_once(version, evalset):
    expected = draft_order(evalset)
    assert version_rows(version) == list(enumerate(expected))  # positions 0…n-1, draft order
    version.refresh_from_db()
    assert version.status == VersionStatus.READY
    assert version.rows_copied == version.item_count == len(expected)


def test_a_large_commit_returns_committing_and_the_task_copies_every_row_once(draft, user):
    expected = draft_order(draft)
    assert len(expected) == ROWS
    version = commit(draft, user)
    assert version.status == VersionStatus.COMMITTING and version.item_count == ROWS
    assert version.rows_copied == 0 and not EvalSetItem.objects.filter(version=version).exists()
    assert run_commit(version.pk) == VersionStatus.READY
    assert_copied_once(version, draft)
    assert version.committed_at is not None


def test_the_batches_number_rows_as_the_single_statement_does(draft, user, settings):
    background = commit(draft, user, "1.0.0")
    run_commit(background.pk)
    settings.ASSAY_COMMIT_INLINE_ROWS = 1000
    inline = commit(draft, user, "1.0.1")
    assert inline.status == VersionStatus.READY and inline.rows_copied == ROWS
    assert version_rows(background) == version_rows(inline)


def test_a_small_commit_stays_synchronous(evalset, user):
    for i in range(10):
        services.item_create(evalset=evalset, data={"question": f"Q{i}"})
    version = commit(evalset, user)
    assert version.status == VersionStatus.READY and len(version_rows(version)) == 10


def test_a_task_run_twice_copies_nothing_more(draft, user):
    version = commit(draft, user)
    run_commit(version.pk)
    assert run_commit(version.pk) == "skipped"
    assert committing.commit_copy_batch(version_id=version.pk) == 0
    assert_copied_once(version, draft)


def test_a_commit_resumes_after_a_crash_between_batches(draft, user):
    version = commit(draft, user)
    assert committing.commit_copy_batch(version_id=version.pk) == 7  # then the worker died
    version.refresh_from_db()
    assert version.rows_copied == 7 and version.status == VersionStatus.COMMITTING
    assert run_commit(version.pk) == VersionStatus.READY
    assert_copied_once(version, draft)


def test_a_second_runner_goes_on_from_the_first_runners_cursor(draft, user):
    version = commit(draft, user)
    assert committing.commit_copy_batch(version_id=version.pk) == 7
    assert committing.commit_copy_batch(version_id=version.pk) == 7
    assert committing.commit_run(version_id=version.pk) == VersionStatus.READY
    assert_copied_once(version, draft)


def test_a_live_claim_is_not_taken_and_a_stale_one_is_resumed_by_the_sweep(draft, user):
    version = commit(draft, user)
    assert committing.commit_claim(version_id=version.pk)
    assert run_commit(version.pk) == "skipped"  # a live runner holds it
    assert resume_commits() == 0
    stale = time.time() - committing.COMMIT_LEASE_S - 5
    from datetime import UTC, datetime

    committing._commit_rows().filter(pk=version.pk).update(
        commit_claimed_at=datetime.fromtimestamp(stale, UTC)
    )
    assert committing.commits_stalled() == [version.pk]
    assert run_commit(version.pk) == VersionStatus.READY
    assert_copied_once(version, draft)


def test_the_draft_is_locked_while_a_version_is_committing(draft, user):
    version = commit(draft, user)
    first = draft_order(draft)[0]
    with pytest.raises(ValidationError) as raised:
        services.item_create(evalset=draft, data={"question": "late"})
    message = raised.value.message_dict["draft"][0]
    assert "1.0.0" in message and "still being committed" in message
    with pytest.raises(ValidationError, match="still being committed"):
        services.item_delete(evalset=draft, item_id=first)
    with pytest.raises(ValidationError, match="still being committed"):
        services.evalset_set_columns(evalset=draft, columns=[{"name": "question"}])
    job = import_create(evalset=draft, user=user, start=False, upload=upload("a.csv", "q\nx\n"))
    with pytest.raises(ValidationError, match="still being committed"):
        import_configure(job=job, mapping={"q": "question"}, enqueue=False)
    with pytest.raises(ValidationError, match="still being committed"):
        commit(draft, user, "1.0.1")
    services.evalset_update(evalset=draft, name="Renamed")  # the set's metadata stays editable
    run_commit(version.pk)
    assert_copied_once(version, draft)
    services.item_create(evalset=draft, data={"question": "after"})  # unlocked when ready


def test_a_commit_waits_for_an_import_under_way(draft, user):
    job = import_create(evalset=draft, user=user, start=False, upload=upload("a.csv", "q\nx\n"))
    import_configure(job=job, mapping={"q": "question"}, enqueue=False)
    with pytest.raises(ValidationError, match="import into the draft is under way"):
        commit(draft, user)


def test_an_experiment_cannot_pin_a_committing_version(workspace, user, settings, api):
    rows = qa_rows(ROWS)
    version = make_evalset_version(workspace=workspace, user=user, rows=rows, inline=False)
    assert version.status == VersionStatus.COMMITTING
    evaluator = make_code_version(workspace=workspace, user=user)
    create = {
        "workspace": workspace,
        "user": user,
        "name": "early",
        "evalset_version": version,
        "bindings": [{"evaluator_version": evaluator}],
    }
    with pytest.raises(ValidationError) as raised:
        experiment_services.experiment_create(**create)
    message = raised.value.message_dict["evalset_version"][0]
    assert "Version 1.0.0 of QA is still being committed (0 of 30 rows copied)" in message
    body = {
        "name": "early",
        "evalset_version": str(version.public_id),
        "bindings": [{"evaluator_version": str(evaluator.public_id)}],
    }
    refused = api.post("/api/v1/experiments/", body, format="json")
    assert refused.status_code == 400, refused.content
    assert "still being committed" in str(refused.json()["error"]["details"]["evalset_version"])
    run_commit(version.pk)
    version = EvalSetVersion.objects.get(pk=version.pk)
    assert experiment_services.experiment_create(**{**create, "evalset_version": version})


def test_the_api_answers_202_with_a_url_to_poll(api, draft):
    url = f"/api/v1/evalsets/{draft.public_id}/versions/"
    response = api.post(url, {"version": "1.0.0"}, format="json")
    assert response.status_code == 202, response.content
    data = response.json()
    assert data["status"] == "committing" and data["rows_copied"] == 0
    assert data["item_count"] == ROWS
    assert data["poll_url"].endswith(f"{url}1.0.0/")
    polled = api.get(data["poll_url"]).json()
    assert polled["status"] == "committing"
    run_commit(EvalSetVersion.objects.get(public_id=data["id"]).pk)
    polled = api.get(data["poll_url"]).json()
    assert polled["status"] == "ready" and polled["rows_copied"] == ROWS
    again = api.post(url, {"version": "1.0.1"}, format="json")
    assert again.status_code == 202  # accepted again once the first commit has finished


def test_the_api_refuses_draft_edits_while_committing(api, draft):
    api.post(f"/api/v1/evalsets/{draft.public_id}/versions/", {"version": "1.0.0"}, format="json")
    response = api.post(
        f"/api/v1/evalsets/{draft.public_id}/items/",
        {"data": {"question": "late"}},
        format="json",
    )
    assert response.status_code == 400, response.content
    assert "still being committed" in response.content.decode()


def versions_url(evalset, slug="acme"):
    return reverse("evalsets:versions", kwargs={"ws": slug, "id": evalset.public_id})


def progress_url(version, slug="acme"):
    kwargs = {"ws": slug, "id": version.evalset.public_id, "version_id": version.public_id}
    return reverse("evalsets:commit_progress", kwargs=kwargs)


def test_the_versions_page_shows_a_progress_panel_that_polls(web, draft):
    response = web.post(
        reverse("evalsets:commit", kwargs={"ws": "acme", "id": draft.public_id}),
        {"version": "1.0.0", "note": ""},
        follow=True,
    )
    assert response.status_code == 200
    page = response.content.decode()
    version = EvalSetVersion.objects.get(evalset=draft)
    assert "copied in the background" in page
    assert "committing … 0 of 30 rows" in page
    assert f'hx-get="{progress_url(version)}"' in page
    committing.commit_copy_batch(version_id=version.pk)
    partial = web.get(progress_url(version)).content.decode()
    assert "7 of 30 rows copied" in partial and "hx-get" in partial
    run_commit(version.pk)
    partial = web.get(progress_url(version)).content.decode()
    assert 'data-status="ready"' in partial and "hx-get" not in partial
    page = web.get(versions_url(draft)).content.decode()
    assert "commit-progress" not in page and "committing …" not in page


def test_a_row_delete_on_a_locked_draft_says_why(web, draft):
    commit(draft, None)
    item_id = draft_order(draft)[0]
    url = reverse(
        "evalsets:row_delete", kwargs={"ws": "acme", "id": draft.public_id, "item_id": item_id}
    )
    page = web.post(url, follow=True).content.decode()
    assert "still being committed" in page
    assert EvalSetItem.objects.filter(item_id=item_id, version__isnull=True).exists()


def test_outsiders_get_404_for_the_progress_page_and_the_version(
    client, outsider, outsider_api, draft, user
):
    version = commit(draft, user)
    client.force_login(outsider)
    assert client.get(progress_url(version)).status_code == 404  # Acme's URL
    assert client.get(progress_url(version, slug="other")).status_code == 404  # own workspace
    assert client.get(versions_url(draft, slug="other")).status_code == 404
    poll = f"/api/v1/evalsets/{draft.public_id}/versions/1.0.0/"
    assert outsider_api.get(poll).status_code == 404
    assert (
        outsider_api.post(
            f"/api/v1/evalsets/{draft.public_id}/versions/", {"version": "2.0.0"}, format="json"
        ).status_code
        == 404
    )
    version.refresh_from_db()
    assert version.status == VersionStatus.COMMITTING and version.rows_copied == 0


def test_another_sets_version_id_is_404_under_this_set(web, draft, workspace, user):
    other = make_evalset_version(workspace=workspace, user=user, rows=qa_rows(3), name="Other")
    kwargs = {"ws": "acme", "id": draft.public_id, "version_id": other.public_id}
    assert web.get(reverse("evalsets:commit_progress", kwargs=kwargs)).status_code == 404


@pytest.mark.integration
def test_a_background_commit_runs_through_a_real_worker(celery_worker_inproc, draft, user):
    version = commit(draft, user)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        version.refresh_from_db()
        if version.status == VersionStatus.READY:
            break
        time.sleep(0.2)
    assert_copied_once(version, draft)
