"""The bridge from evaluators to the sandbox: checks and batch runs of code evaluators."""

from __future__ import annotations

from django.conf import settings


def code_check(*, language: str, source: str) -> dict:
    """Syntax, contract and import checks, run inside the sandbox: {ok, errors[{line, message}]}."""
    import sandbox

    result = sandbox.check(language, source)
    errors = [{"line": e.get("line"), "message": e.get("message", "")} for e in result.errors]
    return {"ok": bool(result.ok), "errors": errors}


def code_run_batch(*, config: dict, turns: list[dict], cancel=None) -> list:
    """Run a code evaluator config on turns in one sandbox batch; one Outcome per turn.

    Setting `cancel` (a threading.Event) kills the running child: `sandbox.Cancelled`.
    """
    import sandbox

    return sandbox.execute(
        config["language"],
        config["source"],
        turns,
        timeout_s=float(config.get("timeout_s", 5.0)),
        memory_mb=int(config.get("memory_mb", 256)),
        require_netns=settings.ASSAY_REQUIRE_NETNS,
        cancel=cancel,
    )
