"""Paired statistics stored per pair of bindings, so a compare page does not pair a million
results on every request.

The first read of a pair of finished runs pairs their results (`compare_paired`, or with
the same numbers by PostgreSQL: `sql`) and stores the numbers and the row diff's item
ids; later reads take them while both runs' aggregates are unchanged (a correction or a
retry refreshes an aggregate, and so the stamp).
A page of the diff reads only its own ids out of the stored bytes. Runs still working are
paired on every read and nothing is stored.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass

from django.db import connection, transaction
from django.db.models import BinaryField, Func, IntegerField, Value
from django.db.models.functions import Cast

from ...models import Aggregate, EvaluatorBinding, Experiment, PairedComparison
from ...stats import compare_paired

# the row diff's lists in the order the page shows them ("all": every one, in turn)
SEGMENTS = (
    "regressions",
    "improvements",
    "to_unknown",
    "from_unknown",
    "unchanged",
    "only_in_baseline",
    "only_in_candidate",
)
# each filter of the page is a run of consecutive lists
FILTER_SEGMENTS = {
    "regressions": SEGMENTS[:1],
    "improvements": SEGMENTS[1:2],
    "unknown": SEGMENTS[2:4],
    "changed": SEGMENTS[:4],
    "all": SEGMENTS,
}
KINDS = {
    "regressions": "regression",
    "improvements": "improvement",
    "to_unknown": "unknown flip",
    "from_unknown": "unknown flip",
    "unchanged": "unchanged",
    "only_in_baseline": "only in baseline",
    "only_in_candidate": "only in candidate",
}
UID = 16  # bytes of one stored item id


@dataclass
class StoredPair:
    """A pair's statistics (without the id lists) and where its row ids are."""

    stats: dict
    row: PairedComparison | None = None  # the stored row (None: paired on this read)
    ids: bytes | None = None  # the row ids in memory, when paired on this read

    def span(self, flt: str) -> tuple[int, int]:
        """(first, count) of the filter's ids among the stored ones."""
        names = FILTER_SEGMENTS[flt]
        spans = self.stats["spans"]
        first = spans[names[0]][0]
        return first, sum(spans[name][1] for name in names)

    def slice(self, start: int, count: int) -> list[tuple[str, str]]:
        """(item id, kind) of `count` stored ids from `start`, read without the rest."""
        data = self._bytes(start * UID, count * UID)
        return [
            (str(uuid.UUID(bytes=data[i : i + UID])), self._kind(start + i // UID))
            for i in range(0, len(data), UID)
        ]

    def _bytes(self, offset: int, length: int) -> bytes:
        if self.ids is not None:
            return self.ids[offset : offset + length]
        # SUBSTR of the stored bytes (1-based): the database sends only the page's ids
        start, size = Cast(Value(offset + 1), IntegerField()), Cast(Value(length), IntegerField())
        part = Func("rows", start, size, function="SUBSTR", output_field=BinaryField())
        found = PairedComparison.objects.filter(pk=self.row.pk).annotate(part=part)
        return bytes(found.values_list("part", flat=True).get() or b"")

    def _kind(self, index: int) -> str:
        for name in SEGMENTS:
            first, count = self.stats["spans"][name]
            if first <= index < first + count:
                return KINDS[name]
        return "unchanged"

    def lists(self) -> dict[str, list[str]]:
        """The id lists the API and the JSON export carry (every list but `unchanged`)."""
        spans = self.stats["spans"]
        return {
            name: [uid for uid, _kind in self.slice(*spans[name])]
            for name in SEGMENTS
            if name != "unchanged"
        }


def pair_stats(
    *,
    baseline: Experiment,
    base: EvaluatorBinding,
    candidate: Experiment,
    cand: EvaluatorBinding,
    seed: int = 0,
) -> StoredPair:
    """The stored statistics of `base` against `cand` when they are current, else paired now
    (and stored when both runs are finished)."""
    stamp = _stamp(baseline, base, candidate, cand, seed)
    found = _current(base, cand, stamp) if stamp else None
    if found is not None:
        return StoredPair(stats=found.stats, row=found)
    sides = {"baseline": baseline, "base": base, "candidate": candidate, "cand": cand}
    stats, ids = _paired(**sides, seed=seed)
    if not stamp:
        return StoredPair(stats=stats, ids=ids)
    with transaction.atomic():  # never a current stamp without its ids
        row, _created = PairedComparison.objects.update_or_create(
            baseline=base,
            candidate=cand,
            kind=COMPARE,
            defaults={"stamp": stamp, "stats": stats, "rows": b""},
        )
        _store_ids(row, ids)
    return StoredPair(stats=stats, row=row, ids=ids)


def _store_ids(row: PairedComparison, ids: bytes) -> None:
    """The ids as one binary parameter. Django binds parameters on the client, where the ids
    of a million rows (16 MB) became 32 MB of hex in the statement's text, twice over."""
    row.rows = ids
    if connection.vendor != "postgresql":
        row.save(update_fields=["rows"])
        return
    import psycopg

    table = PairedComparison._meta.db_table
    with psycopg.Cursor(connection.connection) as cursor:  # binds on the server: binary
        cursor.execute(f"UPDATE {table} SET rows = %b WHERE id = %s", [ids, row.pk])


COMPARE = PairedComparison.Kind.COMPARE


def _paired(*, baseline, base, candidate, cand, seed: int) -> tuple[dict, bytes]:
    """The pair's statistics and ids: paired by PostgreSQL when each side has one result an
    item (`sql`, the same numbers), else by `compare_paired` over both sides' rows."""
    from . import evaluator_side
    from .sql import database_pairs, paired_in_database

    if database_pairs(baseline, base, candidate, cand):
        return paired_in_database(
            baseline=baseline, base=base, candidate=candidate, cand=cand, seed=seed
        )
    left, right = evaluator_side(baseline, base), evaluator_side(candidate, cand)
    return packed(compare_paired(left, right, seed=seed).to_dict(), left, right)


def _current(base, cand, stamp: str) -> PairedComparison | None:
    rows = PairedComparison.objects.filter(baseline=base, candidate=cand, kind=COMPARE)
    return rows.filter(stamp=stamp).defer("rows").first()


def _stamp(baseline, base, candidate, cand, seed: int) -> str:
    """Both aggregates' refresh times and the seed; "" while a run works (nothing stored)."""
    if baseline.is_active or candidate.is_active:
        return ""
    times = dict(
        Aggregate.objects.filter(binding__in=[base, cand]).values_list("binding_id", "updated_at")
    )
    return pair_stamp(times.get(base.pk), times.get(cand.pk), seed)


def pair_stamp(base_refreshed, cand_refreshed, seed: int = 0) -> str:
    """What stored numbers of two bindings are valid for: both aggregates' refresh times (and
    the seed); "" when one has none yet (then nothing is stored)."""
    if base_refreshed is None or cand_refreshed is None:
        return ""
    return f"{base_refreshed.isoformat()}|{cand_refreshed.isoformat()}|{seed}"


def packed(data: dict, left: dict, right: dict) -> tuple[dict, bytes]:
    """compare_paired's dict without its id lists (their lengths in `counts`, where they are
    in `spans`) and the ids as bytes in SEGMENTS order; `unchanged` is every other id of both
    sides (`left` and `right`, the paired outcomes), in baseline order."""
    lists = {name: data.pop(name) for name in SEGMENTS if name != "unchanged"}
    changed = {i for name in SEGMENTS[:4] for i in lists[name]}
    lists["unchanged"] = [i for i in left if i in right and i not in changed]
    spans, chunks, at = {}, [], 0
    for name in SEGMENTS:
        spans[name] = [at, len(lists[name])]
        # hex to bytes: a third of what parsing a million uuid.UUID costs
        chunks += [bytes.fromhex(str(i).replace("-", "")) for i in lists[name]]
        at += len(lists[name])
    data["spans"] = spans
    data["counts"] = counts(spans)
    return data, b"".join(chunks)


def counts(spans: dict) -> dict:
    """The page's flip counts from the lists' lengths."""
    found = {name: spans[name][1] for name in SEGMENTS if name != "unchanged"}
    found["unknown_flips"] = found["to_unknown"] + found["from_unknown"]
    return found
