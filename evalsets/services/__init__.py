"""Business logic for evaluation sets: sets and their columns (`sets`), draft items (`items`),
versions (`versions`).

Imports live in `evalsets.importing`; reads in `evalsets.selectors`.
"""

from .items import MAX_BULK, item_create, item_delete, item_update, items_bulk, next_position
from .sets import (
    DESCRIPTION_CAP,
    MAX_COLUMNS,
    MAX_NAME,
    clean_columns,
    evalset_create,
    evalset_delete,
    evalset_set_columns,
    evalset_update,
)
from .versions import next_version, version_commit

__all__ = [
    "DESCRIPTION_CAP",
    "MAX_BULK",
    "MAX_COLUMNS",
    "MAX_NAME",
    "clean_columns",
    "evalset_create",
    "evalset_delete",
    "evalset_set_columns",
    "evalset_update",
    "item_create",
    "item_delete",
    "item_update",
    "items_bulk",
    "next_position",
    "next_version",
    "version_commit",
]
