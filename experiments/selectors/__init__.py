"""Reads of experiments and their results, always scoped to one workspace: the runs, the ids
a request names, the results, request bodies and garak references, one module each (their
names, the private ones other modules use included, are re-exported here)."""

from .garak import (  # noqa: F401
    garak_import_get,
    garak_imports,
    garak_reference,
    garak_references,
)
from .gate import gate_decisions  # noqa: F401
from .inputs import (  # noqa: F401
    BINDING_KEYS,
    bindings_resolved,
    clone_versions,
    evalset_version_required,
    experiment_inputs,
)
from .mappings import mapping_of_experiments, mapping_remembered  # noqa: F401
from .resolving import (  # noqa: F401
    _by_name_then_version,
    _highest,
    _named_ref,
    _version_ref,
    evalset_version_choices,
    evalset_version_for,
    evaluator_for,
    evaluator_version_choices,
    evaluator_version_for,
    versions_of,
)
from .results import (  # noqa: F401
    ITEM_UID,
    TAG_SCAN,
    _by_evaluator,
    _by_item,
    _by_score,
    _has_tag,
    result_get,
    result_tags,
    result_text,
    results_list,
)
from .runs import (  # noqa: F401
    _aggregated,
    _counts_from_aggregates,
    _elapsed,
    _evalset_filter,
    any_active,
    baseline_latest,
    bindings_with_summaries,
    experiment_filter_choices,
    experiment_find,
    experiment_get,
    experiment_list,
    experiment_list_scores,
    experiment_progress,
    failed_count,
    result_counts,
    retry_counts,
    target_failed_count,
)
