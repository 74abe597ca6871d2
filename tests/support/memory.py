"""The process's peak resident memory over a piece of work (Linux): the kernel's high-water
mark (VmHWM) is reset to the current RSS first (`/proc/self/clear_refs`), so the peak read
after covers only what ran in between — threads of this process included (the in-process
worker, the scripted app)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

STATUS = Path("/proc/self/status")
CLEAR_REFS = Path("/proc/self/clear_refs")


def _status_kb(field: str) -> int:
    line = next(x for x in STATUS.read_text().splitlines() if x.startswith(field + ":"))
    return int(line.split()[1])


def peak_growth_mb(work: Callable[[], Any]) -> tuple[Any, float]:
    """(what `work` returned, how far the process's peak RSS rose above its RSS before, MB)."""
    if not CLEAR_REFS.exists():
        pytest.skip("needs Linux's /proc/self/clear_refs to measure peak memory")
    CLEAR_REFS.write_text("5")
    before = _status_kb("VmRSS")
    done = work()
    return done, (_status_kb("VmHWM") - before) / 1024
