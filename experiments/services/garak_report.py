"""Reading a garak `report.jsonl` and holding it against itself.

garak writes, in order: `start_run setup`, `init` (its version), attempts (each twice: status
1 with outputs, status 2 with detector results), per probe one `eval` entry per detector and
a `probe_summary`, then `completion` and a `digest`. It never writes its evaluation threshold
or confidence level into the setup entry (its setup writer drops floats), so both are taken
from the eval entries: `confidence` names the level, and each eval's `passed` count, held
against the scores the attempts recorded, bounds the threshold (garak passes an output when
score < threshold). A report whose counts no threshold reproduces, or that stops before its
`completion` entry, is refused by name (the latter can be imported as partial, on request).

Reports of garak before 0.13 wrote the prompt and outputs as plain strings and eval entries
with `total` and a `detector.` prefix; they read the same way.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field

from django.core.exceptions import ValidationError
from django.utils.translation import gettext as _

from evalsets.items.cells import N_, Problem

EVALUATED = 2  # garak's attempt status once detectors have scored it
DEFAULT_THRESHOLD = 0.5  # garak's run.eval_threshold default
LINE_PREVIEW = 80
# probe and detector names become evalset and evaluator names ("garak <probe>", at most 120)
MAX_NAME = 100


@dataclass
class Scan:
    """One probe of a garak run: its scored attempts."""

    probe: str
    attempts: list[dict] = field(default_factory=list)

    @property
    def detectors(self) -> list[str]:
        return sorted({d for a in self.attempts for d in a["detector_results"]})


@dataclass
class Report:
    """A garak report as read: the run's facts, the scans, garak's own eval entries."""

    setup: dict = field(default_factory=dict)
    garak_version: str = ""
    run_id: str = ""
    scans: dict[str, Scan] = field(default_factory=dict)
    evals: dict[tuple[str, str], tuple[int, dict]] = field(default_factory=dict)
    completed: bool = False
    lines: int = 0
    setup_line: int = 0

    @property
    def attempts(self) -> int:
        return sum(len(s.attempts) for s in self.scans.values())

    @property
    def outputs(self) -> int:
        return sum(len(a["outputs"]) for s in self.scans.values() for a in s.attempts)

    @property
    def generator(self) -> str:
        """garak's hit-log `generator`: "<target type> <target name>" (older: model_*)."""
        kind = self.setup.get("plugins.target_type", self.setup.get("plugins.model_type"))
        name = self.setup.get("plugins.target_name", self.setup.get("plugins.model_name"))
        return f"{kind} {name}"

    @property
    def generations(self) -> int | None:
        value = self.setup.get("run.generations")
        return value if isinstance(value, int) and not isinstance(value, bool) else None

    @property
    def confidence(self) -> float | None:
        """The level garak's intervals used, from the eval entries that have one."""
        for _line, entry in self.evals.values():
            if isinstance(entry.get("confidence"), int | float):
                return float(entry["confidence"])
        return None


def garak_report_parse(*, data: bytes) -> Report:
    """Every line of the report read and checked; a ValidationError names the first bad one."""
    report = Report()
    # "\n" only: str.splitlines() also breaks at U+2028 and other separators a JSON string may
    # hold, which would cut an output in two and misnumber every later line
    for number, line in enumerate(data.decode("utf-8", "replace").split("\n"), 1):
        if line.strip():
            _take(report, _entry(line, number), number)
        report.lines = number
    if not report.scans:
        raise ValidationError({"file": _("No scored attempts: is this a garak report.jsonl?")})
    return report


def _entry(line: str, number: int) -> dict:
    try:
        entry = json.loads(line)
    except ValueError:
        raise ValidationError(
            {"file": _("Line %(number)s is not JSON.") % {"number": number}}
        ) from None
    except RecursionError:  # json's decoder recurses per level: [[[[…]]]] 100,000 deep
        raise ValidationError(
            {
                "file": _("Line %(number)s is nested too deeply to be a garak entry.")
                % {"number": number}
            }
        ) from None
    if not isinstance(entry, dict):
        raise ValidationError(
            {"file": _("Line %(number)s is not a JSON object.") % {"number": number}}
        )
    return entry


