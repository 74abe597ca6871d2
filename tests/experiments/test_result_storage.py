"""Results keep only what the pages need: the item's id is read through the item (not copied),
and the item key has no database constraint or index. Deleting what results hang on still
works: an experiment takes its results with it, and deleting draft rows of a set whose
version has results never looks through the results."""

import importlib

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from evalsets import services as evalset_services
from evalsets.models import EvalSetItem
from experiments.models import EvaluatorBinding, Experiment, Result
from experiments.results import garak
from experiments.results.trends import paired_flips
from tests.support.factories import make_code_version, make_evalset_version, qa_rows, run_inline

pytestmark = pytest.mark.django_db
URL = "/api/v1/experiments/"


@pytest.fixture
def finished(workspace, user):
    version = make_evalset_version(workspace=workspace, user=user, rows=qa_rows(6))
    check = make_code_version(workspace=workspace, user=user)
    return run_inline(workspace=workspace, user=user, version=version, evaluator_version=check)


def test_the_api_reads_each_results_item_id_through_its_item(api, finished):
    items = EvalSetItem.objects.of_version(finished.evalset_version)
    uids = [str(uid) for uid in items.order_by("position").values_list("item_id", flat=True)]
    page = api.get(f"{URL}{finished.public_id}/results/").json()["results"]
    assert [r["item_id"] for r in page] == uids
    assert "created_at" not in page[0] and "updated_at" not in page[0]
    result = Result.objects.get(experiment=finished, position=3)
    detail = api.get(f"{URL}{finished.public_id}/results/{result.pk}/").json()
    assert detail["item_id"] == uids[3] and detail["row_number"] == 4


def test_deleting_an_experiment_removes_its_results(finished):
    other = Experiment.objects.get(pk=finished.pk)
    assert Result.objects.filter(experiment=other).count() == 6
    other.delete()
    assert not Result.objects.filter(experiment_id=finished.pk).exists()
    # the rows stay: the version is immutable, and other experiments may pin it
    assert EvalSetItem.objects.of_version(finished.evalset_version).count() == 6


def test_deleting_draft_rows_never_reads_the_results(finished):
    evalset = finished.evalset_version.evalset
    draft = EvalSetItem.objects.filter(evalset=evalset, version__isnull=True)
    uids = [str(uid) for uid in draft.values_list("item_id", flat=True)[:3]]
    assert len(uids) == 3  # the draft keeps its rows' ids after the commit
    with CaptureQueriesContext(connection) as queries:
        evalset_services.items_bulk(evalset=evalset, delete=uids)
    table = Result._meta.db_table
    assert not [q for q in queries.captured_queries if table in q["sql"]]
    assert draft.count() == 3 and Result.objects.filter(experiment=finished).count() == 6


def test_results_have_no_item_constraint_or_index():
    with connection.cursor() as cursor:
        constraints = connection.introspection.get_constraints(cursor, Result._meta.db_table)
    on_item = [c for c in constraints.values() if c["columns"] == ["item_id"]]
    assert on_item == []


def test_no_index_or_constraint_leads_with_the_binding():
    """0018: the (binding, position) index and the binding's constraint went (32 bytes a
    result); what leads with the experiment serves a binding's results."""
    with connection.cursor() as cursor:
        constraints = connection.introspection.get_constraints(cursor, Result._meta.db_table)
    assert not [c for c in constraints.values() if c["columns"][:1] == ["binding_id"]]
    assert not [
        c for c in constraints.values() if c["foreign_key"] and "binding_id" in c["columns"]
    ]


@pytest.fixture
def two_runs(workspace, user):
    """Two finished experiments of one version, each with two code checks (4 × 6 results)."""
    version = make_evalset_version(workspace=workspace, user=user, rows=qa_rows(6))
    checks = [make_code_version(workspace=workspace, user=user, name=n) for n in ("A", "B")]
    return [
        run_inline(workspace=workspace, user=user, version=version, versions=checks, name=n)
        for n in ("one", "two")
    ]


def _results_queries(queries) -> list[str]:
    table = Result._meta.db_table
    return [q["sql"] for q in queries.captured_queries if table in q["sql"]]


def test_deleting_an_experiment_reads_and_deletes_results_by_experiment_only(two_runs):
    """Its results and bindings go, the other run's stay, and every statement on the results
    names the experiment (the unique key leads with it; by the binding alone is a scan)."""
    gone, kept = two_runs
    with CaptureQueriesContext(connection) as queries:
        Experiment.objects.get(pk=gone.pk).delete()
    statements = _results_queries(queries)
    assert statements and all("experiment_id" in sql for sql in statements), statements
    assert not Result.objects.filter(experiment_id=gone.pk).exists()
    assert not EvaluatorBinding.objects.filter(experiment_id=gone.pk).exists()
    assert Result.objects.filter(experiment=kept).count() == 12
    assert not Result.objects.exclude(binding__in=EvaluatorBinding.objects.all()).exists()


def test_deleting_a_binding_alone_takes_its_results_by_experiment_and_binding(two_runs):
    run = two_runs[0]
    first, second = run.bindings.order_by("position")
    with CaptureQueriesContext(connection) as queries:
        EvaluatorBinding.objects.get(pk=first.pk).delete()
    statements = _results_queries(queries)
    assert statements and all("experiment_id" in sql for sql in statements), statements
    assert set(run.results.values_list("binding_id", flat=True)) == {second.pk}
    assert Result.objects.filter(experiment=two_runs[1]).count() == 12
    assert not Result.objects.exclude(binding__in=EvaluatorBinding.objects.all()).exists()


def test_a_bindings_results_are_read_with_its_experiment(two_runs):
    """The per-binding reads that named the binding alone (the trends' flip count, garak's
    counts) name the experiment too, and still count what they counted."""
    earlier, later = (run.bindings.order_by("position").first() for run in two_runs)
    with CaptureQueriesContext(connection) as queries:
        flips = paired_flips(earlier=earlier.pk, later=later.pk)
        counts = garak.per_row_counts(earlier)
        hits = garak.hit_outputs(earlier)
    assert flips == (0, 0, 6)
    assert len(counts) == 6 and len(hits) == 3
    statements = _results_queries(queries)
    assert len(statements) == 3 and all("experiment_id" in sql for sql in statements)


def test_on_postgresql_the_columns_waste_no_alignment_padding(finished):
    """0017 packs the columns (8-byte ones first, texts last): a code check's row with a short
    reason is 141 bytes, which PostgreSQL stores in 144 (152 before)."""
    if connection.vendor != "postgresql":
        pytest.skip("column order is PostgreSQL's storage")
    packed = importlib.import_module("experiments.migrations.0017_result_columns_packed")
    table = Result._meta.db_table
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT attname FROM pg_attribute WHERE attrelid = %s::regclass AND attnum > 0 "
            "AND NOT attisdropped ORDER BY attnum",
            [table],
        )
        columns = [row[0] for row in cursor.fetchall()]
        cursor.execute(f"SELECT max(pg_column_size(r.*)) FROM {table} r")  # noqa: S608
        width = cursor.fetchone()[0]
    expected = [Result._meta.get_field(name).column for name in packed.ORDER]
    assert columns[: len(expected)] == expected
    assert width <= 144
