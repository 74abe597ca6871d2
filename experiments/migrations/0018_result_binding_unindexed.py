"""A result's binding loses its index and its database constraint (bytes per result, issue 19):

- the `(binding, position)` index goes (32 bytes a result): every read of one binding's results
  names its experiment too, so the unique key `(experiment, position, binding, repeat, turn)`
  serves it (the experiment leads, the binding is filtered in the index), as it serves the
  walk of an experiment's rows in order.
- the foreign key's constraint goes: checking it when a binding is deleted would look for the
  binding's results by the binding alone, a scan of every result without that index. Bindings
  go with their experiment, whose cascade takes the results by `experiment_id`; a binding
  deleted alone takes its results through `results_of_bindings_delete`, by (experiment,
  binding), never by the binding alone.
"""

from django.db import migrations, models

import experiments.models


class Migration(migrations.Migration):
    dependencies = [
        ("experiments", "0017_result_columns_packed"),
    ]

    operations = [
        migrations.RemoveIndex(
            model_name="result",
            name="result_binding_position",
        ),
        migrations.AlterField(
            model_name="result",
            name="binding",
            field=models.ForeignKey(
                db_constraint=False,
                db_index=False,
                on_delete=experiments.models.results_of_bindings_delete,
                related_name="results",
                to="experiments.evaluatorbinding",
            ),
        ),
    ]
