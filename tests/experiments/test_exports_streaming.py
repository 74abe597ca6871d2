"""Exports stream: the first line leaves before the rows are all read, the queries stay a
handful whatever the run's size (one cursor reads the results with their turns' parts), the
reader thread stops with the stream, and the content is what the rows say."""

import csv
import io
import json
import threading

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from assay.safety.csvcells import csv_safe
from experiments import scoring as engine
from experiments import services
from experiments.models import Result
from experiments.results import exports, streaming
from tests.support.factories import make_code_version, make_evalset_version, qa_rows

pytestmark = pytest.mark.django_db


@pytest.fixture
def finished(workspace, user):
    version = make_evalset_version(workspace=workspace, user=user, rows=qa_rows(1200))
    evaluator = make_code_version(workspace=workspace, user=user)
    experiment = services.experiment_create(
        workspace=workspace,
        user=user,
        name="big",
        evalset_version=version,
        bindings=[{"evaluator_version": evaluator}],
        chunk_size=1000,
    )
    services.experiment_launch(experiment=experiment)
    return engine.experiment_run_inline(experiment_id=experiment.pk)


@pytest.fixture
def rows_read(monkeypatch):
    """Counts the results the export has taken from its cursor so far."""
    real, taken = exports._results, []

    def counting(experiment):
        for values in real(experiment):
            taken.append(values)
            yield values

    monkeypatch.setattr(exports, "_results", counting)
    return taken


@pytest.mark.parametrize("fmt", ["csv", "jsonl"])
def test_the_first_rows_leave_before_the_rest_is_read(finished, fmt, rows_read):
    with CaptureQueriesContext(connection) as queries:
        stream = exports.export_stream(finished, fmt)
        first = next(stream)
        if fmt == "csv":  # the header goes alone, then the first chunk of rows
            first += next(stream)
        assert len(rows_read) <= exports.ROWS_PER_CHUNK + 1  # not the 1,200 rows
        rest = list(stream)
    assert first.count("\n") >= exports.ROWS_PER_CHUNK
    assert len(rows_read) == 1200 and len(rest) >= 2
    selects = [
        q for q in queries.captured_queries if q["sql"].lstrip().upper().startswith("SELECT")
    ]
    # the bindings once and one cursor over the results, their items' data and the target's
    # outputs: no query per chunk of rows, none per row
    assert len(selects) <= 2, [q["sql"][:80] for q in selects]


def test_the_stream_is_a_generator_that_reads_lazily(finished):
    with CaptureQueriesContext(connection) as queries:
        stream = exports.export_stream(finished, "jsonl")
        assert len(queries.captured_queries) == 0  # nothing is read until asked
        next(stream)
        assert len(queries.captured_queries) <= 3  # the bindings and the cursor's first read


@pytest.mark.parametrize("fmt", ["csv", "jsonl", "report", "hitlog"])
def test_the_query_count_does_not_grow_with_the_rows(finished, fmt):
    with CaptureQueriesContext(connection) as queries:
        body = "".join(exports.export_stream(finished, fmt))
    assert body
    # a fixed number of statements (the cursor is one statement however many rows it reads)
    assert len(queries.captured_queries) <= 12, [q["sql"][:80] for q in queries.captured_queries]


def test_the_content_is_every_row_once_in_order(finished):
    lines = "".join(exports.export_stream(finished, "jsonl")).splitlines()
    rows = [json.loads(line) for line in lines]
    assert [r["position"] for r in rows] == list(range(1200))
    assert rows[0]["evaluator"] == "Contains" and rows[0]["verdict"] == "pass"
    assert rows[1]["verdict"] == "fail" and rows[0]["input"]
    table = list(csv.DictReader(io.StringIO("".join(exports.export_stream(finished, "csv")))))
    assert len(table) == 1200 and list(table[0]) == exports.CSV_FIELDS
    assert [r["item_id"] for r in table] == [r["item_id"] for r in rows]
    assert json.loads(table[5]["input"]) == rows[5]["input"]


def test_the_hitlog_lists_only_the_failing_rows(finished):
    hits = [json.loads(x) for x in "".join(exports.export_stream(finished, "hitlog")).splitlines()]
    assert len(hits) == 600  # odd rows fail
    assert all(h["attempt_seq"] % 2 == 1 for h in hits)
    assert [h["attempt_seq"] for h in hits] == sorted(h["attempt_seq"] for h in hits)


@pytest.mark.parametrize("fmt", ["csv", "jsonl", "hitlog"])
def test_small_fetches_give_the_same_export(finished, fmt, monkeypatch):
    whole = "".join(exports.export_stream(finished, fmt))
    monkeypatch.setattr(streaming, "FETCH_ROWS", 70)  # many batches through the reader thread
    assert "".join(exports.export_stream(finished, fmt)) == whole


def test_closing_the_stream_stops_its_reader(finished, monkeypatch):
    monkeypatch.setattr(streaming, "FETCH_ROWS", 50)
    before = threading.active_count()
    stream = exports.export_stream(finished, "jsonl")
    next(stream)
    assert threading.active_count() == before + 1  # the reader, a batch ahead
    stream.close()
    assert threading.active_count() == before
    # the connection is free again: a query after the closed stream runs as usual
    assert len("".join(exports.export_stream(finished, "csv")).splitlines()) == 1201


def test_csv_cells_are_made_safe_as_csv_safe_makes_them(finished):
    texts = {"reason": "-1", "error": "@x", "stdout": "'=y", "correction_note": "=SUM(A1)"}
    Result.objects.filter(experiment=finished, position=3).update(**texts, tags=["+tag", "b"])
    table = list(csv.DictReader(io.StringIO("".join(exports.export_stream(finished, "csv")))))
    row = next(r for r in table if r["position"] == "3")
    assert {k: row[k] for k in texts} == {k: csv_safe(v) for k, v in texts.items()}
    assert row["tags"] == "'+tag,b" and not table[2]["reason"].startswith("'")  # plain: as is
