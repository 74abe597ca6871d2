"""The mappings a set has been used with: what the experiment form and a pairwise run suggest
before the names of the columns are guessed."""

from __future__ import annotations

from collections.abc import Iterable

from assay.models import Workspace
from evalsets.models import EvalSet

from ..models import EvaluatorBinding, Experiment

# how many of a set's newest bindings are read for its remembered mapping
REMEMBERED_BINDINGS = 100


def mapping_remembered(*, workspace: Workspace, evalset: EvalSet | None) -> dict[str, str]:
    """Variable → source as the set's newest experiments mapped it (any version of the set):
    for each variable, the source of the last experiment whose bindings mapped that variable."""
    if evalset is None:
        return {}
    bindings = (
        EvaluatorBinding.objects.filter(
            experiment__workspace=workspace, experiment__evalset_version__evalset=evalset
        )
        .order_by("-experiment__created_at", "-experiment_id", "pk")
        .values_list("mapping", flat=True)[:REMEMBERED_BINDINGS]
    )
    return mappings_merged(bindings)


def mapping_of_experiments(*, experiments: Iterable[Experiment]) -> dict[str, str]:
    """Variable → source as these experiments' bindings map it (the first experiment's first)."""
    ids = [e.pk for e in experiments]
    rank = {pk: i for i, pk in enumerate(ids)}
    rows = (
        EvaluatorBinding.objects.filter(experiment_id__in=ids)
        .order_by("pk")
        .values_list("experiment_id", "mapping")
    )
    ordered = sorted(rows, key=lambda row: rank[row[0]])
    return mappings_merged(mapping for _id, mapping in ordered)


def mappings_merged(mappings: Iterable[dict]) -> dict[str, str]:
    """The first source seen for each variable (mappings come newest or most relevant first)."""
    merged: dict[str, str] = {}
    for mapping in mappings:
        for variable, source in (mapping or {}).items():
            if isinstance(source, str) and source:
                merged.setdefault(variable, source)
    return merged
