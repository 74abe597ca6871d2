"""File imports into an evaluation set's draft: jobs, streaming readers, the batch writer."""

from .jobs import (
    import_configure,
    import_create,
    import_limits,
    import_preview,
    import_retry_skipping,
    mapping_choices,
    proposed_mapping,
)
from .rows import evalset_version_from_rows
from .run import import_claim, import_run

__all__ = [
    "evalset_version_from_rows",
    "import_claim",
    "import_configure",
    "import_create",
    "import_limits",
    "import_preview",
    "import_retry_skipping",
    "import_run",
    "mapping_choices",
    "proposed_mapping",
]
