"""GarakImport derives from assay.bases.UploadJob (shared with EvalSetImport): its
`message_params` takes the base's help text. No change in the database."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("experiments", "0024_backfill_targets_done"),
    ]

    operations = [
        migrations.AlterField(
            model_name="garakimport",
            name="message_params",
            field=models.JSONField(
                blank=True,
                help_text="The message's {msgid, params[, plural, n]}, to translate it when read; "
                "null when stored as text only.",
                null=True,
            ),
        ),
    ]
