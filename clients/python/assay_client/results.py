"""What `Client.run_experiment` returns: the finished run and one line per evaluator."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

FINISHED = ("completed", "failed", "cancelled")


@dataclass(frozen=True)
class EvaluatorResult:
    """One evaluator's numbers in a run. Rates are over decided rows (unknowns excluded);
    `fail_rate_ci` is the 95% interval of the FAIL rate, None below 30 decided rows."""

    name: str
    version: str
    pass_rate: float | None
    fail_rate_ci: tuple[float, float] | None
    passed: int
    fails: int
    nones: int
    mean: float | None
    line: str

    @property
    def pass_rate_ci(self) -> tuple[float, float] | None:
        """The 95% interval of the pass rate: one minus the fail-rate interval, reversed."""
        if self.fail_rate_ci is None:
            return None
        low, high = self.fail_rate_ci
        return (1 - high, 1 - low)

    @classmethod
    def from_binding(cls, binding: dict) -> EvaluatorResult:
        """Read a binding of the experiment JSON (its `summary` is None until scored)."""
        summary = binding.get("summary") or {}
        ci = summary.get("fail_rate_ci")
        return cls(
            name=binding.get("evaluator_name", ""),
            version=binding.get("version", ""),
            pass_rate=summary.get("pass_rate"),
            fail_rate_ci=(float(ci[0]), float(ci[1])) if ci else None,
            passed=int(summary.get("passed") or 0),
            fails=int(summary.get("fails") or 0),
            nones=int(summary.get("nones") or 0),
            mean=summary.get("mean"),
            line=summary.get("line", ""),
        )


@dataclass(frozen=True)
class ExperimentResult:
    """A run as the API last described it; `raw` is that experiment JSON."""

    id: str
    url: str | None
    status: str
    evaluators: list[EvaluatorResult] = field(default_factory=list)
    raw: dict = field(default_factory=dict, repr=False)

    @property
    def completed(self) -> bool:
        """True when every row was scored (a failed or cancelled run is not)."""
        return self.status == "completed"

    @property
    def name(self) -> str:
        return self.raw.get("name", "")

    @property
    def counts(self) -> dict:
        """Results by status and by final verdict: {"statuses": {...}, "verdicts": {...}}."""
        return self.raw.get("counts") or {}

    @property
    def outputs_received(self) -> int:
        """Outputs the server stored for the run (rows × repetitions when all were pushed)."""
        return int(self.raw.get("outputs_received") or 0)

    @property
    def error_message(self) -> str:
        """Why a failed run failed ("" otherwise)."""
        return self.raw.get("error_message") or ""

    def evaluator(self, name: str) -> EvaluatorResult:
        """The numbers of the evaluator called `name` (KeyError when the run has none)."""
        for found in self.evaluators:
            if found.name == name:
                return found
        raise KeyError(name)

    @classmethod
    def from_experiment(cls, experiment: dict, *, url: str | None = None) -> ExperimentResult:
        """Build from the experiment JSON of `GET /api/v1/experiments/{id}/`."""
        return cls(
            id=experiment["id"],
            url=url,
            status=experiment["status"],
            evaluators=[EvaluatorResult.from_binding(b) for b in experiment.get("bindings", [])],
            raw=experiment,
        )

    def to_dict(self) -> dict:
        """JSON-ready: id, url, status, evaluators (with `pass_rate_ci`) and the experiment."""
        evaluators = [{**asdict(e), "pass_rate_ci": e.pass_rate_ci} for e in self.evaluators]
        return {
            "id": self.id,
            "url": self.url,
            "status": self.status,
            "evaluators": evaluators,
            "experiment": self.raw,
        }
