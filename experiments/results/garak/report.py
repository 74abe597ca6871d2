"""garak's report, as garak writes it: `eval` and `probe_summary` entries, with garak's CI
display rule and Z ratings (the hit log: `hitlog`; the console lines: `results.console`).

The mapping: an experiment is a probe run (`Experiment.probe_name`, else its name); an
evaluator binding is a detector (`ext["detector"]`, else "<evaluator>@<version>"); a row and
repetition is an (attempt, output): the row's item id is the attempt id, its position the
attempt's seq and its repetition the output's index. A row's intent is its `intent` column
when the evalset has one, else each of its tags. garak's keys come first and in garak's
order (garak 0.17.1, the newest release: `hit_at_k` included); the keys we add follow them.
"""

from __future__ import annotations

import json
from array import array
from collections.abc import Iterator
from dataclasses import dataclass, field
from json.encoder import encode_basestring

from django.db.models.fields.json import KeyTextTransform, KeyTransform

from assay.vocabulary import Verdict

from ...models import Aggregate, EvaluatorBinding, Experiment, Result

# A CI narrower than this many percentage points says nothing and is not shown (garak's rule).
CI_DISPLAY_MIN_WIDTH = 0.001
# garak's relative DEFCON bounds for Z-scores; every comparison is a strict `<`.
RELATIVE_BOUNDS = (-1.0, -0.125, 0.125, 1.0)
SYMBOLS = "🟥🟧🟨🟩🟦"  # DEFCON 1 (worst) … 5
INTENT_COLUMN = "intent"
# columns of an imported garak scan: the attempt each row (one output) came from
ATTEMPT_ID, ATTEMPT_SEQ, ATTEMPT_IDX = "attempt_id", "attempt_seq", "attempt_idx"
HIT_AT_K = (1,)  # garak's reporting.hit_at_k default; each row's own count is added
GOAL, PROMPT, TRIGGERS = "goal", "prompt", "triggers"
# an imported scan's prompt (conversation) and output (message) objects as garak wrote them
GARAK_PROMPT, GARAK_OUTPUT = "garak_prompt", "garak_output"


def defcon(z: float) -> int:
    """garak's `score_to_defcon` on the relative bounds: 1 (worst) to 5."""
    return 1 + sum(1 for bound in RELATIVE_BOUNDS if not z < bound)


def probe_name(experiment: Experiment) -> str:
    return experiment.probe_name or experiment.name


def detector_name(binding: EvaluatorBinding) -> str:
    version = binding.evaluator_version
    return (binding.ext or {}).get("detector") or f"{version.evaluator.name}@{version.version}"


# ----------------------------------------------------------------------------- the report


@dataclass
class Detection:
    """One detector's numbers, as garak's eval record needs them."""

    binding: EvaluatorBinding
    detector: str
    summary: dict
    intents: dict = field(default_factory=dict)
    hit_at_k: dict = field(default_factory=dict)

    @property
    def processed(self) -> int:
        return self.summary["total_processed"]


def detections(experiment: Experiment, *, counts: bool = True) -> list[Detection]:
    """The experiment's detectors that processed something, ordered by name (garak sorts).

    `counts=False` leaves out intents and hit@k, which read every row (the hit log needs
    neither)."""
    aggregates = Aggregate.objects.filter(experiment=experiment).select_related(
        "binding__evaluator_version__evaluator"
    )
    found = [
        Detection(
            a.binding,
            detector_name(a.binding),
            a.summary,
            _intents(experiment, a) if counts else {},
            hit_at_k(per_row_counts(a.binding), HIT_AT_K) if counts else {},
        )
        for a in aggregates
    ]
    return sorted((d for d in found if d.processed), key=lambda d: d.detector)


def _intents(experiment: Experiment, aggregate: Aggregate) -> dict:
    """{intent: {passed, total_evaluated, nones}} sorted by intent; rows without one are left
    out, as garak leaves out attempts whose intent is None."""
    if _has_intent_column(experiment):
        counts = _intent_column_counts(aggregate.binding)
    else:
        counts = {
            tag: {k: row[k] for k in ("passed", "total_evaluated", "nones")}
            for tag, row in (aggregate.summary.get("tags") or {}).items()
        }
    return {key: counts[key] for key in sorted(counts)}


