"""`Client.run_experiment` end to end against the live server: the client fetches the rows,
calls the task (threads or asyncio), pushes the outputs, and the server's worker scores them
with a real code evaluator."""

from __future__ import annotations

import asyncio
import threading
from collections import Counter

import pytest

from tests.clients.conftest import echo_last_word

pytestmark = pytest.mark.django_db(transaction=True)


def index(row: dict) -> int:
    """The row's number: "say w7" → 7."""
    return int(row["input"].rsplit("w", 1)[1])


class Peak:
    """Counts calls in flight, and the most seen at once."""

    def __init__(self):
        self.now = self.most = 0
        self.lock = threading.Lock()
        self.calls: Counter = Counter()

    def enter(self, row: dict) -> None:
        with self.lock:
            self.now += 1
            self.most = max(self.most, self.now)
            self.calls[row["input"]] += 1

    def leave(self) -> None:
        with self.lock:
            self.now -= 1


def verdicts_by_position(client, experiment_id: str) -> dict[int, dict]:
    rows = list(client.results(experiment_id))
    assert len({r["position"] for r in rows}) == len(rows)  # one evaluator, one repetition
    return {r["position"]: r for r in rows}


def test_a_sync_task_is_scored_row_by_row_and_its_errors_become_unknowns(
    client, server, words, contains
):
    peak = Peak()

    def task(row):
        peak.enter(row)
        try:
            i = index(row)
            if i == 6:
                raise RuntimeError("model unavailable for w6")
            if i == 10:
                return 42  # not an output: this row's error, not the whole batch's
            return "no idea" if i % 4 == 1 else echo_last_word(row)
        finally:
            peak.leave()

    result = client.run_experiment(
        evalset="Words@1.0.0", evaluators=["Contains@1.0.0"], task=task, concurrency=3
    )

    assert result.completed, result.raw
    assert peak.most <= 3 and set(peak.calls.values()) == {1} and len(peak.calls) == 12
    contains_numbers = result.evaluator("Contains")
    assert (contains_numbers.passed, contains_numbers.fails, contains_numbers.nones) == (7, 3, 2)
    assert contains_numbers.version == "1.0.0"
    assert contains_numbers.pass_rate == pytest.approx(7 / 10)
    assert result.outputs_received == 12
    assert result.counts["verdicts"] == {"pass": 7, "fail": 3, "unknown": 2}
    assert result.url == f"{server}/w/acme/experiments/{result.id}/"

    rows = verdicts_by_position(client, result.id)
    expected = {
        i: "unknown" if i in (6, 10) else "fail" if i % 4 == 1 else "pass" for i in range(12)
    }
    assert {i: r["final_verdict"] for i, r in rows.items()} == expected
    assert "RuntimeError: model unavailable for w6" in rows[6]["error"]
    assert "the task returned int" in rows[10]["error"]
    assert rows[0]["error"] == "" and rows[0]["reason"] == "contains"


def test_an_async_task_runs_on_an_event_loop_within_its_concurrency(client, words, contains):
    peak = Peak()

    async def task(row):
        peak.enter(row)
        try:
            await asyncio.sleep(0.01)  # a model call: the other rows start meanwhile
            return "wrong" if index(row) % 3 == 0 else echo_last_word(row)
        finally:
            peak.leave()

    result = client.run_experiment(
        evalset="Words@1.0.0",
        evaluators=["Contains@1.0.0"],
        task=task,
        concurrency=4,
        name="async words",
    )

    assert result.completed and result.name == "async words"
    assert 2 <= peak.most <= 4 and len(peak.calls) == 12
    numbers = result.evaluator("Contains")
    assert (numbers.passed, numbers.fails, numbers.nones) == (8, 4, 0)
    rows = verdicts_by_position(client, result.id)
    assert [i for i, r in sorted(rows.items()) if r["final_verdict"] == "fail"] == [0, 3, 6, 9]


def test_repetitions_call_the_task_again_per_row_and_push_every_output(client, words, contains):
    peak = Peak()

    def task(row):
        peak.enter(row)
        peak.leave()
        return {"actual_output": echo_last_word(row), "tokens_in": 3, "tokens_out": 5}

    result = client.run_experiment(
        evalset="Words@1.0.0", evaluators=["Contains@1.0.0"], task=task, repetitions=2
    )

    assert result.completed
    assert set(peak.calls.values()) == {2} and len(peak.calls) == 12
    assert result.outputs_received == 24 and result.raw["results_total"] == 24
    assert result.raw["repetitions"] == 2
    numbers = result.evaluator("Contains")
    assert (numbers.passed, numbers.fails, numbers.nones) == (24, 0, 0)
    summary = result.raw["bindings"][0]["summary"]
    assert summary["interval"] == "clustered by item"  # the server saw two per row
    assert summary["repetitions"]["k"] == 2
    assert len(list(client.results(result.id))) == 24


def test_a_task_that_stops_the_run_cancels_the_experiment(client, words, contains):
    created = []

    def task(row):
        if index(row) == 3:
            raise KeyboardInterrupt  # what Ctrl-C looks like from inside the task
        return echo_last_word(row)

    with pytest.raises(KeyboardInterrupt):
        client.run_experiment(
            evalset="Words@1.0.0",
            evaluators=["Contains@1.0.0"],
            task=task,
            concurrency=1,
            on_created=created.append,
        )

    [experiment] = created
    assert client.experiment(experiment["id"])["status"] == "cancelled"


def test_experiments_are_listed_across_pages_and_filtered(client, words, contains):
    first = client.run_experiment(
        evalset="Words@1.0.0", evaluators=["Contains@1.0.0"], task=echo_last_word, name="one"
    )
    second = client.run_experiment(
        evalset="Words@1.0.0", evaluators=["Contains@1.0.0"], task=echo_last_word, name="two"
    )

    paged = list(client.pages("experiments/", {"page_size": 1}))
    assert [e["id"] for e in paged] == [second.id, first.id]  # newest first, page by page
    by_name = list(client.experiments(evalset="Words@1.0.0", status="completed"))
    assert {e["name"] for e in by_name} == {"one", "two"}
    assert list(client.experiments(status="running")) == []
