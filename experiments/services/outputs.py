"""Target outputs that do not come from a worker: pushed by a client (external target)."""

from __future__ import annotations

import json
import uuid
from typing import Any, NamedTuple

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from assay.safety.caps import USAGE_MAXIMA, WHOLE_USAGE, UsageOutOfBounds, usage_bounded
from assay.selectors import as_uuid
from assay.vocabulary import ContentType, ResultStatus
from evalsets.models import EvalSetItem

from ..models import Experiment, ExperimentStatus
from ..scoring.chunks import target_row
from ..scoring.pushed import outputs_close, outputs_store

MAX_PUSH = 1000
PUSH_KEYS = {
    "item_id",
    "repeat",
    "actual_output",
    "trajectory",
    "latency_ms",
    "tokens_in",
    "tokens_out",
    "cost",
    "error",
}


def outputs_push(*, experiment: Experiment, outputs: Any) -> dict:
    """Store outputs a client computed for an external-target run: the first output of an
    (item, repetition) wins, a repeated push changes nothing, and each range of rows goes to
    the evaluators once its outputs are all in. All or nothing: one bad entry saves none."""
    _check_open(experiment)
    if not isinstance(outputs, list) or not 1 <= len(outputs) <= MAX_PUSH:
        raise ValidationError(
            {"outputs": [_("Give a list of 1 to %(max_push)s outputs.") % {"max_push": MAX_PUSH}]}
        )
    items = _items(experiment, outputs)
    rows, keys, errors = [], set(), {}
    for index, entry in enumerate(outputs):
        problem, item, repeat, fields = _entry(entry, items, experiment.repetitions)
        if problem:
            errors[f"outputs[{index}]"] = [problem]
            continue
        if (item.pk, repeat) not in keys:
            keys.add((item.pk, repeat))
            rows.append(target_row(experiment=experiment, item=item, repeat=repeat, fields=fields))
    if errors:
        raise ValidationError(errors)
    positions = {items[str(row.item_uid)].position for row in rows}
    with transaction.atomic():
        sent, stored = outputs_store(experiment=experiment, rows=rows, positions=positions)
        transaction.on_commit(lambda: _enqueue(sent))
    return {"accepted": stored, "duplicates": len(outputs) - stored}


def experiment_close(*, experiment: Experiment) -> Experiment:
    """No more outputs will come: rows without one are scored as unknown ("no output"), the
    run completes once the evaluators are done, and later pushes are refused. Closing again
    changes nothing."""
    _check_open(experiment, closing=True)
    with transaction.atomic():
        Experiment.objects.filter(pk=experiment.pk, outputs_closed_at__isnull=True).update(
            outputs_closed_at=timezone.now()
        )
        sent = outputs_close(experiment=experiment)
        transaction.on_commit(lambda: _enqueue(sent))
    experiment.refresh_from_db()
    return experiment


def experiment_rescore(
    *,
    experiment: Experiment,
    user,
    bindings: list[dict],
    name: str = "",
    launch: bool = True,
) -> Experiment:
    """Score a finished run's target outputs again with other evaluator versions, without
    calling its target: a new run on the same evalset version and repetitions, which records
    its source and compares paired with it."""
    from .runs import experiment_create

    return experiment_create(
        workspace=experiment.workspace,
        user=user,
        name=name or f"{experiment.name} (re-scored)",
        evalset_version=experiment.evalset_version,
        bindings=bindings,
        target={"kind": "rescore", "experiment": str(experiment.public_id)},
        concurrency=experiment.concurrency,
        chunk_size=experiment.chunk_size,
        repetitions=experiment.repetitions,
        launch=launch,
    )


def target_test(
    *, workspace, evalset_version, target: dict | None, item_id=None, user=None
) -> dict:
    """Run a target on one row (the given item, else the first) and return what was sent, what
    came back and what was taken out of it; nothing is stored. For the "Test request" button."""
    from .runs import target_validated

    errors: dict = {}
    kind, config = target_validated(workspace, target, evalset_version, errors)
    if errors:
        raise ValidationError(errors)
    probe = Experiment(
        workspace=workspace, evalset_version=evalset_version, target_kind=kind, target_config=config
    )
    spec = probe.target_spec
    if not spec.produces_output or not spec.runs_on_workers:
        raise ValidationError(
            {"target": _("A %(kind)s target has no request to test.") % {"kind": kind}}
        )
    item = _test_item(evalset_version, item_id)
    [fields] = spec.run_batch(experiment=probe, items=[item], repeat=0, cancel=None)
    row = target_row(experiment=probe, item=item, repeat=0, fields=fields)
    return {
        "item_id": str(item.item_id),
        "request": row.rendered_request,
        "response": row.raw_response,
        "status": row.status,
        "actual_output": row.output,
        "trajectory": row.trajectory,
        "error": row.error,
        "latency_ms": row.latency_ms,
        "tokens_in": row.tokens_in,
        "tokens_out": row.tokens_out,
        "cost": row.cost,
    }


