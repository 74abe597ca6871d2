"""Helpers shared by the sandbox tests: a secret canary in the host environment, turn
builders, the attack corpus, and a leak detector."""

from __future__ import annotations

import json
import os
import secrets
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parents[2]

# Set at import, before any sandbox process starts: no outcome may ever contain it.
CANARY = "assay-canary-" + secrets.token_hex(8)
os.environ["ASSAY_SANDBOX_CANARY"] = CANARY

ATTACKS_PATH = REPO_ROOT.parent / "shared" / "sandbox-attacks.json"


def text(value: str) -> dict[str, str]:
    """A Text content object."""
    return {"content_type": "Text", "text": value}


def make_turn(actual: str, reference: str = "", **ext: str) -> dict[str, Any]:
    """A turn in Coze Loop's shape with actual_output and reference_output."""
    return {
        "evaluate_dataset_fields": {"reference_output": text(reference)},
        "evaluate_target_output_fields": {"actual_output": text(actual)},
        "ext": dict(ext),
    }


def host_secrets() -> list[str]:
    """Values of the host environment long enough to be recognisable in an outcome."""
    return [value for value in os.environ.values() if len(value) >= 6]


def leaked(outcome: Any) -> list[str]:
    """Host environment values that appear in any text field of an outcome."""
    fields = (outcome.reason or "", outcome.stdout, outcome.error)
    return [value for value in host_secrets() if any(value in field for field in fields)]


def load_attacks() -> list[dict[str, Any]]:
    """The shared attack corpus (empty if the shared folder is not next to the repository)."""
    if not ATTACKS_PATH.exists():
        return []
    return json.loads(ATTACKS_PATH.read_text())
