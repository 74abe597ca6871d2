"""Where bubblewrap is installed and we start as root, the sandbox must reach its strongest
level — whatever directory the checkout and its virtualenv live in (even under /tmp)."""

import os
import shutil

import pytest

import sandbox


@pytest.mark.skipif(
    shutil.which("bwrap") is None or os.geteuid() != 0,
    reason="bubblewrap not installed or not root: the fallback levels apply",
)
def test_bubblewrap_level_is_reached_when_available():
    report = sandbox.isolation_report()
    assert report.get("bubblewrap") is True, report.get("bubblewrap_error")
    assert report["level"] == "strong"
    assert report["network_namespace"] is True and report["uid_dropped"] is True


def test_isolation_never_silently_absent():
    report = sandbox.isolation_report()
    assert report["level"] in {"strong", "standard", "degraded"}
    outcome = sandbox.execute("python", "def exec_evaluation(t):\n    return 1\n", [{}])[0]
    assert outcome.status == "ok" and outcome.score == 1.0