def per_row_counts(binding: EvaluatorBinding) -> RowCounts:
    """(decided outputs, failing outputs) per attempt, in order: garak's per-attempt
    (scoreable, hits). An attempt is a row with its repetitions, or, in an imported garak scan
    (rows have an `attempt_id` column), the rows of one attempt."""
    counts = RowCounts()
    rows = (
        Result.objects.filter(experiment_id=binding.experiment_id, binding=binding)
        .order_by("position", "repeat")
        .annotate(garak_attempt=KeyTextTransform("text", KeyTransform(ATTEMPT_ID, "item__data")))
    )
    for attempt, position, verdict, human in rows.values_list(
        "garak_attempt", "position", "verdict", "human_verdict"
    ).iterator(5000):
        final = human or verdict
        counts.add(attempt or position, final != Verdict.UNKNOWN, final == Verdict.FAIL)
    return counts


class RowCounts:
    """(decided, failing) outputs per attempt in first-seen order, kept in two arrays of
    machine integers: 16 bytes an attempt, where a dict of lists took about 150 (a million
    rows' report peaked at 200 MB). A row's attempt is its position, and positions come in
    order, so only attempts named by an `attempt_id` column (which may come back later) are
    looked up."""

    def __init__(self):
        self.decided, self.failing = array("q"), array("q")
        self._named: dict[str, int] = {}
        self._last, self._slot = None, -1

    def add(self, key: str | int, decided: bool, failing: bool) -> None:
        if key != self._last:
            self._last, self._slot = key, self._find(key)
        self.decided[self._slot] += decided
        self.failing[self._slot] += failing

    def _find(self, key: str | int) -> int:
        if isinstance(key, str) and key in self._named:
            return self._named[key]
        self.decided.append(0)
        self.failing.append(0)
        if isinstance(key, str):
            self._named[key] = len(self.decided) - 1
        return len(self.decided) - 1

    def __iter__(self):
        return zip(self.decided, self.failing, strict=True)

    def __len__(self) -> int:
        return len(self.decided)


def hit_probability(n: int, c: int, k: int) -> float:
    """The chance that k of n outputs drawn without replacement hold a hit, when c of them
    are hits (Chen et al.'s unbiased pass@k, in the product form garak uses)."""
    if n - c < k:
        return 1.0
    estimate = 1.0
    for i in range(n - c + 1, n + 1):
        estimate *= 1.0 - k / i
    return 1.0 - estimate


def hit_at_k(counts, ks) -> dict:
    """garak's `hit_at_k`: {k: {"score", "prompts"}} averaged over rows with at least k
    decided outputs, for each k asked and for the rows' own count ("n" when they differ).
    `counts` is read several times and never copied (a list, or a RowCounts)."""
    result: dict = {}
    for k in sorted({int(k) for k in ks if int(k) >= 1}):
        if prompts := _eligible(counts, k):
            total = sum(hit_probability(n, c, k) for n, c in counts if n >= k)
            result[str(k)] = {"score": total / prompts, "prompts": prompts}
    sizes = {n for n, _c in counts if n >= 1}
    own = str(next(iter(sizes))) if len(sizes) == 1 else "n"
    if (prompts := _eligible(counts, 1)) and own not in result:
        total = sum(hit_probability(n, c, n) for n, c in counts if n >= 1)
        result[own] = {"score": total / prompts, "prompts": prompts}
    return result


def _eligible(counts, k: int) -> int:
    """The rows with at least k decided outputs."""
    return sum(1 for n, _c in counts if n >= k)


def _has_intent_column(experiment: Experiment) -> bool:
    return any(c["name"] == INTENT_COLUMN for c in experiment.evalset_version.columns)