def _take(report: Report, entry: dict, number: int) -> None:
    kind = entry.get("entry_type")
    if kind == "start_run setup":
        report.setup, report.setup_line = entry, number
        report.run_id = str(entry.get("transient.run_id") or report.run_id)
    elif kind == "init":
        report.garak_version = str(entry.get("garak_version") or "")
        report.run_id = report.run_id or str(entry.get("run") or "")
    elif kind == "attempt" and entry.get("status") == EVALUATED:
        attempt = attempt_checked(entry, number)
        report.scans.setdefault(attempt["probe_classname"], Scan(attempt["probe_classname"]))
        report.scans[attempt["probe_classname"]].attempts.append(attempt)
    elif kind == "eval":
        probe, detector = entry.get("probe"), entry.get("detector")
        if isinstance(probe, str) and isinstance(detector, str):
            report.evals[(probe, detector.removeprefix("detector."))] = (number, entry)
    elif kind == "completion":
        report.completed = True


def attempt_checked(entry: dict, number: int) -> dict:
    """A scored attempt line with the fields the import reads, each of the right shape; the
    prompt and outputs of garak before 0.13 (plain strings) become its message objects."""
    problem = _attempt_problem(entry)
    if problem:
        raise ValidationError(
            {
                "file": _("Line %(number)s is not a garak attempt: %(problem)s")
                % {"number": number, "problem": problem}
            }
        )
    results = {
        name.removeprefix("detector."): scores
        for name, scores in (entry.get("detector_results") or {}).items()
    }
    return {
        **entry,
        "prompt": _conversation(entry.get("prompt")),
        "outputs": [_message(o) for o in entry.get("outputs") or []],
        "detector_results": results,
        "line": number,
        # garak < 0.13 wrote text, not objects: there are no objects to keep as written
        "as_text": isinstance(entry.get("prompt"), str),
    }


def _attempt_problem(entry: dict) -> str | None:
    probe = entry.get("probe_classname")
    if not isinstance(probe, str) or not probe or len(probe) > MAX_NAME:
        return _("probe_classname is not a name of at most %(max)s characters.") % {"max": MAX_NAME}
    if not isinstance(entry.get("seq"), int) or isinstance(entry.get("seq"), bool):
        return _("seq is not a whole number.")
    prompt = entry.get("prompt")
    if prompt is not None and not isinstance(prompt, str | dict):
        return _("the prompt is neither text nor a conversation.")
    if isinstance(prompt, dict) and not isinstance(prompt.get("turns") or [], list):
        return _("the prompt's turns are not a list.")
    outputs = entry.get("outputs")
    if outputs is not None and not isinstance(outputs, list):
        return _("outputs is not a list.")
    if any(o is not None and not isinstance(o, str | dict) for o in outputs or []):
        return _("an output is neither text nor a message.")
    return _results_problem(entry.get("detector_results"))


def _results_problem(results) -> str | None:
    if results is None:
        return None
    if not isinstance(results, dict):
        return _("detector_results is not an object.")
    for name, scores in results.items():
        if len(name) > MAX_NAME:
            return _("a detector's name is longer than %(max)s characters.") % {"max": MAX_NAME}
        if not isinstance(scores, list) or not all(_score(s) for s in scores):
            return _("%(detector)s's scores are not a list of numbers.") % {"detector": name}
    return None


def _score(value) -> bool:
    if value is None:
        return True
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def _conversation(prompt) -> dict | None:
    if isinstance(prompt, str):  # garak < 0.13: the prompt's text
        return {"turns": [{"role": "user", "content": {"text": prompt}}], "notes": None}
    return prompt


def _message(output):
    return {"text": output} if isinstance(output, str) else output


