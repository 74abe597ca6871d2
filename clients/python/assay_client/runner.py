"""`run_experiment`: your code computes each row's output, the server scores it.

The run is an experiment with an external target. Rows are fetched from the evalset version,
`task(row)` runs for each row and repetition (in a thread pool, or on an event loop for an
`async def` task), and outputs are pushed in batches while the task is still running, so
the server's evaluators start on the first ranges early. Then the run is closed and awaited.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import math
import time
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from itertools import islice
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .client import task_row
from .errors import AssayError
from .progress import RunProgress
from .pushing import Pusher
from .results import ExperimentResult, TaskError

if TYPE_CHECKING:
    from .client import Client

ERROR_CHARS = 4000
RETURN_KEYS = ("actual_output", "trajectory", "tokens_in", "tokens_out", "cost", "error")
FIRST_ERRORS = 5

Job = tuple[dict, int]


def run_experiment(
    client: Client,
    *,
    evalset: str | None = None,
    evaluators: str | Iterable[str | dict],
    task: Callable[[dict], Any],
    concurrency: int = 16,
    name: str | None = None,
    repetitions: int = 1,
    mapping: dict | None = None,
    chunk_size: int = 100,
    progress: bool = False,
    timeout: float | None = None,
    on_created: Callable[[dict], None] | None = None,
    rows: str | Path | None = None,
    evalset_name: str | None = None,
) -> ExperimentResult:
    """Run `task` over the rows of `evalset` ("name@1.0.0" or a version id) and score its
    outputs with `evaluators` ("name@1.2.0" refs or ids; a dict is taken as a whole binding).

    Instead of `evalset`, `rows` names a local CSV or JSONL file: its rows become a version of
    the set `evalset_name` (default: the file's name without its extension), or the version
    those same rows made before (`Client.evalset_version_from_rows`).

    `task(row)` gets {column: text (Text columns) or content object, "_item_id": id} and
    returns the output as a `str`, or a dict with `actual_output` and optionally
    `trajectory`, `tokens_in`, `tokens_out`, `cost`. Latency is measured here; an exception
    becomes that row's error (the row is scored unknown). At most `concurrency` calls run at
    once. `mapping` (variable → "column:<name>" | "target:actual_output") applies to every
    evaluator; without it the server maps by name. `timeout` bounds the wait for scoring.
    `on_created` is called with the experiment JSON once the run exists (to show its id).

    The result counts the task's calls and its errors (`task_calls`, `task_errors`: calls
    that raised or gave no output) and keeps the first few (`first_task_errors`, with their
    row); `result.task_errors_allowed("5%")` tells whether they stay within a limit.

    If the task or a push stops the run (an exception other than the task's own, Ctrl-C),
    the experiment is cancelled on the server and the error is raised.
    """
    _check_options(task=task, concurrency=concurrency, repetitions=repetitions)
    evalset, label = _evalset_ref(client, evalset=evalset, rows=rows, evalset_name=evalset_name)
    experiment = client.create_experiment(
        name=name or default_name(task, label),
        evalset_version=evalset,
        bindings=bindings_for(evaluators, mapping),
        target={"kind": "external"},
        repetitions=repetitions,
        chunk_size=chunk_size,
        launch=True,
    )
    return _pushed_run(
        client,
        experiment,
        task=task,
        concurrency=concurrency,
        progress=progress,
        timeout=timeout,
        on_created=on_created,
    )


def run_template(
    client: Client,
    template: str,
    *,
    task: Callable[[dict], Any] | None = None,
    concurrency: int = 16,
    progress: bool = False,
    timeout: float | None = None,
    on_created: Callable[[dict], None] | None = None,
) -> ExperimentResult:
    """Launch an experiment from a template (its name or id) and wait for it. A template whose
    target is this client's code (external) needs `task`, called on each row as
    `run_experiment` does; any other target runs on the server."""
    experiment = client.launch_template(template)
    external = experiment["target"].get("kind") == "external"
    if external and task is None:
        cancel_quietly(client, experiment["id"])
        raise AssayError(0, "usage", "This template's outputs come from your code: give --task.")
    if external:
        _check_options(task=task, concurrency=concurrency, repetitions=1)
        return _pushed_run(
            client, experiment, task=task, concurrency=concurrency, progress=progress,
            timeout=timeout, on_created=on_created,
        )  # fmt: skip
    if on_created is not None:
        on_created(experiment)
    with RunProgress(enabled=progress) as shown:
        final = client.wait(
            experiment["id"],
            timeout=timeout,
            on_update=lambda e: shown.scored(e.get("results_done", 0), e.get("results_total", 0)),
        )
    return ExperimentResult.from_experiment(final, url=client.experiment_url(experiment["id"]))


def _pushed_run(
    client: Client, experiment: dict, *, task, concurrency, progress, timeout, on_created
) -> ExperimentResult:
    """Call `task` on each row of a launched external-target run, push the outputs, wait for
    the scores."""
    experiment_id = experiment["id"]
    repetitions = experiment.get("repetitions", 1)
    if on_created is not None:
        on_created(experiment)
    with RunProgress(enabled=progress) as shown:
        try:
            items = client.evalset_items(
                experiment["evalset"], version=experiment["evalset_version_string"]
            )
            tasked = [(task_row(item), item.get("position")) for item in items]
            jobs = [(row, repeat) for row, _ in tasked for repeat in range(repetitions)]
            errors = TaskErrors({row["_item_id"]: position for row, position in tasked})
            shown.rows(0, len(jobs))
            push = Pusher(
                lambda batch: client.push_outputs(experiment_id, batch),
                on_added=lambda done: shown.rows(done, len(jobs)),
                observe=errors.note,
            )
            execute(task, jobs, concurrency=concurrency, pusher=push)
            close_open_run(client, experiment_id)
        except BaseException:
            cancel_quietly(client, experiment_id)
            raise
        final = client.wait(
            experiment_id,
            timeout=timeout,
            on_update=lambda e: shown.scored(e.get("results_done", 0), e.get("results_total", 0)),
        )
    return ExperimentResult.from_experiment(
        final,
        url=client.experiment_url(experiment_id),
        task_calls=push.added,
        task_errors=errors.count,
        first_task_errors=errors.first,
    )


def _evalset_ref(client: Client, *, evalset, rows, evalset_name) -> tuple[str, str]:
    """The version to run on and its label: `evalset` as given, or the version of the
    `rows` file ("name@version")."""
    if (evalset is None) == (rows is None):
        raise ValueError("give either evalset or rows (a CSV or JSONL file)")
    if rows is None:
        if evalset_name is not None:
            raise ValueError("evalset_name names the set of a rows file; pass rows too")
        return evalset, evalset
    version = client.evalset_version_from_rows(rows, name=evalset_name)
    return version["id"], f"{version['evalset_name']}@{version['version']}"


class TaskErrors:
    """Counts the outputs that are errors and keeps the first `FIRST_ERRORS` of them in row
    order (calls finish in any order), with the row number of their item (`positions`: item
    id → position)."""

    def __init__(self, positions: dict[str, int | None]):
        self.positions = positions
        self.count = 0
        self.first: list[TaskError] = []

    def note(self, entry: dict) -> None:
        """See one output entry (from the thread that runs the tasks)."""
        if "error" not in entry:
            return
        self.count += 1
        position = self.positions.get(entry["item_id"])
        error = TaskError(
            row=None if position is None else position + 1,
            item_id=entry["item_id"],
            repeat=entry["repeat"],
            message=entry["error"],
        )
        if len(self.first) >= FIRST_ERRORS and _row_order(error) >= _row_order(self.first[-1]):
            return
        self.first.append(error)
        self.first.sort(key=_row_order)
        del self.first[FIRST_ERRORS:]


def _row_order(error: TaskError) -> tuple:
    return (error.row is None, error.row or 0, error.repeat)


def _check_options(*, task, concurrency: int, repetitions: int) -> None:
    if not callable(task):
        raise TypeError("task must be a function of one row")
    if not isinstance(concurrency, int) or concurrency < 1:
        raise ValueError("concurrency must be a whole number ≥ 1")
    if not isinstance(repetitions, int) or repetitions < 1:
        raise ValueError("repetitions must be a whole number ≥ 1")


def default_name(task: Callable, evalset: str) -> str:
    """ "<task> on <evalset>", within the server's 160 characters."""
    label = getattr(task, "__qualname__", None) or type(task).__name__
    return f"{label} on {evalset}"[:160]


def bindings_for(evaluators: str | Iterable[str | dict], mapping: dict | None) -> list[dict]:
    """The experiment's bindings: one per evaluator ref, with `mapping` when given."""
    refs = [evaluators] if isinstance(evaluators, str | dict) else list(evaluators)
    if not refs:
        raise ValueError("name at least one evaluator")
    bindings = []
    for ref in refs:
        binding = dict(ref) if isinstance(ref, dict) else {"evaluator_version": ref}
        if mapping is not None:
            binding.setdefault("mapping", mapping)
        bindings.append(binding)
    return bindings


def close_open_run(client: Client, experiment_id: str) -> None:
    """Close the run; a run that already completed (every row pushed) needs no closing."""
    try:
        client.close_experiment(experiment_id)
    except AssayError as exc:
        if not (exc.status == 400 and "status" in (exc.details or {})):
            raise


def cancel_quietly(client: Client, experiment_id: str) -> None:
    """Best effort: a run whose task stopped should not wait for outputs forever."""
    try:
        client.cancel_experiment(experiment_id)
    except Exception:  # the original error is the one to report
        pass


# -- calling the task ------------------------------------------------------------------------


def execute(task: Callable, jobs: list[Job], *, concurrency: int, pusher: Pusher) -> None:
    """Call `task` for every job and hand each output to `pusher`, then flush it."""
    pusher.start()
    try:
        if is_async(task):
            run_coroutine(_run_async(task, jobs, concurrency, pusher))
        else:
            _run_threads(task, jobs, concurrency, pusher)
    except BaseException:
        pusher.stop()
        raise
    pusher.finish()


def is_async(task: Callable) -> bool:
    """An `async def` function, or an object whose `__call__` is one."""
    if inspect.iscoroutinefunction(task):
        return True
    return not inspect.isroutine(task) and inspect.iscoroutinefunction(task.__call__)


def _run_threads(task: Callable, jobs: list[Job], concurrency: int, pusher: Pusher) -> None:
    queued: Iterator[Job] = iter(jobs)
    with ThreadPoolExecutor(max_workers=concurrency, thread_name_prefix="assay-task") as pool:
        pending: set = set()
        try:
            while True:
                room = 2 * concurrency - len(pending)
                pending.update(pool.submit(call_task, task, *job) for job in islice(queued, room))
                if not pending:
                    return
                done, pending = wait(pending, return_when=FIRST_COMPLETED)
                for future in done:
                    pusher.add(future.result())
        except BaseException:
            for future in pending:
                future.cancel()
            raise


async def _run_async(task: Callable, jobs: list[Job], concurrency: int, pusher: Pusher) -> None:
    queued: Iterator[Job] = iter(jobs)
    pending: set = set()
    try:
        while True:
            room = concurrency - len(pending)
            pending.update(
                asyncio.ensure_future(call_task_async(task, *job)) for job in islice(queued, room)
            )
            if not pending:
                return
            done, pending = await asyncio.wait(pending, return_when=asyncio.FIRST_COMPLETED)
            for finished in done:
                pusher.add(finished.result())
    finally:
        for unfinished in pending:
            unfinished.cancel()


def run_coroutine(coroutine) -> Any:
    """Run `coroutine` to the end, in a thread of its own when this one already runs a
    loop (a notebook, an async test)."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coroutine)
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="assay-loop") as one:
        return one.submit(asyncio.run, coroutine).result()


def call_task(task: Callable, row: dict, repeat: int) -> dict:
    """The output entry of one call of a sync task."""
    started = time.perf_counter()
    try:
        value = task(dict(row))
    except Exception as exc:
        return failed_entry(row, repeat, exc, started)
    return output_entry(row, repeat, value, started)


async def call_task_async(task: Callable, row: dict, repeat: int) -> dict:
    """The output entry of one call of an async task."""
    started = time.perf_counter()
    try:
        value = await task(dict(row))
    except Exception as exc:
        return failed_entry(row, repeat, exc, started)
    return output_entry(row, repeat, value, started)


def output_entry(row: dict, repeat: int, value: Any, started: float) -> dict:
    """What is pushed for a row the task answered; a return value the API would refuse
    becomes that row's error, so it never spoils its batch."""
    entry = _entry_base(row, repeat, started)
    try:
        entry.update(output_fields(value))
    except (TypeError, ValueError) as exc:
        entry["error"] = describe(exc)
    return entry


def failed_entry(row: dict, repeat: int, exc: BaseException, started: float) -> dict:
    """What is pushed for a row whose task raised: the error, scored unknown."""
    return {**_entry_base(row, repeat, started), "error": describe(exc)}


def _entry_base(row: dict, repeat: int, started: float) -> dict:
    latency_ms = round((time.perf_counter() - started) * 1000, 3)
    return {"item_id": row["_item_id"], "repeat": repeat, "latency_ms": latency_ms}


def describe(exc: BaseException) -> str:
    """ "<Type>: <message>", capped."""
    return f"{type(exc).__name__}: {exc}"[:ERROR_CHARS]


def output_fields(value: Any) -> dict:
    """The pushed fields of a task's return value: a str is the output; a dict gives
    `actual_output` and optionally trajectory, tokens_in, tokens_out, cost (or an error)."""
    if isinstance(value, str):
        return {"actual_output": value}
    if inspect.iscoroutine(value):
        value.close()
        raise TypeError("the task returned a coroutine: declare it with async def")
    if not isinstance(value, dict):
        raise TypeError(
            f"the task returned {type(value).__name__}; return a str or a dict with actual_output"
        )
    unknown = set(value) - set(RETURN_KEYS)
    if unknown:
        raise ValueError(
            f"the task returned unknown key(s): {', '.join(sorted(map(str, unknown)))}"
        )
    fields = {k: value[k] for k in RETURN_KEYS if value.get(k) is not None}
    _check_fields(fields)
    return fields


def _check_fields(fields: dict) -> None:
    output = fields.get("actual_output")
    if output is None and "error" not in fields:
        raise ValueError("the task returned no actual_output")
    if output is not None and not (
        isinstance(output, str)
        or (isinstance(output, dict) and output.get("content_type") == "Text")
    ):
        raise TypeError(f"actual_output is {type(output).__name__}; return text")
    for key in ("tokens_in", "tokens_out"):
        if key in fields and not (_whole(fields[key]) and fields[key] >= 0):
            raise ValueError(f"{key} must be a whole number ≥ 0")
    if "cost" in fields and not (_number(fields["cost"]) and fields["cost"] >= 0):
        raise ValueError("cost must be a finite number ≥ 0")
    if "error" in fields and not isinstance(fields["error"], str):
        raise TypeError("error must be text")
    if "trajectory" in fields:
        json.dumps(fields["trajectory"], allow_nan=False)


def _whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)