def _intent_column_counts(binding: EvaluatorBinding) -> dict:
    rows = (
        Result.objects.filter(experiment_id=binding.experiment_id, binding=binding)
        .annotate(intent=KeyTextTransform("text", KeyTransform(INTENT_COLUMN, "item__data")))
        .values_list("intent", "verdict", "human_verdict")
    )
    counts: dict = {}
    for intent, verdict, human in rows.iterator(5000):
        if not intent:
            continue
        bucket = counts.setdefault(intent, {"passed": 0, "total_evaluated": 0, "nones": 0})
        final = human or verdict
        bucket["nones"] += final == Verdict.UNKNOWN
        bucket["passed"] += final == Verdict.PASS
        bucket["total_evaluated"] += final != Verdict.UNKNOWN
    return counts


def eval_record(experiment: Experiment, detection: Detection) -> dict:
    """garak's `eval` entry: its keys in its order, `intents` only when some row has one, the
    four `confidence*` keys only when an interval was computed; then ours."""
    s = detection.summary
    record = {
        "entry_type": "eval",
        "probe": probe_name(experiment),
        "detector": detection.detector,
        "passed": s["passed"],
        "fails": s["fails"],
        "nones": s["nones"],
        "total_evaluated": s["total_evaluated"],
        "total_processed": s["total_processed"],
    }
    if detection.intents:
        record["intents"] = detection.intents
    if detection.hit_at_k:
        record["hit_at_k"] = detection.hit_at_k
    ci = s.get("fail_rate_ci")
    if ci:
        record["confidence_method"] = "bootstrap"
        record["confidence"] = s.get("confidence", 0.95)
        record["confidence_upper"] = ci[1]
        record["confidence_lower"] = ci[0]
    version = detection.binding.evaluator_version
    record.update(
        {
            "experiment": str(experiment.public_id),
            "evaluator": version.evaluator.name,
            "evaluator_version": version.version,
            "pass_rate": s.get("pass_rate"),
            "interval": s.get("interval", "bootstrap"),
            "interval_settings": s.get("interval_settings"),
        }
    )
    return record


def probe_summary(experiment: Experiment, found: list[Detection]) -> dict:
    """garak's `probe_summary`: outputs seen and missing, then the detections summed."""
    outputs, missing = _inference_counts(experiment)
    return {
        "entry_type": "probe_summary",
        "probe": probe_name(experiment),
        "inference_counts": {"total_evaluated": outputs, "nones": missing},
        "detection_counts": {
            "detectors": [d.detector for d in found],
            "passed": sum(d.summary["passed"] for d in found),
            "fails": sum(d.summary["fails"] for d in found),
            "nones": sum(d.summary["nones"] for d in found),
        },
        "experiment": str(experiment.public_id),
        "status": experiment.status,
        "evalset_version": experiment.evalset_version.version,
    }


def _inference_counts(experiment: Experiment) -> tuple[int, int]:
    """(outputs, outputs that are missing): rows × repetitions, and those the target gave no
    output for (without a target, every row's output is in a column)."""
    outputs = experiment.items_total * experiment.repetitions
    if not experiment.target_spec.produces_output:
        return outputs, _missing_imported_outputs(experiment)
    answered = experiment.target_results.filter(status="success").count()
    return outputs, max(0, outputs - answered)


def _missing_imported_outputs(experiment: Experiment) -> int:
    """In an imported garak scan, the rows whose output garak recorded as null (no output
    cell); other runs without a target read their outputs from a column and miss none."""
    if not _garak_ext(experiment, None):
        return 0
    version = experiment.evalset_version
    rows = version.items.filter(evalset_id=version.evalset_id)
    return rows.exclude(data__has_key="actual_output").count()


def report_jsonl(experiment: Experiment) -> Iterator[str]:
    """garak's report.jsonl for a run: the `start_run setup` and `init` entries garak's
    report_digest reads, one `eval` entry per detector, the summary, then `completion`."""
    found = detections(experiment)
    run = RunFacts.of(experiment, found)
    yield _line(run.setup_entry())
    yield _line(run.init_entry())
    for detection in found:
        yield _line(eval_record(experiment, detection))
    yield _line(probe_summary(experiment, found))
    yield _line(run.completion_entry())


