"""Importing a garak scan: a garak `report.jsonl` becomes, per probe of the run, an evalset
version with one row per (attempt, output), one evaluator per detector that reads the score
garak recorded, and an experiment whose verdicts are re-derived with the run's threshold.

A row keeps the attempt's prompt, goal, triggers, intent and the output, its attempt id, seq
and output index, and one `score_<detector>` column per detector that scored the attempt
("none" where garak recorded no score). Each detector's binding applies only to the rows
whose attempt it scored (garak's per-detector attempt subsets), reads that column, and
judges it as garak's ThresholdEvaluator does (a hit when score ≥ threshold). The dashboard,
intervals, per-intent table, compare, exports and console then work on the scan; two scans
of the same probes compare paired (rows match by attempt seq and output index).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils.translation import gettext as _

from evalsets.services import (
    MAX_BULK,
    evalset_create,
    evalset_set_columns,
    items_bulk,
    next_version,
    version_commit,
)
from evaluators.models import Evaluator
from evaluators.services import evaluator_create, evaluator_submit_version

from ..models import Experiment

MAX_REPORT_BYTES = 64 * 1024 * 1024
EVALUATED = 2  # garak's attempt status once detectors have scored it
READ_SCORE = '''def exec_evaluation(turn):
    """The score garak's detector recorded for this output (1 = hit); none: no score."""
    value = turn["evaluate_dataset_fields"]["score"]["text"].strip()
    if value == "none":
        return EvalOutput(score=None, reason="garak's detector recorded no score.")
    return EvalOutput(score=float(value), reason="The score garak's detector recorded.")