def prompt_text(prompt: dict | None) -> str | None:
    """The text of the prompt's last turn (what the target answered)."""
    turns = (prompt or {}).get("turns") or []
    last = turns[-1] if turns and isinstance(turns[-1], dict) else {}
    content = last.get("content")
    text = content.get("text") if isinstance(content, dict) else None
    return text if isinstance(text, str) else None


# ----------------------------------------------------------------------------- the threshold


@dataclass
class Bounds:
    """The thresholds that reproduce garak's counts: (low, high], None for unbounded."""

    low: float | None = None
    high: float | None = None
    checked: list[str] = field(default_factory=list)

    def holds(self, value: float) -> bool:
        return (self.low is None or value > self.low) and (self.high is None or value <= self.high)

    def text(self, *, outward: bool = False) -> str:
        """The interval for a reader, its ends to the fewest decimals (from 3) that keep them
        apart (0.422, not 0.42192181…): rounded inwards, every value shown reproduces the counts;
        `outward`, the interval shown holds every value that does."""
        for digits in range(3, 17):
            low, high = self._rounded(digits, outward)
            if low is None or high is None or low < high:
                break
        low_text = "−∞" if low is None else f"{low:.{digits}f}"
        high_text = "∞" if high is None else f"{high:.{digits}f}"
        return f"({low_text}, {high_text}]"

    def _rounded(self, digits: int, outward: bool) -> tuple[float | None, float | None]:
        step = 10**digits
        down, up = (math.floor, math.ceil) if outward else (math.ceil, math.floor)
        low = None if self.low is None else down(self.low * step) / step
        high = None if self.high is None else up(self.high * step) / step
        return low, high


def garak_counts_check(*, report: Report, partial: bool = False) -> Bounds:
    """Re-derive each probe/detector's counts from the attempts and hold them against garak's
    eval entries: any threshold in the returned bounds gives garak's numbers. Refused when an
    entry counts outputs the report does not hold, when no one threshold reproduces them all,
    or when the report was cut (no `completion` entry) and `partial` was not asked for."""
    if not report.completed and not partial:
        raise ValidationError({"file": cut_text(report)})
    bounds = Bounds()
    for scan in report.scans.values():
        for detector in scan.detectors:
            found = report.evals.get((scan.probe, detector))
            if found is not None:
                _narrow(bounds, scan, detector, *found)
    if bounds.low is not None and bounds.high is not None and bounds.low >= bounds.high:
        raise ValidationError({"file": _("No single threshold gives garak's eval counts.")})
    return bounds


def garak_caps_check(*, report: Report, max_bindings: int) -> None:
    """Refuse a report larger than one import may make: more probes (each an evalset version
    and a launched run), scored attempts or outputs (rows) than the settings allow, or a probe
    with more detectors than an experiment takes evaluators; the 400 names the count and cap."""
    from django.conf import settings

    caps = [
        (len(report.scans), settings.ASSAY_GARAK_MAX_PROBES, _too_many_probes),
        (report.attempts, settings.ASSAY_GARAK_MAX_ATTEMPTS, _too_many_attempts),
        (report.outputs, settings.ASSAY_GARAK_MAX_OUTPUTS, _too_many_outputs),
    ]
    for count, cap, text in caps:
        if count > cap:
            raise ValidationError({"file": text() % {"count": count, "cap": cap}})
    for scan in report.scans.values():
        if len(scan.detectors) > max_bindings:
            raise ValidationError({"file": _too_many_detectors(scan, max_bindings)})


def _too_many_probes() -> str:
    return _(
        "The report holds %(count)s probes; a garak import takes at most %(cap)s "
        "(ASSAY_GARAK_MAX_PROBES): each probe becomes an evalset version and a run."
    )


def _too_many_attempts() -> str:
    return _(
        "The report holds %(count)s scored attempts; a garak import takes at most %(cap)s "
        "(ASSAY_GARAK_MAX_ATTEMPTS)."
    )


def _too_many_outputs() -> str:
    return _(
        "The report's scored attempts hold %(count)s outputs; a garak import takes at most "
        "%(cap)s (ASSAY_GARAK_MAX_OUTPUTS): each output is a row."
    )


