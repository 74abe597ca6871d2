"""What `Client.gate` returns: the gate's decision, its printable summary (`format()`, what
`assay gate` prints) and its JUnit XML (`to_junit()`, what `assay gate --junit` writes)."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field

from .display import WIDE, gate_limits, gate_reasons, gate_text, interval, p_value, points, rate

# The server's defaults (experiments/results/gate.py), which `assay gate` sends and states.
DEFAULT_ALPHA = 0.05
DEFAULT_MAX_DROP = 0.0
DEFAULT_MAX_UNKNOWN_RATE = 0.5
DEFAULT_MIN_DECIDED = 30

JUNIT_CLASS = "assay_gate"  # no dots: Jenkins reads a dotted class name as packages
# characters XML 1.0 cannot carry at all (names come from users)
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


@dataclass(frozen=True)
class GateResult:
    """The gate's answer. `evaluators` are the API's rows (evaluator, n_decided, regressions,
    improvements, pass rates, pass_rate_delta and its CI, p_worse, unknown rates, to_unknown,
    from_unknown, p_more_unknown, failed, reasons); `reasons` are the gate's own (e.g. no
    evaluator compared); `raw` is the whole JSON answer."""

    passed: bool
    baseline: dict
    candidate: dict
    evaluators: list[dict]
    not_compared: list[str]
    reasons: list[str]
    markdown: str
    raw: dict = field(default_factory=dict, repr=False)

    @classmethod
    def from_api(cls, data: dict) -> GateResult:
        """Build from the JSON of `GET` (or `POST`) `/api/v1/experiments/gate/`."""
        return cls(
            passed=bool(data["passed"]),
            baseline=data["baseline"],
            candidate=data["candidate"],
            evaluators=list(data.get("evaluators") or []),
            not_compared=list(data.get("not_compared") or []),
            reasons=list(data.get("reasons") or []),
            markdown=data.get("markdown", ""),
            raw=data,
        )

    @property
    def failures(self) -> list[str]:
        """One line per reason the gate failed ("<evaluator>: <why>"); empty when it passed."""
        return gate_reasons(self.raw)

    def format(self, *, width: int = WIDE) -> str:
        """The printable summary: a heading with the options used, one line per evaluator,
        the reasons and what was not compared — exactly what `assay gate` prints."""
        return gate_text(self.raw, width=width)

    def to_dict(self) -> dict:
        """The API's answer, JSON-ready (what `assay gate --json` prints)."""
        return self.raw

    def __getitem__(self, key: str):
        """`result["passed"]`: the API's keys, as when `Client.gate` returned the JSON."""
        return self.raw[key]

    def to_junit(self) -> str:
        """JUnit XML for CI systems (GitLab's `artifacts:reports:junit`, Jenkins' junit step):
        one test case per evaluator compared (a `failure` with the reasons when it fails), a
        skipped one per evaluator on one side only, and one for the gate's own reasons."""
        cases = [_evaluator_case(row) for row in self.evaluators]
        cases += [_skipped_case(name) for name in self.not_compared]
        if self.reasons:
            cases.append(_case("gate", "; ".join(self.reasons), failed=True))
        return _document(self, cases)


def _evaluator_case(row: dict) -> ET.Element:
    message = "; ".join(row.get("reasons") or [])
    case = _case(row["evaluator"], message, failed=bool(row["failed"]))
    ET.SubElement(case, "system-out").text = _clean(_row_line(row))
    return case


def _row_line(row: dict) -> str:
    """An evaluator's numbers as the summary prints them (U+2212 minus, no exponents)."""
    more_unknown = row.get("p_more_unknown")
    return (
        f"decided {row.get('n_decided')} rows; pass rate {rate(row.get('pass_rate_baseline'))} "
        f"-> {rate(row.get('pass_rate_candidate'))} ({points(row.get('pass_rate_delta'))}, "
        f"CI {interval(row.get('pass_rate_delta_ci'), points)}); {row.get('regressions')} "
        f"pass->fail, {row.get('improvements')} fail->pass, p (worse) "
        f"{p_value(row['p_worse'])}; unknown {rate(row.get('unknown_rate_baseline'))} -> "
        f"{rate(row.get('unknown_rate'))} ({row.get('to_unknown')} became unknown, "
        f"{row.get('from_unknown')} became decided, p (more unknown) "
        f"{'—' if more_unknown is None else p_value(more_unknown)})"
    )


def _case(name: str, message: str, *, failed: bool) -> ET.Element:
    case = ET.Element("testcase", classname=JUNIT_CLASS, name=_clean(name), time="0")
    if failed:
        failure = ET.SubElement(case, "failure", message=_clean(message), type="AssayGateFailure")
        failure.text = _clean(f"{name}: {message}")
    return case


def _skipped_case(name: str) -> ET.Element:
    case = ET.Element("testcase", classname=JUNIT_CLASS, name=_clean(name), time="0")
    ET.SubElement(case, "skipped", message="not compared: on one side only")
    return case


def _document(result: GateResult, cases: list[ET.Element]) -> str:
    counts = {
        "tests": str(len(cases)),
        "failures": str(sum(c.find("failure") is not None for c in cases)),
        "errors": "0",
        "skipped": str(sum(c.find("skipped") is not None for c in cases)),
        "time": "0",
    }
    title = f"Assay gate: {result.candidate['name']} against {result.baseline['name']}"
    root = ET.Element("testsuites", name="Assay gate", **counts)
    suite = ET.SubElement(root, "testsuite", name=_clean(title), **counts)
    properties = ET.SubElement(suite, "properties")
    ET.SubElement(properties, "property", name="options", value=gate_limits(result.raw))
    suite.extend(cases)
    ET.SubElement(suite, "system-out").text = _clean(result.format())
    ET.indent(root)
    return ET.tostring(root, encoding="unicode", xml_declaration=True) + "\n"


def _clean(text: str) -> str:
    """Text XML 1.0 can hold (ElementTree escapes markup, not control characters)."""
    return _NOT_XML.sub("\ufffd", str(text))
