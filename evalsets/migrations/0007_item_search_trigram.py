"""A trigram index on the rows' search text, on PostgreSQL: the results grid's text search
(`UPPER(search_text) LIKE UPPER('%q%')`, Django's icontains) finds a rare text in a
million-row version through it instead of reading every row. Other databases get nothing."""

from django.db import migrations

from assay.bases import PostgreSQLOnly

INDEX = "evalset_item_search_trgm"


class Migration(migrations.Migration):
    # CONCURRENTLY: a large table keeps taking writes while the index builds
    atomic = False

    dependencies = [
        ("evalsets", "0006_import_message_params"),
    ]

    operations = [
        PostgreSQLOnly(
            sql=[
                "CREATE EXTENSION IF NOT EXISTS pg_trgm",
                f"CREATE INDEX CONCURRENTLY IF NOT EXISTS {INDEX} ON evalsets_evalsetitem "
                "USING gin (UPPER(search_text::text) gin_trgm_ops)",
            ],
            reverse_sql=[f"DROP INDEX CONCURRENTLY IF EXISTS {INDEX}"],
        ),
    ]
