"""Importing a garak scan: a garak `report.jsonl` becomes, per probe of the run, an evalset
version with one row per (attempt, output), one evaluator per detector that reads the score
garak recorded, and an experiment whose verdicts are re-derived with the run's threshold.

garak does not write its threshold or confidence level into the report's setup entry, so
both come from its eval entries (garak_report.py): the level from `confidence`, the
threshold from the counts, held against the scores the attempts recorded; a threshold given
with the import must reproduce those counts too. A row keeps the attempt's prompt, goal,
triggers, intent and the output, its attempt id, seq and output index, garak's prompt and
output objects as written, and one `score_<detector>` column per detector that scored the
attempt ("none" where garak recorded no score). Each detector's binding applies only to the
rows whose attempt it scored (garak's per-detector attempt subsets), reads that column, and
judges it as garak's ThresholdEvaluator does (a hit when score ≥ threshold).

A row's item id is derived from its content (probe, prompt, output index), so two scans of
a probe pair only rows whose prompts are equal, whatever order a seed gave them. The run's
garak facts (run id, generator, generations, version, threshold) are kept on each binding's
`ext` for the hit log, and a run imported again is recognised by its run id.
"""

from __future__ import annotations

import hashlib
import json
import re
import uuid
from collections import Counter
from dataclasses import dataclass, field

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils.translation import gettext as _

from evalsets.items.cells import N_, Problem
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

from ..models import EvaluatorBinding, Experiment
from ..stats.interval_settings import interval_problems
from .garak_report import (
    Report,
    Scan,
    cut_note,
    garak_caps_check,
    garak_counts_check,
    garak_report_parse,
    prompt_text,
    threshold_choose,
)

READ_SCORE = '''def exec_evaluation(turn):
    """The score garak's detector recorded for this output (1 = hit); none: no score."""
    value = turn["evaluate_dataset_fields"]["score"]["text"].strip()
    if value == "none":
        return EvalOutput(score=None, reason="garak's detector recorded no score.")
    return EvalOutput(score=float(value), reason="The score garak's detector recorded.")
'''
TEXT_COLUMNS = ("prompt", "actual_output", "goal", "triggers", "intent")
ATTEMPT_COLUMNS = ("attempt_id", "attempt_seq", "attempt_idx")
# garak's prompt (a conversation) and output (a message) as it wrote them, for the hit log
GARAK_COLUMNS = ("garak_prompt", "garak_output")
ITEM_NAMESPACE = uuid.UUID("6f1d3c8e-4b7a-5e2f-9a10-7c3b2d1e0f4a")  # item ids of garak rows


class GarakImported(list):
    """The experiments of an import; `already` when the run had been imported before (the
    earlier experiments, nothing made), `notes` what the import says about the report."""

    def __init__(self, experiments, *, already: bool = False, notes: list[str] | None = None):
        super().__init__(experiments)
        self.already = already
        self.notes = notes or []


@dataclass
class GarakPlan:
    """A report read and held against itself and the caps: what importing it will make."""

    report: Report
    threshold: float
    notes: list[Problem]
    facts: dict
    earlier: list[Experiment] = field(default_factory=list)


def max_report_bytes() -> int:
    return settings.ASSAY_GARAK_MAX_REPORT_BYTES


def garak_upload_bytes(*, upload, limit: int | None = None) -> bytes:
    """An uploaded file's bytes, refused before reading when it is over the limit (a garak
    report's, unless given)."""
    limit = max_report_bytes() if limit is None else limit
    if upload.size > limit:
        raise ValidationError({"file": _too_large(upload.size, limit)})
    return upload.read()


def _too_large(size: int, limit: int) -> str:
    return _("The file is %(size)s bytes; at most %(limit)s bytes (%(mb)s MB) are taken.") % {
        "size": format(size, ","),
        "limit": format(limit, ","),
        "mb": limit // 2**20,
    }


def garak_report_read(*, data: bytes) -> Report:
    """The report, read and checked line by line; a ValidationError names what is wrong."""
    if len(data) > max_report_bytes():
        raise ValidationError({"file": _too_large(len(data), max_report_bytes())})
    return garak_report_parse(data=data)


def garak_import_plan(
    *,
    workspace,
    data: bytes,
    threshold: float | None = None,
    partial: bool = False,
    earlier: bool = True,
) -> GarakPlan:
    """Read a report and check everything an import of it needs before anything is made: its
    lines, the caps (probes, attempts, outputs, detectors per probe), garak's counts and the
    threshold, a cut report (unless `partial`), the setup's interval settings. With `earlier`,
    the experiments an earlier import of the same run made, if any."""
    from .runs import MAX_BINDINGS

    report = garak_report_read(data=data)
    garak_caps_check(report=report, max_bindings=MAX_BINDINGS)
    bounds = garak_counts_check(report=report, partial=partial)
    chosen = threshold_choose(bounds=bounds, given=_given(threshold, report))
    _interval_check(report)
    return GarakPlan(
        report=report,
        threshold=chosen,
        notes=_notes(report, bounds, chosen),
        facts=_facts(report, chosen),
        earlier=_earlier_import(workspace, report) if earlier else [],
    )