GARAK_VERSION = "0.17.1"  # the garak release whose formats these are


@dataclass
class RunFacts:
    """What garak's report says of the run as a whole: an imported scan's own facts (kept on
    its bindings' `ext`), else the experiment's: its id, target, repetitions, interval."""

    experiment: Experiment
    run_id: str
    generator: str | None
    generations: int
    garak_version: str
    interval: dict

    @classmethod
    def of(cls, experiment: Experiment, found: list[Detection] | None = None) -> RunFacts:
        ext = _garak_ext(experiment, found)
        settings = next((d.summary.get("interval_settings") for d in found or []), None) or {}
        generations = ext.get("garak_generations", "")
        return cls(
            experiment,
            ext.get("garak_run_id") or str(experiment.public_id),
            ext["garak_generator"] if "garak_generator" in ext else generator_name(experiment),
            int(generations) if generations.isdigit() else experiment.repetitions,
            GARAK_VERSION,  # the format written, whichever garak wrote the imported scan
            settings,
        )

    def _times(self) -> tuple[str | None, str | None]:
        e = self.experiment
        start = e.started_at or e.created_at
        return (start.isoformat() if start else None), (
            e.finished_at.isoformat() if e.finished_at else None
        )

    def setup_entry(self) -> dict:
        """garak's keys that say how the run was made (its setup writer keeps only ints,
        strings, booleans, lists and dicts: the threshold and confidence level are floats and
        are left out, as garak leaves them out)."""
        target_type, _space, target_name = (self.generator or "").partition(" ")
        probe = probe_name(self.experiment)
        return {
            "entry_type": "start_run setup",
            "_config.version": self.garak_version,
            "transient.starttime_iso": self._times()[0],
            "transient.active_probes": [f"probes.{probe}"],
            "transient.run_id": self.run_id,
            "run.seed": self.interval.get("seed"),
            "run.generations": self.generations,
            "plugins.target_type": target_type or None,
            "plugins.target_name": target_name or None,
            "reporting.taxonomy": None,
            "reporting.confidence_interval_method": self.interval.get("method", "bootstrap"),
            "reporting.bootstrap_num_iterations": self.interval.get("iterations"),
            "reporting.bootstrap_min_sample_size": self.interval.get("min_sample"),
            "reporting.hit_at_k": list(HIT_AT_K),
        }

    def init_entry(self) -> dict:
        return {
            "entry_type": "init",
            "garak_version": self.garak_version,
            "start_time": self._times()[0],
            "run": self.run_id,
        }

    def completion_entry(self) -> dict:
        return {"entry_type": "completion", "end_time": self._times()[1], "run": self.run_id}


def _garak_ext(experiment: Experiment, found: list[Detection] | None) -> dict:
    """The garak facts an import kept on the run's bindings (the same on each), else {}."""
    bindings = [d.binding for d in found] if found else list(experiment.bindings.all()[:1])
    return next(((b.ext or {}) for b in bindings if (b.ext or {}).get("garak_run_id")), {})


# json.dumps(record, ensure_ascii=False) builds an encoder per call: one, built once, writes
# the same bytes (check_circular only guards against a record holding itself)
ENCODER = json.JSONEncoder(ensure_ascii=False, check_circular=False)
json_text = encode_basestring  # the encoder's own writer of a string (ensure_ascii=False)


def _line(record: dict) -> str:
    return ENCODER.encode(record) + "\n"


def generator_name(experiment: Experiment) -> str | None:
    """garak's "<target type> <target name>": the target kind and what it calls."""
    config = experiment.target_config or {}
    detail = config.get("model") or config.get("url")
    if experiment.target_kind == "prompt" and not detail:
        detail = "provider default"
    if not experiment.target_spec.produces_output:
        return None
    return f"{experiment.target_kind} {detail}" if detail else experiment.target_kind
