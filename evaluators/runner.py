"""The one batch runner: an evaluator config + turns → one outcome per turn, with its verdict.

The debug runner calls it with a few turns; experiment tasks call it with a chunk. The kind
(`evaluators.kinds`) runs the batch; the runner skips turns that lack a required input, applies
the binding's verdict policy and caps what each outcome carries.
"""

from __future__ import annotations

import threading
from dataclasses import asdict, dataclass, field, fields
from typing import Any

from assay.models import Workspace
from assay.safety import caps
from assay.safety.caps import cap_json, cap_text
from assay.vocabulary import CONTENT_FIELD, Verdict

from .kinds import kind_get
from .kinds.base import Batch
from .policies import Policy, verdict_many
from .turns import turn_fields


@dataclass
class RunOutcome:
    """What one turn produced, in the Result vocabulary (status success|error|timeout|skipped)."""

    status: str
    score: float | None = None
    reason: str = ""
    verdict: str = Verdict.UNKNOWN
    error: str = ""
    stdout: str = ""
    rendered_request: dict | None = None
    raw_answer: str | None = None
    latency_ms: float = 0.0
    tokens_in: int = 0
    tokens_out: int = 0
    cost: float | None = None  # USD, when the provider has a price for the model
    cached: bool = False
    extra: dict = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def like(cls, other: Any, **changes: Any) -> RunOutcome:
        """An outcome with every field `other` (a kind's own outcome) shares with this one."""
        shared = {f.name: getattr(other, f.name) for f in fields(cls) if hasattr(other, f.name)}
        return cls(**{**shared, **changes})


class RunCancelled(Exception):
    """The batch was stopped by its cancel event; none of its outcomes should be stored."""


def evaluator_run_batch(
    *,
    workspace: Workspace,
    kind: str,
    config: dict,
    turns: list[dict],
    policy: dict,
    score_meaning: str,
    version_key: str | None = None,
    concurrency: int = 16,
    cancel: threading.Event | None = None,
    run_key: str | None = None,
) -> list[RunOutcome]:
    """Run `config` on every turn; a missing required variable skips that turn (unknown).

    Setting `cancel` stops the batch within a fraction of a second (the sandbox child is
    killed, calls in flight are dropped) and raises `RunCancelled`. With a `run_key`, every
    batch of that key (in any worker) shares the `concurrency` slots.
    """
    skipped = {i: _missing(config, turn) for i, turn in enumerate(turns)}
    runnable = [i for i, problem in skipped.items() if not problem]
    todo = [turns[i] for i in runnable]
    batch = Batch(workspace, config, todo, version_key, concurrency, cancel, run_key)
    ran = kind_get(kind).run(batch) if todo else []
    results = dict(zip(runnable, ran, strict=True))
    outcomes = [
        results.get(i) or RunOutcome(status="skipped", error=skipped[i]) for i in range(len(turns))
    ]
    for outcome, decided in zip(outcomes, _verdicts(outcomes, policy, score_meaning), strict=True):
        outcome.verdict = decided
        _bounded(outcome)
    return outcomes


def _bounded(outcome: RunOutcome) -> RunOutcome:
    """Cap what a turn produced to its stored sizes, whoever reads it (debug, tests, runs)."""
    outcome.reason = cap_text(outcome.reason, caps.REASON_BYTES)
    outcome.error = cap_text(outcome.error, caps.ERROR_BYTES)
    outcome.stdout = cap_text(outcome.stdout, caps.STDOUT_BYTES)
    if outcome.raw_answer is not None:
        outcome.raw_answer = cap_text(outcome.raw_answer, caps.ANSWER_BYTES)
    if outcome.rendered_request is not None:
        outcome.rendered_request = cap_json(outcome.rendered_request)
    return outcome


def _verdicts(outcomes: list[RunOutcome], policy: dict, meaning: str) -> list[str]:
    """Every outcome's verdict at once (one policy, one vectorised pass over a chunk's
    scores); only a success has one, the rest are unknown."""
    scores = [o.score if o.status == "success" else None for o in outcomes]
    return verdict_many(scores, Policy.from_dict(policy), meaning) if outcomes else []


def version_run_batch(
    *,
    version,
    workspace: Workspace,
    turns: list[dict],
    concurrency: int,
    cancel: threading.Event | None,
    run_key: str,
    policy: dict | None = None,
    repeat: int = 0,
) -> list[RunOutcome]:
    """A submitted evaluator version on `turns`, as runs call it: its kind, config and score
    meaning, its default policy unless the run set one, its answers cached per version (a later
    repetition of the same input asks the judge again, not the cache), the run's slots shared
    through `run_key`."""
    return evaluator_run_batch(
        workspace=workspace,
        kind=version.kind,
        config=version.config,
        turns=turns,
        policy=version.default_policy if policy is None else policy,
        score_meaning=version.score_meaning,
        version_key=f"evaluator-version:{version.public_id}" + (f":{repeat}" if repeat else ""),
        concurrency=concurrency,
        cancel=cancel,
        run_key=run_key,
    )


def _missing(config: dict, turn: dict) -> str:
    """Name the first required variable the turn lacks ('' when it has them all)."""
    fields = turn_fields(turn)
    for variable in config.get("input_variables") or []:
        if variable.get("required", True) and not _present(fields.get(variable["name"])):
            return f"required variable {variable['name']!r} is missing from the row"
    return ""


def _present(content: Any) -> bool:
    if not isinstance(content, dict):
        return False
    value = CONTENT_FIELD.get(content.get("content_type"))
    return value is not None and content.get(value) not in (None, "", [], {})


def runtimes_warm_up() -> None:
    """Start what a batch would otherwise start on its first chunk: the sandbox's zygote (a
    fresh interpreter that pre-imports both engines) and the judges' HTTP and Redis client
    stack (0.14 s to import, inside the first judge chunk's start), so a worker process that
    just forked scores its first rows at full speed. Safe to call again; a sandbox that cannot
    start is reported by the batch that needs it, not here."""
    import redis.asyncio  # noqa: F401 - imported to be loaded: the run-wide slots use it

    import evaluators.llm.batch  # noqa: F401 - the same: the judges' calls
    import sandbox

    try:
        sandbox.host.MANAGER.get()
    except sandbox.SandboxUnavailable:
        pass
