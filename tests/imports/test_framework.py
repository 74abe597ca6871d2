"""The import framework (`imports.services.import_run`) with a toy importer: all or nothing,
once per content, files checked by name, events announced."""

from __future__ import annotations

import io

import pytest

from evalsets.models import EvalSet
from evalsets.services import evalset_create
from imports.kinds import (
    KINDS,
    REPORT_LINES,
    REPORT_TEXT_BYTES,
    FileSpec,
    ImporterKind,
    ImportProblem,
    register,
)
from imports.models import ImportRun, ImportStatus
from imports.services import import_run, uploads_read
from notifications.models import Event
from notifications.services import endpoint_create


class ToyImporter(ImporterKind):
    """Makes one evalset named by the file's first line; a line 'bad' is a problem after it."""

    name = "toy"
    label = "Toy"
    files = (FileSpec("rows", True, "lines"), FileSpec("extra", False, "anything", max_bytes=8))

    def run(self, *, workspace, user, files, options, report):
        lines = files["rows"].decode().splitlines()
        name = lines[0] + options.get("suffix", "")
        evalset = evalset_create(workspace=workspace, user=user, name=name)
        report.add_created("evalset", evalset.public_id)
        report.mapped("line 1", f"evalset {lines[0]}")
        if "bad" in lines:
            raise ImportProblem(f"rows, line {lines.index('bad') + 1}", "a bad line")
        report.unmapped("line 2", "nothing maps a second line")


@pytest.fixture
def toy():
    register(ToyImporter())
    yield
    KINDS.pop("toy", None)


@pytest.mark.django_db
def test_an_import_runs_once_per_content(toy, workspace, user):
    first, new = import_run(workspace=workspace, user=user, kind="toy", files={"rows": b"A\nB"})
    again, new_again = import_run(
        workspace=workspace, user=user, kind="toy", files={"rows": b"A\nB"}
    )
    assert (new, new_again, again.pk) == (True, False, first.pk)
    assert EvalSet.objects.filter(workspace=workspace, name="A").count() == 1
    assert first.status == ImportStatus.COMPLETED
    assert first.report["lines"] == [
        {"source": "line 1", "became": "evalset A", "problem": ""},
        {"source": "line 2", "became": "", "problem": "nothing maps a second line"},
    ]
    other, new_other = import_run(
        workspace=workspace, user=user, kind="toy", files={"rows": b"A\nB"}, options={"suffix": "2"}
    )
    assert new_other and other.pk != first.pk  # other options are another import


@pytest.mark.django_db
def test_a_problem_keeps_nothing_but_the_failed_record(toy, workspace, user):
    with pytest.raises(ImportProblem, match="rows, line 2: a bad line"):
        import_run(workspace=workspace, user=user, kind="toy", files={"rows": b"A\nbad"})
    assert not EvalSet.objects.filter(workspace=workspace).exists()
    failed = ImportRun.objects.get(workspace=workspace)
    assert (failed.status, failed.error) == (ImportStatus.FAILED, "rows, line 2: a bad line")


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("files", "message"),
    [
        ({}, "rows: this file is required"),
        ({"rows": b"A", "extra": b"123456789"}, "extra: larger than 8 bytes"),
        ({"rows": b"A", "other": b"x"}, "other: not a file this importer takes"),
    ],
)
def test_files_are_checked_by_name_before_anything_runs(toy, workspace, user, files, message):
    with pytest.raises(ImportProblem, match=message):
        import_run(workspace=workspace, user=user, kind="toy", files=files)
    assert not EvalSet.objects.filter(workspace=workspace).exists()


@pytest.mark.django_db
def test_an_unknown_importer_is_named(workspace, user):
    with pytest.raises(ValueError, match="Unknown importer 'nope'"):
        import_run(workspace=workspace, user=user, kind="nope", files={})


@pytest.mark.django_db(transaction=True)
def test_finished_and_failed_imports_are_announced(toy, workspace, user):
    endpoint_create(
        workspace=workspace,
        user=user,
        url="https://hooks.example.com/x",
        events=["import.finished", "import.failed"],
    )
    import_run(workspace=workspace, user=user, kind="toy", files={"rows": b"A"})
    with pytest.raises(ImportProblem):
        import_run(workspace=workspace, user=user, kind="toy", files={"rows": b"B\nbad"})
    assert sorted(Event.objects.values_list("type", flat=True)) == [
        "import.failed",
        "import.finished",
    ]


class NoisyImporter(ImporterKind):
    """Reports one line per row of its file, each as long as the row: a file of many long
    rows (a promptfoo suite of thousands of tests) makes a report that long."""

    name = "noisy"
    label = "Noisy"
    files = (FileSpec("rows", True, "lines"),)

    def run(self, *, workspace, user, files, options, report):
        for i, row in enumerate(files["rows"].decode().splitlines()):
            report.unmapped(f"rows, line {i + 1}: {row}", f"not mapped: {row}")


@pytest.mark.django_db
def test_the_stored_report_is_capped(workspace, user):
    register(NoisyImporter())
    try:
        rows = "\n".join(f"{i}" + "x" * 10_000 for i in range(REPORT_LINES + 500))
        run, _new = import_run(
            workspace=workspace, user=user, kind="noisy", files={"rows": rows.encode()}
        )
    finally:
        KINDS.pop("noisy", None)
    lines = run.report["lines"]
    assert len(lines) == REPORT_LINES + 1
    assert all(len(line["source"]) < 2 * REPORT_TEXT_BYTES for line in lines)
    assert all(len(line["problem"]) < 2 * REPORT_TEXT_BYTES for line in lines)
    assert "truncated" in lines[0]["source"]
    assert "500" in lines[-1]["became"]


@pytest.mark.django_db
def test_an_upload_is_read_only_to_past_its_limit(toy, workspace, user):
    uploads = {"rows": io.BytesIO(b"A\nB"), "extra": io.BytesIO(b"x" * 1_000_000)}
    files = uploads_read(kind="toy", uploads=uploads)
    assert files == {"rows": b"A\nB", "extra": b"x" * 9}  # the spec's 8 bytes and one more
    assert uploads["extra"].tell() == 9
    with pytest.raises(ImportProblem, match="extra: larger than 8 bytes"):
        import_run(workspace=workspace, user=user, kind="toy", files=files)