def _too_many_detectors(scan: Scan, cap: int) -> str:
    return _(
        "Probe %(probe)s has %(count)s detectors; an experiment takes at most %(cap)s evaluators."
    ) % {"probe": scan.probe, "count": len(scan.detectors), "cap": cap}


def cut_text(report: Report) -> str:
    """Why a report cut short is refused (it may be imported as partial, on request)."""
    return _(
        "The report stops at line %(line)s without garak's closing “completion” entry: the "
        "run was stopped or the file was cut. It holds %(attempts)s scored attempts; import it "
        "as partial to keep only those."
    ) % {"line": report.lines, "attempts": report.attempts}


def cut_note(report: Report) -> Problem:
    """The note a partial import keeps (its message id too: a worker writes it)."""
    return Problem(
        N_(
            "Partial: the report stops at line %(line)s without garak's closing “completion” "
            "entry; this run holds the %(attempts)s scored attempts it had."
        ),
        {"line": report.lines, "attempts": report.attempts},
    )


def _narrow(bounds: Bounds, scan: Scan, detector: str, line: int, entry: dict) -> None:
    scores = [
        score
        for attempt in scan.attempts
        for score in attempt["detector_results"].get(detector, [])
    ]
    decided = sorted(float(s) for s in scores if s is not None)
    evaluated = entry.get("total_evaluated", entry.get("total"))
    processed = entry.get("total_processed", evaluated)
    passed = entry.get("passed")
    if not all(_count(v) for v in (evaluated, processed, passed)):
        raise ValidationError({"file": _bad_eval(line)})
    if processed > len(scores) or evaluated != len(decided) or passed > evaluated:
        raise ValidationError({"file": _missing(line, scan.probe, detector, processed, scores)})
    low = decided[passed - 1] if passed else None
    high = decided[passed] if passed < len(decided) else None
    if low is not None and (bounds.low is None or low > bounds.low):
        bounds.low = low
    if high is not None and (bounds.high is None or high < bounds.high):
        bounds.high = high
    bounds.checked.append(f"{scan.probe}/{detector}")


def _count(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _bad_eval(line: int) -> str:
    return _("Line %(line)s is not a garak eval entry: its counts are not whole numbers.") % {
        "line": line
    }


def _missing(line: int, probe: str, detector: str, counted: int, scores: list) -> str:
    return _(
        "Line %(line)s: garak's eval entry for %(probe)s / %(detector)s counts %(counted)s "
        "outputs, but the report's attempts hold %(held)s scores for it: lines are missing or "
        "were edited."
    ) % {
        "line": line,
        "probe": probe,
        "detector": detector,
        "counted": counted,
        "held": len(scores),
    }


def threshold_choose(*, bounds: Bounds, given: float | None) -> float:
    """The threshold to import with: the one given, when it reproduces garak's counts; else
    garak's default 0.5 when it does, else the shortest decimal that does."""
    if given is not None:
        if not bounds.holds(given):
            raise ValidationError({"threshold": _threshold_refused(given, bounds)})
        return given
    if bounds.holds(DEFAULT_THRESHOLD):
        return DEFAULT_THRESHOLD
    return shortest_decimal(bounds)


def _threshold_refused(given: float, bounds: Bounds) -> str:
    return _(
        "With threshold %(given)s the scores recorded in the report do not give garak's eval "
        "counts; the run's threshold lies in %(bounds)s."
    ) % {"given": given, "bounds": bounds.text(outward=True)}


def shortest_decimal(bounds: Bounds) -> float:
    """The value in (low, high] with the fewest decimal places (0.3 rather than 0.2718)."""
    for digits in range(0, 9):
        step = 10.0**-digits
        if bounds.low is None:
            candidate = round(math.floor(bounds.high / step) * step, digits)
        else:
            candidate = round((math.floor(bounds.low / step) + 1) * step, digits)
        if bounds.holds(candidate):
            return candidate
    return bounds.high if bounds.high is not None else bounds.low + 1.0