'''
TEXT_COLUMNS = ("prompt", "actual_output", "goal", "triggers", "intent")
ATTEMPT_COLUMNS = ("attempt_id", "attempt_seq", "attempt_idx")


@dataclass
class Scan:
    """One probe of a garak run, read from its report."""

    run_id: str
    probe: str
    threshold: float
    generator: str
    interval: dict = field(default_factory=dict)
    attempts: list[dict] = field(default_factory=list)

    @property
    def detectors(self) -> list[str]:
        return sorted({d for a in self.attempts for d in a.get("detector_results") or {}})


def garak_upload_bytes(*, upload, limit: int = MAX_REPORT_BYTES) -> bytes:
    """An uploaded file's bytes, refused before reading when it is over the limit."""
    if upload.size > limit:
        raise ValidationError(
            {"file": _("The file is at most %(limit)s MB.") % {"limit": limit // 2**20}}
        )
    return upload.read()


def garak_report_read(*, data: bytes) -> list[Scan]:
    """The scans (one per probe) of a garak report; a ValidationError names what is wrong."""
    if len(data) > MAX_REPORT_BYTES:
        raise ValidationError(
            {
                "file": _("The file is at most %(max_report_bytes)s MB.")
                % {"max_report_bytes": MAX_REPORT_BYTES // 2**20}
            }
        )
    setup, scans = {}, {}
    for number, line in enumerate(data.decode("utf-8", "replace").splitlines(), 1):
        entry = _entry(line, number)
        kind = entry.get("entry_type")
        if kind == "start_run setup":
            setup = entry
        elif kind == "attempt" and entry.get("status") == EVALUATED:
            _scan_for(scans, setup, entry["probe_classname"]).attempts.append(entry)
    if not scans:
        raise ValidationError({"file": _("No scored attempts: is this a garak report.jsonl?")})
    return list(scans.values())


def _entry(line: str, number: int) -> dict:
    try:
        entry = json.loads(line) if line.strip() else {}
    except ValueError:
        raise ValidationError({"file": f"Line {number} is not JSON."}) from None
    if not isinstance(entry, dict):
        raise ValidationError(
            {"file": _("Line %(number)s is not a JSON object.") % {"number": number}}
        )
    return entry


def _scan_for(scans: dict, setup: dict, probe: str) -> Scan:
    if probe not in scans:
        target = f"{setup.get('plugins.target_type')} {setup.get('plugins.target_name')}"
        scans[probe] = Scan(
            run_id=str(setup.get("transient.run_id") or "unknown"),
            probe=probe,
            threshold=float(setup.get("run.eval_threshold", 0.5)),
            generator=target,
            interval=_garak_interval(setup),
        )
    return scans[probe]


def _garak_interval(setup: dict) -> dict:
    """The run's own interval settings, replayed with garak's resampling and seed so the
    imported run's bounds are garak's, bit for bit."""
    reported = {
        "method": setup.get("reporting.confidence_interval_method"),
        "iterations": setup.get("reporting.bootstrap_num_iterations"),
        "confidence": setup.get("reporting.bootstrap_confidence_level"),
        "min_sample": setup.get("reporting.bootstrap_min_sample_size"),
        "seed": setup.get("run.seed"),
    }
    interval = {k: v for k, v in reported.items() if v is not None}
    if interval.get("method") not in ("bootstrap", None):
        interval["method"] = "none"
    return {**interval, "exact_garak": True}


def garak_scan_import(*, workspace, user, data: bytes) -> list[Experiment]:
    """Import a garak report: per probe, an evalset version, one evaluator per detector and a
    launched experiment (the workers score it; every row's score is garak's)."""
    from .runs import experiment_create

    scans = garak_report_read(data=data)
    made = []
    with transaction.atomic():
        for scan in scans:
            version = _evalset_version(workspace, user, scan)
            made.append(
                experiment_create(
                    workspace=workspace,
                    user=user,
                    name=f"{scan.probe} · garak {scan.run_id[:8]}",
                    probe_name=scan.probe,
                    description=f"Imported from garak run {scan.run_id} ({scan.generator}).",
                    evalset_version=version,
                    bindings=[_binding(workspace, user, scan, d) for d in scan.detectors],
                    interval=scan.interval,
                    launch=True,
                )
            )
    return made


def score_column(detector: str) -> str:
    return "score_" + re.sub(r"[^A-Za-z0-9_]", "_", detector)[:56]


def _evalset_version(workspace, user, scan: Scan):
    """A new version of the probe's evalset ("garak <probe>"): a row keeps its item id from
    scan to scan (matched by attempt seq and output index), so scans compare paired."""
    evalset = _probe_evalset(workspace, user, scan)
    rows = [row for attempt in scan.attempts for row in _rows(attempt, scan)]
    known = _draft_rows(evalset)
    update, create = [], []
    for row in rows:
        item_id = known.pop(_key(row["data"]), None)
        (update if item_id else create).append({**row, "item_id": item_id} if item_id else row)
    delete = list(known.values())
    for start in range(0, max(len(update), len(create), len(delete)), MAX_BULK):
        window = slice(start, start + MAX_BULK)
        items_bulk(
            evalset=evalset, create=create[window], update=update[window], delete=delete[window]
        )
    return version_commit(
        evalset=evalset,
        user=user,
        version=next_version(evalset),
        note=f"garak run {scan.run_id}",
        inline=True,  # the scan's experiment pins it at once
    )


def _probe_evalset(workspace, user, scan: Scan):
    from evalsets.models import EvalSet

    wanted = [*TEXT_COLUMNS, *ATTEMPT_COLUMNS, *(score_column(d) for d in scan.detectors)]
    name = f"garak {scan.probe}"
    evalset = EvalSet.objects.filter(
        workspace=workspace, name=name, deleted_at__isnull=True
    ).first()
    if evalset is None:
        return evalset_create(
            workspace=workspace,
            user=user,
            name=name,
            description=f"Attempts of garak's {scan.probe} probe, one row per output, with each "
            "detector's recorded score; a version per imported run.",
            columns=[_column(c) for c in wanted],
        )
    have = {c["name"] for c in evalset.columns}
    missing = [_column(c) for c in wanted if c not in have]
    return (
        evalset_set_columns(evalset=evalset, columns=[*evalset.columns, *missing])
        if missing
        else evalset
    )


def _column(name: str) -> dict:
    return {"name": name, "content_type": "Text", "required": False, "description": ""}


def _draft_rows(evalset) -> dict:
    """(attempt seq, output index) → item id of the draft's rows."""
    from evalsets.models import draft_filter

    rows = evalset.items.filter(draft_filter()).values_list("item_id", "data")
    return {_key(data): str(item_id) for item_id, data in rows}


def _key(data: dict) -> tuple:
    def text(name):
        cell = data.get(name)
        return cell.get("text") if isinstance(cell, dict) else cell

    return text("attempt_seq"), text("attempt_idx")


def _rows(attempt: dict, scan: Scan) -> list[dict]:
    """One row per output of the attempt."""
    results = attempt.get("detector_results") or {}
    rows = []
    for index, output in enumerate(attempt.get("outputs") or []):
        cells = {
            "prompt": _prompt_text(attempt.get("prompt")),
            "actual_output": (output or {}).get("text") if isinstance(output, dict) else None,
            "goal": attempt.get("goal"),
            "triggers": _triggers(attempt),
            "intent": attempt.get("intent"),
            "attempt_id": attempt.get("uuid"),
            "attempt_seq": str(attempt.get("seq", "")),
            "attempt_idx": str(index),
        }
        for detector, scores in results.items():
            score = scores[index] if index < len(scores) else None
            cells[score_column(detector)] = "none" if score is None else repr(float(score))
        data = {k: v for k, v in cells.items() if v not in (None, "")}
        if cells["actual_output"] == "":  # an empty answer is an answer: keep it, as content
            data["actual_output"] = {"content_type": "Text", "text": ""}
        rows.append({"data": data, "tags": [attempt["intent"]] if attempt.get("intent") else []})
    return rows


def _prompt_text(prompt) -> str | None:
    turns = (prompt or {}).get("turns") or [] if isinstance(prompt, dict) else []
    if not turns:
        return None
    return ((turns[-1] or {}).get("content") or {}).get("text")


def _triggers(attempt: dict) -> str | None:
    triggers = (attempt.get("notes") or {}).get("triggers")
    return json.dumps(triggers, ensure_ascii=False) if triggers is not None else None


def _binding(workspace, user, scan: Scan, detector: str) -> dict:
    column = score_column(detector)
    return {
        "evaluator_version": _detector_version(workspace, user, detector),
        "mapping": {"score": f"column:{column}"},
        "policy": {"kind": "threshold", "threshold": scan.threshold},
        "ext": {"detector": detector},
        "applies_to": {"column": column},
    }


def _detector_version(workspace, user, detector: str):
    """The workspace's evaluator for this garak detector (made on its first import)."""
    name = f"garak: {detector}"
    evaluator = Evaluator.objects.filter(workspace=workspace, name=name).first()
    if evaluator is not None and evaluator.versions.exists():
        return evaluator.versions.order_by("-created_at").first()
    variable = {"name": "score", "content_type": "Text", "required": True, "description": ""}
    evaluator = evaluator or evaluator_create(
        workspace=workspace,
        user=user,
        name=name,
        kind="code",
        language="python",
        score_meaning="risk",
        description=f"Reads the scores garak's {detector} detector recorded (1 = hit).",
        tags=["garak"],
        config={
            "input_variables": [variable],
            "language": "python",
            "source": READ_SCORE,
            "timeout_s": 5.0,
            "memory_mb": 256,
        },
    )
    return evaluator_submit_version(
        evaluator=evaluator, user=user, version="1.0.0", change_note="garak import"
    )


# ----------------------------------------------------------------------------- reference data

MAX_REFERENCE_BYTES = 16 * 1024 * 1024


def garak_reference_upload(*, workspace, name: str, data: bytes):
    """Store a garak calibration file (garak/data/calibration/*.json) or its detector-metrics
    file (detector_metrics_summary.json), told apart by their shape. Calibrations then rate
    runs whose probe/detector names match; metrics correct those detectors' intervals."""
    from ..models import GarakReference

    if len(data) > MAX_REFERENCE_BYTES:
        raise ValidationError({"file": _("A garak reference file is at most 16 MB.")})
    try:
        parsed = json.loads(data)
    except ValueError:
        raise ValidationError({"file": "The file is not JSON."}) from None
    kind, entries = _reference_entries(parsed)
    return GarakReference.objects.create(
        workspace=workspace, kind=kind, name=(name or "garak")[:200], entries=entries
    )


def _reference_entries(parsed) -> tuple[str, dict]:
    from ..models import GarakReference

    if isinstance(parsed, dict) and isinstance(parsed.get("results"), dict):
        metrics = {
            detector.removeprefix("detector."): _se_sp(value)
            for detector, value in parsed["results"].items()
        }
        return GarakReference.Kind.DETECTOR_METRICS, {k: v for k, v in metrics.items() if v}
    if isinstance(parsed, dict):
        distributions = {
            key: {"mu": float(v["mu"]), "sigma": float(v["sigma"])}
            for key, v in parsed.items()
            if "/" in key and isinstance(v, dict) and _numbers(v.get("mu"), v.get("sigma"))
        }
        if distributions:
            return GarakReference.Kind.CALIBRATION, distributions
    raise ValidationError(
        {"file": "Neither a garak calibration (probe/detector → mu, sigma) nor detector metrics."}
    )


def _se_sp(value) -> dict | None:
    metrics = (value or {}).get("metrics") if isinstance(value, dict) else None
    se, sp = (metrics or {}).get("hit_sensitivity"), (metrics or {}).get("hit_specificity")
    if not _numbers(se, sp) or not (0 <= se <= 1 and 0 <= sp <= 1):
        return None
    return {"sensitivity": float(se), "specificity": float(sp)}


def _numbers(*values) -> bool:
    return all(isinstance(v, int | float) and not isinstance(v, bool) for v in values)
