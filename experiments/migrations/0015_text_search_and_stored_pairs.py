"""Trigram indexes on the results' reasons and errors, on PostgreSQL: the results grid's text
search (`UPPER(reason) LIKE UPPER('%q%')`, Django's icontains) finds a rare text among a
million results through them instead of reading every result (other databases get none).
And the stored numbers of two bindings' paired results (PairedComparison), which compare
pages and the trends read instead of pairing a million results on each request."""

import django.db.models.deletion
from django.db import migrations, models

from assay.bases import PostgreSQLOnly

INDEXES = {
    "result_reason_trgm": "reason",
    "result_error_trgm": "error",
}


class Migration(migrations.Migration):
    # CONCURRENTLY: a large results table keeps taking writes while the indexes build
    atomic = False

    dependencies = [
        ("experiments", "0014_result_turn_stored_once"),
    ]

    operations = [
        migrations.CreateModel(
            name="PairedComparison",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                (
                    "kind",
                    models.CharField(
                        choices=[
                            ("compare", "paired statistics and the row diff"),
                            ("flips", "pass/fail flips by (item, repetition), for the trends"),
                        ],
                        default="compare",
                        max_length=8,
                    ),
                ),
                ("stamp", models.CharField(max_length=200)),
                ("stats", models.JSONField()),
                ("rows", models.BinaryField(default=bytes)),
                ("computed_at", models.DateTimeField(auto_now=True)),
                (
                    "baseline",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="+",
                        to="experiments.evaluatorbinding",
                    ),
                ),
                (
                    "candidate",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="+",
                        to="experiments.evaluatorbinding",
                    ),
                ),
            ],
            options={
                "constraints": [
                    models.UniqueConstraint(
                        fields=("baseline", "candidate", "kind"), name="unique_paired_numbers"
                    )
                ],
            },
        ),
        PostgreSQLOnly(
            sql=[
                "CREATE EXTENSION IF NOT EXISTS pg_trgm",
                # whole, not partial (WHERE error <> '' would save a few bytes a result): an
                # expression index gets statistics of its expression, from which the planner
                # knows a common text from a rare one and walks rows in order or reads the index
                *(
                    f"CREATE INDEX CONCURRENTLY IF NOT EXISTS {name} ON experiments_result "
                    f"USING gin (UPPER({column}::text) gin_trgm_ops)"
                    for name, column in INDEXES.items()
                ),
            ],
            reverse_sql=[f"DROP INDEX CONCURRENTLY IF EXISTS {name}" for name in INDEXES],
        ),
    ]