def _test_item(evalset_version, item_id) -> EvalSetItem:
    items = EvalSetItem.objects.filter(version=evalset_version)
    found = (
        items.filter(item_id=as_uuid(item_id)).first()
        if item_id
        else items.order_by("position").first()
    )
    if found is None:
        raise ValidationError({"item_id": _("No such row in this evalset version.")})
    return found


def _check_open(experiment: Experiment, *, closing: bool = False) -> None:
    if experiment.target_spec.runs_on_workers:
        raise ValidationError(
            {"target": _("This experiment's outputs are computed by its target.")}
        )
    if experiment.status not in (ExperimentStatus.QUEUED, ExperimentStatus.RUNNING):
        raise ValidationError(
            {
                "status": _("The experiment is %(status)s; it takes no outputs now.")
                % {"status": experiment.status}
            }
        )
    if experiment.cancel_requested:
        raise ValidationError({"status": _("The experiment is being cancelled.")})
    if experiment.outputs_closed_at and not closing:
        raise ValidationError({"status": _("The experiment was closed; it takes no more outputs.")})


def _enqueue(chunks) -> None:
    from ..tasks import enqueue_chunks

    enqueue_chunks(chunks)


class _PushedItem(NamedTuple):
    """What a push needs of an item (model instances cost more than the rest of a push)."""

    pk: int
    item_id: uuid.UUID
    position: int


def _items(experiment: Experiment, outputs: list) -> dict[str, _PushedItem]:
    ids = {as_uuid(e.get("item_id")) for e in outputs if isinstance(e, dict)} - {None}
    found = EvalSetItem.objects.filter(
        version_id=experiment.evalset_version_id, item_id__in=ids
    ).values_list("id", "item_id", "position")
    return {str(item_id): _PushedItem(pk, item_id, position) for pk, item_id, position in found}


def _entry(entry, items, repetitions) -> tuple[str, Any, int, dict]:
    """(problem, item, repetition, TargetResult fields) of one pushed output."""
    if not isinstance(entry, dict):
        return _("Each output is an object with item_id and actual_output."), None, 0, {}
    unknown = set(entry) - PUSH_KEYS
    if unknown:
        names = ", ".join(sorted(unknown))
        return _("Unknown field(s): %(names)s.") % {"names": names}, None, 0, {}
    item = items.get(str(as_uuid(entry.get("item_id"))))
    if item is None:
        return _("item_id is not a row of this experiment's evalset version."), None, 0, {}
    repeat = entry.get("repeat", 0)
    if not _whole(repeat) or not 0 <= repeat < repetitions:
        return (
            _("repeat must be a whole number from 0 to %(repetitions)s.")
            % {"repetitions": repetitions - 1},
            None,
            0,
            {},
        )
    problem, fields = _fields(entry)
    return problem, item, repeat, fields


def _fields(entry: dict) -> tuple[str, dict]:
    output, error = entry.get("actual_output"), entry.get("error")
    if error is not None and not isinstance(error, str):
        return _("error must be text."), {}
    text = _text(output)
    if text is None and not error:
        return _("Give actual_output as text or a Text content object (or an error)."), {}
    usage, problem = _usage(entry)
    if problem:
        return problem, {}
    failed = text is None
    trajectory = entry.get("trajectory")
    return "", {
        "status": ResultStatus.ERROR if failed else ResultStatus.SUCCESS,
        "output": text or "",
        "error": (error or "") if failed else "",
        "trajectory": _trajectory(trajectory),
        "latency_ms": usage.get("latency_ms", 0.0),
        "tokens_in": usage.get("tokens_in", 0),
        "tokens_out": usage.get("tokens_out", 0),
        "cost": usage.get("cost"),
    }


def _usage(entry: dict) -> tuple[dict, str]:
    """The entry's usage numbers within their bounds (`caps.USAGE_MAXIMA`), or the problem."""
    usage = {}
    for key in USAGE_MAXIMA:
        if entry.get(key) is None:
            continue
        try:
            usage[key] = usage_bounded(key, entry[key])
        except UsageOutOfBounds:
            message = (
                _("%(key)s must be a whole number from 0 to %(max)s.")
                if key in WHOLE_USAGE
                else _("%(key)s must be a number from 0 to %(max)s.")
            )
            return {}, message % {"key": key, "max": f"{USAGE_MAXIMA[key]:,}"}
    return usage, ""


def _text(output) -> str | None:
    if isinstance(output, str):
        return output
    if isinstance(output, dict) and output.get("content_type") == ContentType.TEXT:
        text = output.get("text")
        return text if isinstance(text, str) else None
    return None


def _trajectory(value) -> str | None:
    if value is None:
        return None
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def _whole(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)
