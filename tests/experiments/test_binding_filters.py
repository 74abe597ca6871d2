"""A binding can score only some rows (by tag, or where a column has a value): rows outside
its filter get no result for it and are outside its counts; a required input missing on a
row inside the filter is still unknown."""

import pytest

from experiments import scoring as engine
from experiments import services
from experiments.models import Result
from tests.support.factories import make_code_version, make_evalset_version

pytestmark = pytest.mark.django_db

COLUMNS = [
    {"name": n, "content_type": "Text", "required": False, "description": ""}
    for n in ("actual_output", "reference_output", "note")
]
ROWS = [
    {"actual_output": "Paris", "reference_output": "Paris", "note": "x", "tags": ["geo"]},
    {"actual_output": "Lyon", "reference_output": "Paris", "tags": ["geo"]},
    {"actual_output": "4", "reference_output": "4", "note": "y", "tags": ["math"]},
    {"actual_output": "Rome", "reference_output": "", "tags": ["geo"]},
]


def run(workspace, user, applies_to):
    version = make_evalset_version(workspace=workspace, user=user, rows=ROWS, columns=COLUMNS)
    contains = make_code_version(workspace=workspace, user=user)
    experiment = services.experiment_create(
        workspace=workspace,
        user=user,
        name="filtered",
        evalset_version=version,
        bindings=[{"evaluator_version": contains, "applies_to": applies_to}],
        launch=True,
    )
    return engine.experiment_run_inline(experiment_id=experiment.pk)


def test_a_tag_filter_scores_only_those_rows(workspace, user):
    done = run(workspace, user, {"tags": ["geo"]})
    assert done.status == "completed"
    assert done.results_total == done.results_done == 3  # the math row is outside
    positions = sorted(Result.objects.filter(experiment=done).values_list("position", flat=True))
    assert positions == [0, 1, 3]
    summary = done.aggregates.get().summary
    assert (summary["passed"], summary["fails"], summary["total_processed"]) == (1, 1, 3)
    unknown = Result.objects.get(experiment=done, position=3)
    assert unknown.verdict == "unknown"  # inside the filter, its reference is empty


def test_a_column_filter_scores_rows_where_it_has_a_value(workspace, user):
    done = run(workspace, user, {"column": "note"})
    positions = sorted(Result.objects.filter(experiment=done).values_list("position", flat=True))
    assert positions == [0, 2] and done.results_total == 2 and done.status == "completed"


@pytest.mark.parametrize(
    ("applies_to", "message"),
    [
        ({"column": "nope"}, "no column 'nope'"),
        ({"tags": []}, "non-empty list"),
        ({"when": "x"}, "Unknown field 'when'"),
        ("geo", "an object"),
    ],
)
def test_a_bad_filter_is_named_and_nothing_saved(workspace, user, applies_to, message):
    from django.core.exceptions import ValidationError

    from experiments.models import Experiment

    with pytest.raises(ValidationError) as raised:
        run(workspace, user, applies_to)
    assert message in str(raised.value.message_dict["bindings[0].applies_to"])
    assert not Experiment.objects.exists()