def garak_scan_import(
    *, workspace, user, data: bytes, threshold: float | None = None, partial: bool = False
) -> GarakImported:
    """Import a garak report at once: per probe, an evalset version, one evaluator per detector
    and a launched experiment (the workers score it; every row's score is garak's). The
    threshold and confidence level are garak's own, read from its eval entries (`threshold`,
    when given, must reproduce them); a report cut short is refused unless `partial`. A run
    imported before returns its experiments, marked `already`. The API and the page import in
    the background instead (garak_jobs.py), with the same plan and probe import."""
    plan = garak_import_plan(workspace=workspace, data=data, threshold=threshold, partial=partial)
    if plan.earlier:
        return GarakImported(plan.earlier, already=True)
    with transaction.atomic():
        made = [
            garak_probe_import(workspace=workspace, user=user, plan=plan, scan=scan)
            for scan in plan.report.scans.values()
        ]
    return GarakImported(made, notes=plan.notes)


def garak_probe_import(*, workspace, user, plan: GarakPlan, scan: Scan) -> Experiment:
    """One probe of a planned import: a new version of its evalset, its detectors' evaluators
    and a launched experiment."""
    from .runs import experiment_create

    report = plan.report
    version = _evalset_version(workspace, user, report, scan)
    suffix = " " + _("(partial)") if not report.completed else ""
    return experiment_create(
        workspace=workspace,
        user=user,
        name=f"{scan.probe} · garak {report.run_id[:8]}{suffix}"[:160],
        probe_name=scan.probe,
        description=" ".join(
            [f"Imported from garak run {report.run_id} ({report.generator}).", *plan.notes]
        ),
        evalset_version=version,
        bindings=[_binding(workspace, user, plan.facts, d) for d in scan.detectors],
        interval=_garak_interval(report),
        launch=True,
    )


def _interval_check(report: Report) -> None:
    """The setup entry's interval settings must be ones a run takes (a seed or a number of
    resamples out of range would fail the run later)."""
    problems = interval_problems(_garak_interval(report))
    if problems:
        raise ValidationError(
            {
                "file": _("Line %(line)s, garak's setup entry: %(problems)s")
                % {"line": report.setup_line, "problems": " ".join(problems)}
            }
        )


def _given(threshold: float | None, report: Report) -> float | None:
    """The threshold asked for, else the setup's (garak writes it only when a config file set
    it as a whole number: the CLI's --eval_threshold is a float, and floats are dropped)."""
    written = report.setup.get("run.eval_threshold")
    if threshold is None and isinstance(written, int | float) and not isinstance(written, bool):
        return float(written)
    return threshold


def _facts(report: Report, threshold: float) -> dict:
    """What the hit log and a second import need to know of the run (strings: `ext`)."""
    facts = {
        "garak_run_id": report.run_id,
        "garak_generator": report.generator,
        "garak_version": report.garak_version,
        "garak_threshold": repr(threshold),
        "garak_partial": "" if report.completed else "true",
        "garak_attempts": str(report.attempts),
    }
    if report.generations is not None:
        facts["garak_generations"] = str(report.generations)
    return facts


def _notes(report: Report, bounds, threshold: float) -> list[Problem]:
    """What the import says of the report: how the threshold was read, and a partial run's
    note; message ids kept, so a job page shows them in its reader's language."""
    params = {"threshold": threshold, "bounds": bounds.text()}
    notes = [
        Problem(
            N_("Threshold %(threshold)s: any value in %(bounds)s gives garak's eval counts."),
            params,
        )
    ]
    if not bounds.checked:
        notes[0] = Problem(
            N_(
                "Threshold %(threshold)s, not checked: the report has no eval entries to check "
                "it against."
            ),
            {"threshold": threshold},
        )
    if not report.completed:
        notes.append(cut_note(report))
    return notes


def _earlier_import(workspace, report: Report) -> list[Experiment]:
    """The experiments an earlier import of this run (the same attempts) made, if every probe
    of it has one; a partial import does not stand for the whole run."""
    if not report.run_id:
        return []
    bindings = EvaluatorBinding.objects.filter(
        experiment__workspace=workspace,
        ext__garak_run_id=report.run_id,
        ext__garak_attempts=_facts(report, 0.5)["garak_attempts"],
        ext__garak_partial="" if report.completed else "true",
    ).select_related("experiment")
    found = {b.experiment.probe_name: b.experiment for b in bindings}
    if set(found) != set(report.scans):
        return []
    return [found[probe] for probe in report.scans]


def _garak_interval(report: Report) -> dict:
    """The run's own interval settings, replayed with garak's resampling and seed so the
    imported run's bounds are garak's, bit for bit. The level comes from the eval entries:
    garak does not write it into the setup entry."""
    setup = report.setup
    reported = {
        "method": setup.get("reporting.confidence_interval_method"),
        "iterations": setup.get("reporting.bootstrap_num_iterations"),
        "confidence": report.confidence or setup.get("reporting.bootstrap_confidence_level"),
        "min_sample": setup.get("reporting.bootstrap_min_sample_size"),
        "seed": setup.get("run.seed"),
    }
    interval = {k: v for k, v in reported.items() if v is not None}
    if interval.get("method") not in ("bootstrap", None):
        interval["method"] = "none"
    return {**interval, "exact_garak": True}


