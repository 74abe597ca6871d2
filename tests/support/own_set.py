"""A team's own set for pairwise tests: the question under `question` (or another name), not
`input`, and finished experiments whose pushed outputs were scored with
`input ← column:<question>` (issue 28)."""

from __future__ import annotations

from experiments import scoring as engine
from experiments import services
from tests.support.factories import make_evalset_version


def column(name: str) -> dict:
    return {"name": name, "content_type": "Text", "required": False, "description": ""}


def own_set(workspace, user, question: str, n: int = 4):
    """A set like a team's own sheet: `n` questions under `question`, answers under `expected`."""
    rows = [{question: f"what is {i}?", "expected": f"{i}"} for i in range(n)]
    columns = [column(question), column("expected")]
    return make_evalset_version(
        workspace=workspace, user=user, rows=rows, name="Support FAQ", columns=columns
    )


def app_run(workspace, user, version, scorer, label: str, question: str, marker: str):
    """A finished experiment whose pushed outputs (each ending with `marker`, which steers the
    scripted pairwise judge) were scored with input ← column:<question>."""
    experiment = services.experiment_create(
        workspace=workspace,
        user=user,
        name=f"FAQ · {label}",
        evalset_version=version,
        bindings=[
            {
                "evaluator_version": scorer,
                "mapping": {"input": f"column:{question}", "output": "target:actual_output"},
            }
        ],
        target={"kind": "external"},
        launch=True,
    )
    engine.experiment_begin(experiment_id=experiment.pk)
    outputs = [
        {"item_id": str(item.item_id), "actual_output": f"{label} says {item.position} {marker}"}
        for item in version.items.order_by("position")
    ]
    services.outputs_push(experiment=experiment, outputs=outputs)
    services.experiment_close(experiment=experiment)
    return engine.experiment_run_inline(experiment_id=experiment.pk)
