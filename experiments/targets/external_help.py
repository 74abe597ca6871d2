"""What the external target's help shows: the `assay run` command for a set and its
evaluators, and the `curl` pushes for one waiting run — shell-quoted, so any name pastes."""

from __future__ import annotations

import json

TASK = "my_app.eval:answer"


def shell_quote(text: str) -> str:
    """`text` as one POSIX shell word (single quotes; a quote inside closes and reopens)."""
    return "'" + text.replace("'", "'\\''") + "'"


def ref(name: str, version: str) -> str:
    """A library item as the client names it: NAME@VERSION."""
    return f"{name}@{version}"


def run_command(*, evalset: str, evaluators: list[str]) -> str:
    """`assay run` with the set and every evaluator (NAME@VERSION each)."""
    words = ["assay run", f"--task {TASK}", f"--evalset {shell_quote(evalset)}"]
    words += [f"--evaluator {shell_quote(e)}" for e in evaluators]
    return " \\\n  ".join(words)


def push_command(*, api: str, experiment_id: str, item_id: str) -> str:
    """`curl` pushing one row's output to the waiting run (the token from ASSAY_TOKEN)."""
    body = json.dumps({"outputs": [{"item_id": item_id, "actual_output": "…"}]}, ensure_ascii=False)
    return " \\\n  ".join(
        [
            f"curl -X POST {shell_quote(f'{api}experiments/{experiment_id}/outputs/')}",
            '-H "Authorization: Bearer $ASSAY_TOKEN"',
            "-H 'Content-Type: application/json'",
            f"-d {shell_quote(body)}",
        ]
    )


def close_command(*, api: str, experiment_id: str) -> str:
    """`curl` closing the run: rows never pushed are scored unknown."""
    return " \\\n  ".join(
        [
            f"curl -X POST {shell_quote(f'{api}experiments/{experiment_id}/close/')}",
            '-H "Authorization: Bearer $ASSAY_TOKEN"',
        ]
    )
