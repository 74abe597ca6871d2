"""Committing a version: the draft's rows copied into it, at once or as a background job.

A commit of up to `ASSAY_COMMIT_INLINE_ROWS` rows copies them with one INSERT … SELECT inside
the request. A larger one creates the version `committing` and queues `evalsets.tasks.run_commit`,
which copies the draft in batches of `ASSAY_COMMIT_BATCH_ROWS` rows in draft order, each batch
one INSERT … SELECT numbered on from the rows already copied (ROW_NUMBER() + offset), so the
version's positions are 0…n-1 exactly as the single statement numbers them.

Exactly once: a batch locks the version row, reads its cursor (the draft key of the last row
copied) and its count, inserts the rows after the cursor and moves the cursor in the same
transaction. A crash rolls the batch back whole; a second runner waits for the lock and goes on
from the cursor the first one left. While a version is committing the draft is locked
(`draft_edit_check`): the batches read it in many transactions, and an edit between two of them
would skip or repeat rows.

Every change of a version's commit fields happens here (`_commit_rows`).
"""

from __future__ import annotations

import logging
from datetime import timedelta

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import connection, models, transaction
from django.db.models import F
from django.utils import timezone
from django.utils.translation import gettext as _

from .models import EvalSet, EvalSetImport, EvalSetItem, EvalSetVersion, ImportStatus, VersionStatus

logger = logging.getLogger(__name__)

# A runner renews its claim with every batch; one silent for this long has died.
COMMIT_LEASE_S = 120

_ITEMS = EvalSetItem._meta.db_table
_JOBS = EvalSetImport._meta.db_table
_DRAFT = (
    f" FROM {_ITEMS} i LEFT JOIN {_JOBS} j ON j.id = i.import_job_id"
    " WHERE i.evalset_id = %s AND i.version_id IS NULL"
    " AND (i.import_job_id IS NULL OR j.status = 'completed')"
)
_AFTER = " AND (i.position > %s OR (i.position = %s AND i.id > %s))"
_THROUGH = " AND (i.position < %s OR (i.position = %s AND i.id <= %s))"


def inline_rows() -> int:
    """Commits of more rows than this run in the background."""
    return int(getattr(settings, "ASSAY_COMMIT_INLINE_ROWS", 20_000))


def batch_rows() -> int:
    return max(1, int(getattr(settings, "ASSAY_COMMIT_BATCH_ROWS", 50_000)))


def _commit_rows():
    """The versions' commit fields, past the immutable manager: the one place that moves them."""
    return models.QuerySet(model=EvalSetVersion)


# ----------------------------------------------------------------------------- the draft lock


def draft_edit_check(*, evalset: EvalSet) -> None:
    """Refuse a change to the draft while a version is being copied from it.

    Takes the set's row lock first (call it inside the writing transaction), so a commit that
    starts meanwhile waits for this change, and this change sees a commit that started first.
    """
    EvalSet.objects.select_for_update().filter(pk=evalset.pk).values_list("pk").first()
    committing = EvalSetVersion.objects.filter(
        evalset_id=evalset.pk, status=VersionStatus.COMMITTING
    ).first()
    if committing is not None:
        raise ValidationError({"draft": committing_message(committing)})


def committing_message(version: EvalSetVersion) -> str:
    return _(
        "Version %(v)s is still being committed (%(done)s of %(total)s rows copied); the draft "
        "can be changed again when the commit has finished."
    ) % {"v": version.version, "done": version.rows_copied, "total": version.item_count}


def commit_quiet_check(*, evalset: EvalSet) -> None:
    """A commit needs a draft nobody is changing: no commit nor import under way."""
    draft_edit_check(evalset=evalset)
    busy = EvalSetImport.objects.filter(
        evalset_id=evalset.pk, status__in=[ImportStatus.QUEUED, ImportStatus.RUNNING]
    ).exists()
    if busy:
        raise ValidationError(
            {"version": _("An import into the draft is under way; commit when it has finished.")}
        )


# ----------------------------------------------------------------------------- copying


def draft_copy_all(*, evalset: EvalSet, version: EvalSetVersion) -> int:
    """One INSERT … SELECT: every visible draft row becomes the version's, numbered 0…n-1."""
    return _copy(evalset.pk, version.pk, start=0, after=None, through=None)


def _copy(evalset_id: int, version_id: int, *, start: int, after, through) -> int:
    """Copy the draft rows after `after` up to `through` (draft keys (position, id); None: no
    bound), numbering them from `start` in draft order."""
    sql = (
        f"INSERT INTO {_ITEMS} (evalset_id, version_id, import_job_id, item_id, position, data,"
        " tags, human_verdict, label, search_text, source)"
        " SELECT i.evalset_id, %s, NULL, i.item_id,"
        " %s + ROW_NUMBER() OVER (ORDER BY i.position, i.id) - 1, i.data, i.tags,"
        " i.human_verdict, i.label, i.search_text, i.source" + _DRAFT
    )
    params = [version_id, start, evalset_id]
    sql, params = _bounded(sql, params, after, through)
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.rowcount


