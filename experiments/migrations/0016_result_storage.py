"""Results keep only what the pages need (bytes per result, issue 19):

- `item_uid` goes: it was a copy of the item's stable id (`EvalSetItem.item_id`), 16 bytes a
  result, and is read through the item now. Every result names its item, so nothing is lost;
  going back fills the copy from the item again.
- `created_at` and `updated_at` go (16 bytes): nothing read them; a correction keeps its time.
- the item foreign key loses its database constraint and its index (23 bytes a result): a
  result's item belongs to its experiment's evalset version, which is immutable and protected
  by the experiment, so it never goes; the constraint only made every deleted draft row look
  through the results.
- on PostgreSQL the trigram indexes' pending lists are capped at 64 kB, the least allowed (the
  server's default is 4 MB): the pages a full pending list used stay in the index after it is
  merged, 190 bytes a result of a 20,000-row experiment's reason index at 4 MB, 7 at 64 kB.
"""

import django.db.models.deletion
from django.db import migrations, models

from assay.bases import PostgreSQLOnly

TRIGRAM_INDEXES = ("result_reason_trgm", "result_error_trgm")


def fill_item_uids(apps, schema_editor):
    """Going back: the copied id again, from each result's item."""
    Result = apps.get_model("experiments", "Result")
    EvalSetItem = apps.get_model("evalsets", "EvalSetItem")
    uid = EvalSetItem.objects.filter(pk=models.OuterRef("item_id")).values("item_id")[:1]
    Result.objects.update(item_uid=models.Subquery(uid))


class Migration(migrations.Migration):
    dependencies = [
        ("evalsets", "0007_item_search_trigram"),
        ("experiments", "0015_text_search_and_stored_pairs"),
    ]

    operations = [
        # nullable first, so that going back can add the column before filling it
        migrations.AlterField(
            model_name="result",
            name="item_uid",
            field=models.UUIDField(null=True),
        ),
        migrations.RunPython(migrations.RunPython.noop, fill_item_uids),
        migrations.RemoveField(model_name="result", name="item_uid"),
        migrations.RemoveField(model_name="result", name="created_at"),
        migrations.RemoveField(model_name="result", name="updated_at"),
        migrations.AlterField(
            model_name="result",
            name="item",
            field=models.ForeignKey(
                db_constraint=False,
                db_index=False,
                on_delete=django.db.models.deletion.DO_NOTHING,
                related_name="+",
                to="evalsets.evalsetitem",
            ),
        ),
        PostgreSQLOnly(
            sql=[
                f"ALTER INDEX IF EXISTS {name} SET (gin_pending_list_limit = 64)"
                for name in TRIGRAM_INDEXES
            ],
            reverse_sql=[
                f"ALTER INDEX IF EXISTS {name} RESET (gin_pending_list_limit)"
                for name in TRIGRAM_INDEXES
            ],
        ),
    ]
