"""What `Client.run_experiment` returns: the finished run and one line per evaluator."""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field

FINISHED = ("completed", "failed", "cancelled")
DEFAULT_MAX_TASK_ERRORS = "0%"
LIMIT_FORMAT = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(%?)\s*$")


@dataclass(frozen=True)
class TaskError:
    """A call of your task that gave no output: it raised, or returned something that is not
    an output. `row` is the row's number in the evaluation set version (from 1, as the pages
    number rows), `repeat` the repetition (from 0), `message` "<Type>: <message>"."""

    row: int | None
    item_id: str
    repeat: int
    message: str


@dataclass(frozen=True)
class TaskErrorLimit:
    """How many task errors a run may have and still pass (`--max-task-errors`): a count
    ("10": at most ten) or a share of the task's calls ("5%": at most 5 % of them). The
    default, 0 %, fails a run on any task error."""

    value: float
    share: bool

    @classmethod
    def parse(cls, text: str | int | float | TaskErrorLimit) -> TaskErrorLimit:
        """ "5%" (a share from 0 % to 100 %) or "10" (a whole count)."""
        if isinstance(text, TaskErrorLimit):
            return text
        match = LIMIT_FORMAT.match(str(text))
        if match is None:
            raise ValueError(f"{text!r}: give a count such as 10 or a share such as 5%")
        value, share = float(match.group(1)), bool(match.group(2))
        if share and value > 100:
            raise ValueError(f"{text!r}: a share is at most 100%")
        if not share and not value.is_integer():
            raise ValueError(f"{text!r}: a count is a whole number (or add % for a share)")
        return cls(value=value / 100 if share else value, share=share)

    def allows(self, errors: int, calls: int) -> bool:
        """True when `errors` of `calls` is within the limit."""
        return errors <= (self.value * calls if self.share else self.value)

    def __str__(self) -> str:
        return f"{100 * self.value:g}%" if self.share else f"{self.value:g}"


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
    task_calls: int = 0
    task_errors: int = 0
    first_task_errors: tuple[TaskError, ...] = ()

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

    def task_errors_allowed(self, max_task_errors: str | int = DEFAULT_MAX_TASK_ERRORS) -> bool:
        """Whether the task errors of this run (calls of your task that raised or gave no
        output) are within `max_task_errors`: a count (10) or a share of the calls ("5%");
        the default "0%" allows none."""
        limit = TaskErrorLimit.parse(max_task_errors)
        return limit.allows(self.task_errors, self.task_calls)

    def evaluator(self, name: str) -> EvaluatorResult:
        """The numbers of the evaluator called `name` (KeyError when the run has none)."""
        for found in self.evaluators:
            if found.name == name:
                return found
        raise KeyError(name)

    @classmethod
    def from_experiment(
        cls,
        experiment: dict,
        *,
        url: str | None = None,
        task_calls: int = 0,
        task_errors: int = 0,
        first_task_errors: tuple[TaskError, ...] = (),
    ) -> ExperimentResult:
        """Build from the experiment JSON of `GET /api/v1/experiments/{id}/` (and the task's
        calls and errors, which only the client that ran the task knows)."""
        return cls(
            id=experiment["id"],
            url=url,
            status=experiment["status"],
            evaluators=[EvaluatorResult.from_binding(b) for b in experiment.get("bindings", [])],
            raw=experiment,
            task_calls=task_calls,
            task_errors=task_errors,
            first_task_errors=tuple(first_task_errors),
        )

    def to_dict(self) -> dict:
        """JSON-ready: id, url, status, evaluators (with `pass_rate_ci`), the task's calls and
        errors (with the first ones), and the experiment."""
        evaluators = [{**asdict(e), "pass_rate_ci": e.pass_rate_ci} for e in self.evaluators]
        return {
            "id": self.id,
            "url": self.url,
            "status": self.status,
            "evaluators": evaluators,
            "task_calls": self.task_calls,
            "task_errors": self.task_errors,
            "first_task_errors": [asdict(e) for e in self.first_task_errors],
            "experiment": self.raw,
        }
