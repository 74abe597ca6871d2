"""Runs that called their target before targets_done existed get it counted by the migration
that follows the column (0024), so the list's bar and the outputs' count are whole again."""

import importlib

from django.apps import apps

from experiments import scoring as engine
from experiments import services
from experiments.models import Experiment
from tests.experiments.test_http_target_retry import create

backfill = importlib.import_module("experiments.migrations.0024_backfill_targets_done")


def test_runs_from_before_the_counter_get_their_target_outputs_counted(workspace, user, app):
    experiment = engine.experiment_run_inline(experiment_id=create(workspace, user, app).pk)
    Experiment.objects.filter(pk=experiment.pk).update(targets_done=0)  # as 0022 left it
    # finished, yet its bar reads 12 of 12 results and 0 of 6 outputs
    assert Experiment.objects.get(pk=experiment.pk).progress_percent == 67
    untouched = services.experiment_clone(experiment=experiment, user=user)  # nothing to count
    backfill.targets_done_backfill(apps, None)
    experiment.refresh_from_db()
    assert experiment.targets_done == 6 and experiment.progress_percent == 100
    assert Experiment.objects.get(pk=untouched.pk).targets_done == 0
