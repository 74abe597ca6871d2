"""Two CI jobs upload the same new rows file at once: one commits the version, the other waits
on the set's lock (or on its name, when the set is new too) and then finds that version by its
hash: one version, never a duplicate or a clash of version numbers. PostgreSQL (row locks)."""

from __future__ import annotations

import threading

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import connection, transaction

from evalsets.importing import evalset_version_from_rows
from evalsets.models import EvalSet, EvalSetVersion
from tests.conftest import require_service
from tests.experiments.conftest import wait_for
from tests.support.postgres import lock_waiters

pytestmark = pytest.mark.django_db(transaction=True)

ROWS = b"input,reference_output\nsay w1,w1\nsay w2,w2\n"


def upload(body: bytes = ROWS) -> SimpleUploadedFile:
    return SimpleUploadedFile("words.csv", body)


@pytest.mark.parametrize("set_exists", [False, True], ids=["new set", "existing set"])
def test_two_uploads_of_the_same_new_rows_at_once_make_one_version(workspace, user, set_exists):
    require_service("PostgreSQL", connection.vendor == "postgresql", "row locks")
    if set_exists:
        evalset_version_from_rows(workspace=workspace, user=user, upload=upload(b"input\nold\n"))
    made, found, errors = [], [], []
    first_done, release = threading.Event(), threading.Event()

    def first() -> None:
        try:
            with transaction.atomic():  # its commit waits until the other upload is waiting
                made.append(
                    evalset_version_from_rows(workspace=workspace, user=user, upload=upload())
                )
                first_done.set()
                release.wait(60)
        except BaseException as exc:
            errors.append(exc)
            first_done.set()
        finally:
            connection.close()

    def second() -> None:
        try:
            found.append(evalset_version_from_rows(workspace=workspace, user=user, upload=upload()))
        except BaseException as exc:
            errors.append(exc)
        finally:
            connection.close()

    one = threading.Thread(target=first)
    one.start()
    assert first_done.wait(60)
    two = threading.Thread(target=second)
    two.start()
    wait_for(lambda: lock_waiters() >= 1, 30, "the second upload waiting on the first")
    release.set()
    one.join(60)
    two.join(60)

    assert errors == []
    [(version, created)], [(again, created_again)] = made, found
    assert created and not created_again and again.pk == version.pk
    assert EvalSet.objects.count() == 1
    assert EvalSetVersion.objects.filter(content_hash=version.content_hash).count() == 1
    assert version.version == ("1.0.1" if set_exists else "1.0.0")
