"""Writes of score configs: what reviewers are asked for."""

from __future__ import annotations

import math

from django.contrib.auth.models import AbstractBaseUser
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.utils.translation import gettext as _

from assay.models import Workspace
from assay.vocabulary import PairOutcome

from ..models import Label, ScoreConfig, ScoreKind

MAX_LABELS = 50
MAX_LABEL_CHARS = 100
MAX_RUBRIC_CHARS = 20_000
BOOLEAN_LABELS = [True, False]
PAIR_LABELS = [PairOutcome.A.value, PairOutcome.B.value, PairOutcome.TIE.value]  # the sides
# what a label given is checked against: fixed once there are labels
LABEL_SHAPE = ("labels", "ordered", "minimum", "maximum", "step")


def score_config_create(
    *, workspace: Workspace, user: AbstractBaseUser | None, fields: dict
) -> ScoreConfig:
    """A new score config; every problem is named by its field and nothing is saved."""
    return _config_save(ScoreConfig(workspace=workspace, created_by=user), fields)


def score_config_update(*, config: ScoreConfig, fields: dict) -> ScoreConfig:
    """Change a config (only what `fields` holds); its kind is fixed once it exists, and its
    labels and range once reviewers have labelled with it, since their labels would no longer
    be of one shape."""
    if "kind" in fields and fields["kind"] != config.kind:
        raise ValidationError({"kind": [_("A score config's kind cannot change: make a new one.")]})
    changed = [f for f in LABEL_SHAPE if f in fields and fields[f] != getattr(config, f)]
    # the labels given already were checked against the old shape, and agreement compares them
    if changed and Label.objects.filter(score_config=config).exists():
        message = _("Reviewers have labelled with this config: its labels and range stay.")
        raise ValidationError({field: [message] for field in changed})
    config = _config_save(config, fields)
    if {"pass_labels", "fail_labels"} & set(fields):  # the gold labels mean other verdicts
        from .gold import gold_calibrations_refresh  # gold imports this module

        for queue in config.queues.all():
            gold_calibrations_refresh(queue=queue)
    return config


def score_config_delete(*, config: ScoreConfig) -> None:
    """Delete a config; refused while a queue asks for it (its labels would go with it)."""
    if config.queues.exists():
        raise ValidationError(_("A queue uses this score config: remove it from the queue first."))
    config.delete()


def _config_save(config: ScoreConfig, fields: dict) -> ScoreConfig:
    for name in ScoreConfig.SETTINGS:
        if name in fields:
            setattr(config, name, fields[name])
    config.name = (config.name or "").strip()
    errors = config_problems(config)
    if errors:
        raise ValidationError(errors)
    try:
        with transaction.atomic():
            config.save()
    except IntegrityError:
        raise ValidationError({"name": [_("A score config of that name exists.")]}) from None
    return config


def config_problems(config: ScoreConfig) -> dict[str, list[str]]:
    """Every problem of a config, by field."""
    errors: dict[str, list[str]] = {}
    if not config.name:
        errors["name"] = [_("Give the score config a name.")]
    if len(config.rubric or "") > MAX_RUBRIC_CHARS:
        errors["rubric"] = [_("A rubric holds at most 20,000 characters.")]
    if config.kind == ScoreKind.CATEGORICAL:
        _labels_problems(config.labels, errors)
    elif config.kind == ScoreKind.NUMERIC:
        _range_problems(config, errors)
    _verdict_problems(config, errors)
    return errors


def _labels_problems(labels, errors: dict) -> None:
    if not isinstance(labels, list) or not 2 <= len(labels) <= MAX_LABELS:
        errors["labels"] = [_("A categorical config has between 2 and 50 labels.")]
    elif not all(isinstance(x, str) and 0 < len(x.strip()) <= MAX_LABEL_CHARS for x in labels):
        errors["labels"] = [_("Each label is a text of 1 to 100 characters.")]
    elif len({x.strip() for x in labels}) != len(labels):
        errors["labels"] = [_("Labels must differ from each other.")]


def _range_problems(config: ScoreConfig, errors: dict) -> None:
    bounds = (config.minimum, config.maximum)
    if any(b is None or not math.isfinite(b) for b in bounds):
        errors["minimum"] = [_("A numeric config needs a minimum and a maximum.")]
    elif config.minimum >= config.maximum:
        errors["maximum"] = [_("The maximum must be above the minimum.")]
    if config.step is not None and not (math.isfinite(config.step) and config.step > 0):
        errors["step"] = [_("The step must be above 0.")]


def _verdict_problems(config: ScoreConfig, errors: dict) -> None:
    """Pass and fail labels must be labels of the config, and never both."""
    passes, fails = config.pass_labels or [], config.fail_labels or []
    if not (passes or fails):
        return
    if config.kind in (ScoreKind.NUMERIC, ScoreKind.TEXT, ScoreKind.PAIRWISE):
        errors["pass_labels"] = [_("Only boolean and categorical configs map to a verdict.")]
        return
    known = BOOLEAN_LABELS if config.kind == ScoreKind.BOOLEAN else list(config.labels or [])
    for field, chosen in (("pass_labels", passes), ("fail_labels", fails)):
        if not isinstance(chosen, list) or any(x not in known for x in chosen):
            errors[field] = [_("Use labels of this config.")]
    if (
        isinstance(passes, list)
        and isinstance(fails, list)
        and set(map(str, passes)) & set(map(str, fails))
    ):
        errors["fail_labels"] = [_("A label cannot mean both pass and fail.")]


def label_problem(config: ScoreConfig, value) -> str | None:
    """Why `value` is not a label of `config` (None: it is; None as a value means unknown)."""
    if value is None:
        return None
    if config.kind == ScoreKind.BOOLEAN and not isinstance(value, bool):
        return _("Answer true or false.")
    if config.kind == ScoreKind.CATEGORICAL and value not in config.labels:
        return _("Use one of this config's labels.")
    if config.kind == ScoreKind.NUMERIC:
        return _number_problem(config, value)
    if config.kind == ScoreKind.TEXT and not (isinstance(value, str) and len(value) <= 20_000):
        return _("Answer with a text of at most 20,000 characters.")
    if config.kind == ScoreKind.PAIRWISE and value not in PAIR_LABELS:
        return _("Answer A, B or tie (the sides, not where they were shown).")
    return None


def _number_problem(config: ScoreConfig, value) -> str | None:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        return _("Answer with a number.")
    if not config.minimum <= value <= config.maximum:
        return _("Answer with a number from %(low)s to %(high)s.") % {
            "low": number_shown(config.minimum),
            "high": number_shown(config.maximum),
        }
    if config.step and abs(
        round((value - config.minimum) / config.step) * config.step - (value - config.minimum)
    ) > 1e-9 * max(1.0, abs(value)):
        return _("Answer in steps of %(step)s.") % {"step": number_shown(config.step)}
    return None


def label_stored(config: ScoreConfig, value):
    """A valid label as it is stored: a whole number of a numeric config as an integer, so 5
    from the API and 5.0 from a form are one label (gold compares labels' JSON)."""
    if config.kind == ScoreKind.NUMERIC and isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def number_shown(value):
    """A number as people write it: 5, not 5.0; 2.5 as it is."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value
