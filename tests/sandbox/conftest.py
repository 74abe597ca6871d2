"""Sandbox tests: make the package importable, and print the isolation level reached in the
terminal summary (visible with or without -s)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parents[2]
if str(REPO_ROOT) not in sys.path:  # the sandbox package lives at the repository root
    sys.path.insert(0, str(REPO_ROOT))

from tests.sandbox import support  # noqa: E402 - sets the canary before any sandbox starts

assert support.CANARY


def pytest_terminal_summary(terminalreporter: Any) -> None:
    """Print the isolation level reached, so every test log records it."""
    if "sandbox" not in sys.modules:
        return
    import sandbox

    report = sandbox.isolation_report()
    terminalreporter.section("sandbox isolation")
    terminalreporter.write_line(json.dumps(report, indent=1, sort_keys=True))