def score_column(detector: str) -> str:
    return "score_" + re.sub(r"[^A-Za-z0-9_]", "_", detector)[:56]


def _evalset_version(workspace, user, report: Report, scan: Scan):
    """A new version of the probe's evalset ("garak <probe>") holding exactly this scan's
    rows. A row's item id is its content's (probe, prompt, output index), so scans pair by
    prompt: a row already in the draft is updated, the others are created with their id."""
    evalset = _probe_evalset(workspace, user, scan)
    rows = _scan_rows(scan)
    known = _draft_ids(evalset)
    update = [row for row in rows if row["item_id"] in known]
    create = [row for row in rows if row["item_id"] not in known]
    delete = list(known - {row["item_id"] for row in rows})
    for start in range(0, max(len(update), len(create), len(delete)), MAX_BULK):
        window = slice(start, start + MAX_BULK)
        items_bulk(
            evalset=evalset, create=create[window], update=update[window], delete=delete[window]
        )
    return version_commit(
        evalset=evalset,
        user=user,
        version=next_version(evalset),
        note=f"garak run {report.run_id}",
        inline=True,  # the scan's experiment pins it at once
    )


def _probe_evalset(workspace, user, scan: Scan):
    from evalsets.models import EvalSet

    wanted = [
        *TEXT_COLUMNS,
        *ATTEMPT_COLUMNS,
        *GARAK_COLUMNS,
        *(score_column(d) for d in scan.detectors),
    ]
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


def _draft_ids(evalset) -> set[str]:
    from evalsets.models import draft_filter

    return {str(i) for i in evalset.items.filter(draft_filter()).values_list("item_id", flat=True)}


def _scan_rows(scan: Scan) -> list[dict]:
    """Every output of every attempt as a row; a prompt the scan asks more than once counts
    its occurrences, so each of its rows keeps an id of its own."""
    seen: Counter = Counter()
    rows = []
    for attempt in scan.attempts:
        key = _prompt_key(attempt.get("prompt"))
        seen[key] += 1
        rows += _rows(attempt, scan.probe, f"{key}\x00{seen[key]}")
    return rows


def _prompt_key(prompt) -> str:
    """The prompt's content: each turn's role and text (not garak's per-run notes)."""
    turns = (prompt or {}).get("turns") or []
    parts = [
        [t.get("role"), (t.get("content") or {}).get("text")]
        for t in turns
        if isinstance(t, dict) and isinstance(t.get("content") or {}, dict)
    ]
    return json.dumps(parts, ensure_ascii=False)


def _item_id(probe: str, key: str, index: int) -> str:
    digest = hashlib.sha256(f"{probe}\x00{key}\x00{index}".encode()).hexdigest()
    return str(uuid.uuid5(ITEM_NAMESPACE, digest))


def _rows(attempt: dict, probe: str, key: str) -> list[dict]:
    """One row per output of the attempt."""
    results = attempt["detector_results"]
    rows = []
    for index, output in enumerate(attempt.get("outputs") or []):
        text = output.get("text") if isinstance(output, dict) else None
        cells = {
            "prompt": prompt_text(attempt.get("prompt")),
            "actual_output": text,
            "goal": attempt.get("goal"),
            "triggers": _triggers(attempt),
            "intent": attempt.get("intent"),
            "attempt_id": attempt.get("uuid"),
            "attempt_seq": str(attempt["seq"]),
            "attempt_idx": str(index),
            "garak_prompt": None if attempt["as_text"] else _json(attempt.get("prompt")),
            "garak_output": None if attempt["as_text"] else _json(output),
        }
        for detector, scores in results.items():
            score = scores[index] if index < len(scores) else None
            cells[score_column(detector)] = "none" if score is None else repr(float(score))
        data = {k: v for k, v in cells.items() if isinstance(v, str) and v != ""}
        if text == "":  # an empty answer is an answer: keep it, as content
            data["actual_output"] = {"content_type": "Text", "text": ""}
        intent = attempt.get("intent")
        rows.append(
            {
                "item_id": _item_id(probe, key, index),
                "data": data,
                "tags": [intent] if isinstance(intent, str) and intent else [],
            }
        )
    return rows


def _json(value) -> str | None:
    return None if value is None else json.dumps(value, ensure_ascii=False)


def _triggers(attempt: dict) -> str | None:
    notes = attempt.get("notes")
    triggers = notes.get("triggers") if isinstance(notes, dict) else None
    return json.dumps(triggers, ensure_ascii=False) if triggers is not None else None


def _binding(workspace, user, facts: dict, detector: str) -> dict:
    column = score_column(detector)
    return {
        "evaluator_version": _detector_version(workspace, user, detector),
        "mapping": {"score": f"column:{column}"},
        "policy": {"kind": "threshold", "threshold": float(facts["garak_threshold"])},
        "ext": {"detector": detector, **facts},
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
