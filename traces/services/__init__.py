"""The services of traces: ingest keys, span batches and retention."""

from .keys import (
    KEY_PREFIX,
    IssuedIngestKey,
    ingest_key_authenticate,
    ingest_key_issue,
    ingest_key_revoke,
)
from .pressure import IngestBusy, span_rate_take
from .spans import (
    span_batch_accept,
    span_batch_store,
    span_batches_stalled,
    spans_retention_apply,
)

__all__ = [
    "KEY_PREFIX",
    "IngestBusy",
    "IssuedIngestKey",
    "ingest_key_authenticate",
    "ingest_key_issue",
    "ingest_key_revoke",
    "span_batch_accept",
    "span_batch_store",
    "span_batches_stalled",
    "span_rate_take",
    "spans_retention_apply",
]
