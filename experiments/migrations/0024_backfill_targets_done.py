"""targets_done came (0022) as 0 for every run: a run that had already called its target
showed its outputs as "0 of N" and a half-empty bar in the list. Count them once."""

from django.db import migrations
from django.db.models import Count, IntegerField, OuterRef, Subquery, Value
from django.db.models.functions import Coalesce


def targets_done_backfill(apps, schema_editor) -> None:
    Experiment = apps.get_model("experiments", "Experiment")
    TargetResult = apps.get_model("experiments", "TargetResult")
    counted = (
        TargetResult.objects.filter(experiment=OuterRef("pk"))
        .order_by()
        .values("experiment")
        .annotate(n=Count("pk"))
        .values("n")
    )
    Experiment.objects.filter(targets_done=0, target_results__isnull=False).distinct().update(
        targets_done=Coalesce(Subquery(counted, output_field=IntegerField()), Value(0))
    )


class Migration(migrations.Migration):
    dependencies = [
        ("experiments", "0023_chunk_calls_answered"),
    ]

    operations = [
        migrations.RunPython(targets_done_backfill, migrations.RunPython.noop, elidable=True),
    ]
