"""The results table rebuilt on PostgreSQL with its columns in an order that wastes no
alignment padding: the 8-byte columns first, then the 4-, 2- and 1-byte ones, then the texts
and JSON (which need no alignment when short). 144 bytes a code-check row instead of 152; and
the rows lose what 0016's dropped columns still held in them (PostgreSQL drops a column
without rewriting the rows). The rows are copied in the unique key's order, the walk the pages
and exports read them in. Same columns, types, constraints and indexes, by the same names;
other databases keep their table (the models' state does not change).

The copy holds the table locked while it runs, as any rewrite of it would.
"""

from django.db import migrations

# Nulls cost a bit of the row's null bitmap wherever they stand; the nullable numbers sit with
# their kind so that a set one is aligned for free.
ORDER = (
    "id", "experiment", "binding", "item", "position", "score", "latency_ms", "cost",
    "human_score", "corrected_at", "corrected_by", "tokens_in", "tokens_out", "repeat", "turn",
    "attempt", "cached", "tags", "status", "verdict", "human_verdict", "reason", "error",
    "stdout", "correction_note", "raw_answer", "rendered_request",
)  # fmt: skip
TRIGRAMS = {"result_reason_trgm": "reason", "result_error_trgm": "error"}


def results_pack(apps, schema_editor):
    """Copy the results into a table of the same columns in ORDER, then give it the old one's
    name, constraints and indexes (Django's own SQL for them, so their names are Django's)."""
    if schema_editor.connection.vendor != "postgresql":
        return
    Result = apps.get_model("experiments", "Result")
    table, fields = Result._meta.db_table, [Result._meta.get_field(n) for n in ORDER]
    if {f.column for f in fields} != {f.column for f in Result._meta.concrete_fields}:
        raise RuntimeError("results_pack: ORDER must name every column of the results")
    packed = f"{table}_packed"
    _copy(schema_editor, Result, fields, packed)
    schema_editor.execute(f"DROP TABLE {table}")
    schema_editor.execute(f"ALTER TABLE {packed} RENAME TO {table}")
    _rename_generated(schema_editor, table, packed)
    _constraints_and_indexes(schema_editor, Result, fields)
    # a new table has no statistics until autovacuum comes by: the pages' plans need them
    schema_editor.execute(f"ANALYZE {table}")


def _copy(schema_editor, Result, fields, packed: str) -> None:
    q = schema_editor.quote_name
    columns = ", ".join(q(f.column) for f in fields)
    definitions = ", ".join(
        f"{q(f.column)} {_definition(schema_editor, Result, f)}" for f in fields
    )
    key = next(c for c in Result._meta.constraints if c.name == "unique_result")
    order = ", ".join(q(Result._meta.get_field(n).column) for n in key.fields)
    table = Result._meta.db_table
    schema_editor.execute(f"CREATE TABLE {packed} ({definitions})")
    schema_editor.execute(
        f"INSERT INTO {packed} ({columns}) OVERRIDING SYSTEM VALUE "
        f"SELECT {columns} FROM {table} ORDER BY {order}"
    )


def _definition(schema_editor, model, field) -> str:
    """A column as Django's CREATE TABLE writes it: its type, nullability, check constraint and
    identity (`BaseDatabaseSchemaEditor.table_sql`, less the foreign key, added later)."""
    definition = schema_editor.column_sql(model, field)[0]
    params = field.db_parameters(connection=schema_editor.connection)
    if params["check"]:
        definition += " " + schema_editor.sql_check_constraint % params
    suffix = field.db_type_suffix(connection=schema_editor.connection)
    return f"{definition} {suffix}" if suffix else definition


def _rename_generated(schema_editor, table: str, packed: str) -> None:
    """The primary key, check constraints and id sequence PostgreSQL named after the copy's
    table take the names it gives them for the results' own; the sequence goes on from the
    largest id."""
    with schema_editor.connection.cursor() as cursor:
        cursor.execute(
            "SELECT conname FROM pg_constraint WHERE conrelid = %s::regclass AND conname LIKE %s",
            [table, f"{packed}%"],
        )
        names = [row[0] for row in cursor.fetchall()]
    for name in names:
        schema_editor.execute(
            f"ALTER TABLE {table} RENAME CONSTRAINT {name} TO {table}{name[len(packed) :]}"
        )
    schema_editor.execute(f"ALTER SEQUENCE {packed}_id_seq RENAME TO {table}_id_seq")
    schema_editor.execute(
        f"SELECT setval('{table}_id_seq', COALESCE(MAX(id), 0) + 1, false) FROM {table}"
    )


def _constraints_and_indexes(schema_editor, Result, fields) -> None:
    for field in fields:
        if field.remote_field and field.db_constraint:
            schema_editor.execute(
                schema_editor._create_fk_sql(Result, field, "_fk_%(to_table)s_%(to_column)s")
            )
    for constraint in Result._meta.constraints:
        schema_editor.add_constraint(Result, constraint)
    for index in Result._meta.indexes:
        schema_editor.add_index(Result, index)
    for name, column in TRIGRAMS.items():  # 0015's and 0016's, PostgreSQL's only
        schema_editor.execute(
            f"CREATE INDEX {name} ON {Result._meta.db_table} USING gin "
            f"(UPPER({column}::text) gin_trgm_ops) WITH (gin_pending_list_limit = 64)"
        )


class Migration(migrations.Migration):
    dependencies = [
        ("experiments", "0016_result_storage"),
    ]

    operations = [migrations.RunPython(results_pack, migrations.RunPython.noop)]
