"""Fast batch writes of item rows: COPY on PostgreSQL, executemany on SQLite, bulk_create else.

The ORM builds a model instance per row; at a million rows that alone costs more than the
database work, so the importer hands ready tuples straight to the driver.
"""

from __future__ import annotations

import uuid

from django.db import connection, transaction

from ..models import EvalSet, EvalSetItem


class SetDeleted(Exception):
    """The evaluation set was deleted while its import ran: nothing more may be written."""


COLUMNS = (
    "evalset_id",
    "version_id",
    "import_job_id",
    "item_id",
    "position",
    "data",
    "tags",
    "human_verdict",
    "label",
    "search_text",
)

# A prepared row: (item_id, position, data_json, tags_json, human_verdict, label, search_text)
Prepared = tuple[uuid.UUID, int, str, str, str, str, str]


class ItemWriter:
    """Writes an import's rows, each batch in its own short transaction."""

    def __init__(self, *, evalset_id: int, import_id: int):
        self.evalset_id = evalset_id
        self.import_id = import_id
        self.table = EvalSetItem._meta.db_table
        self.vendor = connection.vendor

    def write(self, rows: list[Prepared], after=None) -> None:
        """Insert `rows`; `after()` runs in the same transaction (progress counters).

        The set's row is locked first: a delete either lands before (and this batch is not
        written) or waits for this batch, whose rows the swap then refuses.
        """
        with transaction.atomic():
            live = EvalSet.objects.select_for_update().filter(
                pk=self.evalset_id, deleted_at__isnull=True
            )
            if not live.exists():
                raise SetDeleted
            if self.vendor == "postgresql":
                self._copy(rows)
            elif self.vendor == "sqlite":
                self._executemany(rows)
            else:
                self._bulk_create(rows)
            if after is not None:
                after()

    def _copy(self, rows: list[Prepared]) -> None:
        sql = f"COPY {self.table} ({', '.join(COLUMNS)}) FROM STDIN"
        head = (self.evalset_id, None, self.import_id)
        with connection.cursor() as cursor, cursor.cursor.copy(sql) as copy:
            write_row = copy.write_row
            for row in rows:
                write_row(head + row)

    def _executemany(self, rows: list[Prepared]) -> None:
        marks = ", ".join(["%s"] * len(COLUMNS))
        sql = f"INSERT INTO {self.table} ({', '.join(COLUMNS)}) VALUES ({marks})"
        evalset_id, import_id = self.evalset_id, self.import_id
        params = [
            (evalset_id, None, import_id, r[0].hex, r[1], r[2], r[3], r[4], r[5], r[6])
            for r in rows
        ]
        with connection.cursor() as cursor:
            cursor.executemany(sql, params)

    def _bulk_create(self, rows: list[Prepared]) -> None:
        import json

        EvalSetItem.objects.bulk_create(
            [
                EvalSetItem(
                    evalset_id=self.evalset_id,
                    import_job_id=self.import_id,
                    item_id=r[0],
                    position=r[1],
                    data=json.loads(r[2]),
                    tags=json.loads(r[3]),
                    human_verdict=r[4],
                    label=r[5],
                    search_text=r[6],
                )
                for r in rows
            ],
            batch_size=1000,
        )
