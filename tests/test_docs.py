"""The docs name only files that exist: a path in backticks in the README, CONTRIBUTING or
docs/ that starts with one of the repository's folders must be there."""

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FOLDERS = (
    "assay",
    "evaluators",
    "evalsets",
    "experiments",
    "sandbox",
    "traces",
    "tests",
    "bench",
    "scripts",
    "templates",
    "static",
    "docs",
    "docker",
    "deploy",
    "clients",
    "locale",
)
PATH = re.compile(r"`((?:" + "|".join(FOLDERS) + r")/[\w/.*-]*)`")
DOCS = [ROOT / "README.md", ROOT / "CONTRIBUTING.md", *sorted((ROOT / "docs").rglob("*.md"))]


@pytest.mark.parametrize("doc", DOCS, ids=[str(d.relative_to(ROOT)) for d in DOCS])
def test_every_path_a_doc_names_exists(doc):
    missing = [ref for ref in PATH.findall(doc.read_text()) if not any(ROOT.glob(ref.rstrip("/")))]
    assert missing == []
