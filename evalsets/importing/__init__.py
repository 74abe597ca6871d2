"""File imports into an evaluation set's draft: jobs, streaming readers, the batch writer."""

from .jobs import (
    column_names,
    import_configure,
    import_create,
    import_limits,
    import_preview,
    import_retry_skipping,
    proposed_mapping,
    upload_encoding_guess,
)
from .rows import evalset_version_from_rows
from .run import import_claim, import_run

__all__ = [
    "column_names",
    "evalset_version_from_rows",
    "import_claim",
    "import_configure",
    "import_create",
    "import_limits",
    "import_preview",
    "import_retry_skipping",
    "import_run",
    "proposed_mapping",
    "upload_encoding_guess",
]
