"""Streamed exports of an experiment: results as CSV / JSONL, garak-style report and hitlog."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterator

from assay.safety.csvcells import csv_safe_row
from assay.vocabulary import Verdict
from evaluators.turns import turn_output

from ..models import Experiment, Result

CSV_FIELDS = [
    "item_id",
    "position",
    "repeat",
    "tags",
    "evaluator",
    "evaluator_version",
    "status",
    "verdict",
    "evaluator_verdict",
    "human_verdict",
    "score",
    "reason",
    "error",
    "stdout",
    "latency_ms",
    "tokens_in",
    "tokens_out",
    "cost",
    "correction_note",
    "input",
]
FORMATS = ("csv", "jsonl", "report", "hitlog")


def export_stream(experiment: Experiment, fmt: str) -> Iterator[str]:
    """The chosen export as an iterator of text chunks (for StreamingHttpResponse / files)."""
    return {
        "csv": results_csv,
        "jsonl": results_jsonl,
        "report": report_jsonl,
        "hitlog": hitlog_jsonl,
    }[fmt](experiment)


def export_filename(experiment: Experiment, fmt: str) -> str:
    suffix = {
        "csv": "results.csv",
        "jsonl": "results.jsonl",
        "report": "report.jsonl",
        "hitlog": "hitlog.jsonl",
    }[fmt]
    return f"experiment-{experiment.public_id}-{suffix}"


def _results(experiment: Experiment):
    return (
        Result.objects.filter(experiment=experiment)
        .select_related("binding__evaluator_version__evaluator")
        .order_by("position", "repeat", "binding_id")
        .iterator(chunk_size=2000)
    )


def _row(result: Result) -> dict:
    version = result.binding.evaluator_version
    return {
        "item_id": str(result.item_uid),
        "position": result.position,
        "repeat": result.repeat,
        "tags": result.tags,
        "evaluator": version.evaluator.name,
        "evaluator_version": version.version,
        "status": result.status,
        "verdict": result.final_verdict,
        "evaluator_verdict": result.verdict,
        "human_verdict": result.human_verdict or None,
        "score": result.human_score
        if result.human_verdict and result.human_score is not None
        else result.score,
        "reason": result.reason,
        "error": result.error,
        "stdout": result.stdout,
        "latency_ms": round(result.latency_ms, 3),
        "tokens_in": result.tokens_in,
        "tokens_out": result.tokens_out,
        "cost": result.cost,
        "correction_note": result.correction_note,
        "input": result.input,
    }


def results_csv(experiment: Experiment) -> Iterator[str]:
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=CSV_FIELDS)
    writer.writeheader()
    yield _drain(buffer)
    for result in _results(experiment):
        row = _row(result)
        row["tags"] = ",".join(row["tags"] or [])
        row["input"] = json.dumps(row["input"], ensure_ascii=False)
        writer.writerow(csv_safe_row(row))
        yield _drain(buffer)


def _drain(buffer: io.StringIO) -> str:
    text = buffer.getvalue()
    buffer.seek(0)
    buffer.truncate()
    return text


def results_jsonl(experiment: Experiment) -> Iterator[str]:
    for result in _results(experiment):
        yield json.dumps(_row(result), ensure_ascii=False) + "\n"


def report_jsonl(experiment: Experiment) -> Iterator[str]:
    """garak-style report: one `eval` entry per evaluator, then one `probe_summary`."""
    aggregates = experiment.aggregates.select_related("binding__evaluator_version__evaluator")
    totals = {"passed": 0, "fails": 0, "nones": 0}
    for aggregate in aggregates.order_by("binding__position"):
        yield json.dumps(_eval_entry(experiment, aggregate), ensure_ascii=False) + "\n"
        for key in totals:
            totals[key] += aggregate.summary[key]
    summary = {
        "entry_type": "probe_summary",
        "probe": experiment.name,
        "experiment": str(experiment.public_id),
        "status": experiment.status,
        "evalset_version": experiment.evalset_version.version,
        **totals,
        "total_evaluated": totals["passed"] + totals["fails"],
        "total_processed": sum(totals.values()),
    }
    yield json.dumps(summary, ensure_ascii=False) + "\n"


def _eval_entry(experiment: Experiment, aggregate) -> dict:
    s = aggregate.summary
    version = aggregate.binding.evaluator_version
    ci = s.get("fail_rate_ci")
    intents = {
        tag: {"passed": v["passed"], "total_evaluated": v["total_evaluated"], "nones": v["nones"]}
        for tag, v in (s.get("tags") or {}).items()
    }
    return {
        "entry_type": "eval",
        "probe": experiment.name,
        "detector": f"{version.evaluator.name}@{version.version}",
        "passed": s["passed"],
        "fails": s["fails"],
        "nones": s["nones"],
        "total_evaluated": s["total_evaluated"],
        "total_processed": s["total_processed"],
        "intents": intents,
        "confidence_method": "bootstrap" if ci else None,
        "confidence": 0.95 if ci else None,
        "confidence_lower": ci[0] if ci else None,
        "confidence_upper": ci[1] if ci else None,
    }


def hitlog_jsonl(experiment: Experiment) -> Iterator[str]:
    """One line per failed row: what went in, what came out, and why it failed."""
    for result in _results(experiment):
        if result.final_verdict != Verdict.FAIL:
            continue
        row = _row(result)
        output = turn_output(result.input)
        yield (
            json.dumps(
                {
                    "experiment": str(experiment.public_id),
                    "item": row["item_id"],
                    "evaluator": f"{row['evaluator']}@{row['evaluator_version']}",
                    "input": result.input,
                    "output": output,
                    "score": row["score"],
                    "reason": row["reason"],
                    "tags": row["tags"],
                },
                ensure_ascii=False,
            )
            + "\n"
        )
