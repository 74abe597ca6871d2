"""The progress display of a run: rows the task finished, then results the server scored
(a rich progress bar on stderr, so stdout stays clean for the result)."""

from __future__ import annotations

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
)


class RunProgress:
    """Two bars, "task" and "scoring"; with `enabled=False` every call does nothing."""

    def __init__(self, *, enabled: bool, console: Console | None = None):
        self.enabled = enabled
        self._console = console
        self._bar: Progress | None = None
        self._tasks: dict[str, int] = {}

    def __enter__(self) -> RunProgress:
        if self.enabled:
            self._bar = Progress(
                TextColumn("{task.description:<8}"),
                BarColumn(),
                MofNCompleteColumn(),
                TimeElapsedColumn(),
                console=self._console or Console(stderr=True),
            )
            self._bar.start()
        return self

    def __exit__(self, *exc_info) -> None:
        if self._bar is not None:
            self._bar.stop()
            self._bar = None

    def rows(self, done: int, total: int) -> None:
        """The task has answered `done` of `total` rows × repetitions."""
        self._show("task", done, total)

    def scored(self, done: int, total: int) -> None:
        """The server has `done` of `total` results."""
        self._show("scoring", done, total)

    def _show(self, name: str, done: int, total: int) -> None:
        if self._bar is None:
            return
        if name not in self._tasks:
            self._tasks[name] = self._bar.add_task(name, total=total or None)
        self._bar.update(self._tasks[name], completed=done, total=total or None)