def _bounded(sql: str, params: list, after, through) -> tuple[str, list]:
    if after is not None:
        sql, params = sql + _AFTER, [*params, after[0], after[0], after[1]]
    if through is not None:
        sql, params = sql + _THROUGH, [*params, through[0], through[0], through[1]]
    return sql, params


def _batch_end(evalset_id: int, after, size: int):
    """The draft key of the last row of the next batch of `size` rows after `after`, or None."""
    inner, params = _bounded("SELECT i.position, i.id" + _DRAFT, [evalset_id], after, None)
    sql = (
        f"SELECT b.position, b.id FROM ({inner} ORDER BY i.position, i.id LIMIT %s) b"
        " ORDER BY b.position DESC, b.id DESC LIMIT 1"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, [*params, size])
        return cursor.fetchone()


def commit_copy_batch(*, version_id: int) -> int:
    """Copy the next batch of a committing version's rows; the number copied (0: none left).

    One transaction under the version's row lock: the rows, the cursor and the count move
    together or not at all, so a batch is never copied twice nor half.
    """
    with transaction.atomic():
        version = EvalSetVersion.objects.select_for_update().get(pk=version_id)
        if version.status != VersionStatus.COMMITTING:
            return 0
        after = _cursor(version)
        end = _batch_end(version.evalset_id, after, batch_rows())
        if end is None:
            return 0
        copied = _copy(
            version.evalset_id, version.pk, start=version.rows_copied, after=after, through=end
        )
        _commit_rows().filter(pk=version.pk).update(
            rows_copied=F("rows_copied") + copied,
            copy_position=end[0],
            copy_row=end[1],
        )
    return copied


def _cursor(version: EvalSetVersion):
    return None if version.copy_position is None else (version.copy_position, version.copy_row)


# ----------------------------------------------------------------------------- the job


def commit_enqueue(*, version: EvalSetVersion) -> None:
    """Queue the background copy once the transaction that created the version commits."""
    transaction.on_commit(lambda: _send(version.pk))


def _send(version_id: int) -> None:
    from .tasks import run_commit

    run_commit.apply_async(args=[version_id], queue="default")


def commit_claim(*, version_id: int) -> bool:
    """Take a committing version's copy; False when a live runner has it or it is done.

    A runner renews its claim with every batch, so a claim older than the lease lost its
    worker and is taken over (the batches make a second runner harmless anyway).
    """
    now = timezone.now()
    stale = now - timedelta(seconds=COMMIT_LEASE_S)
    claimable = models.Q(commit_claimed_at__isnull=True) | models.Q(commit_claimed_at__lt=stale)
    return bool(
        _commit_rows()
        .filter(claimable, pk=version_id, status=VersionStatus.COMMITTING)
        .update(commit_claimed_at=now)
    )


def commit_run(*, version_id: int) -> str:
    """Copy every remaining batch, then mark the version ready; the version's status."""
    while commit_copy_batch(version_id=version_id):
        _commit_rows().filter(pk=version_id).update(commit_claimed_at=timezone.now())
    return commit_finish(version_id=version_id)


def commit_finish(*, version_id: int) -> str:
    """committing → ready, once every counted row is there (never pin a short version)."""
    with transaction.atomic():
        version = EvalSetVersion.objects.select_for_update().get(pk=version_id)
        if version.status != VersionStatus.COMMITTING:
            return version.status
        if version.rows_copied != version.item_count:
            raise RuntimeError(
                f"version {version_id}: copied {version.rows_copied}, counted {version.item_count}"
            )
        _commit_rows().filter(pk=version_id, status=VersionStatus.COMMITTING).update(
            status=VersionStatus.READY, committed_at=timezone.now(), commit_claimed_at=None
        )
    return VersionStatus.READY


def commits_stalled() -> list[int]:
    """Committing versions nobody is copying (never claimed, or the claim's lease ran out)."""
    stale = timezone.now() - timedelta(seconds=COMMIT_LEASE_S)
    unclaimed = models.Q(commit_claimed_at__isnull=True) | models.Q(commit_claimed_at__lt=stale)
    waiting = EvalSetVersion.objects.filter(unclaimed, status=VersionStatus.COMMITTING)
    return list(waiting.values_list("pk", flat=True))


def pin_problem(version: EvalSetVersion) -> str | None:
    """Why an experiment may not pin this version yet (None: it may)."""
    if version.status == VersionStatus.READY:
        return None
    return _(
        "Version %(v)s of %(set)s is still being committed (%(done)s of %(total)s rows copied); "
        "an experiment can use it when the commit has finished."
    ) % {
        "v": version.version,
        "set": version.evalset.name,
        "done": version.rows_copied,
        "total": version.item_count,
    }
