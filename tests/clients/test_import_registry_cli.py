"""`assay import` of a Langfuse dataset and an openai/evals registry eval against a live
server, as docs/migrate.md shows: bare paths fill the importer's files in order, options as
--option KEY=VALUE."""

from __future__ import annotations

from pathlib import Path

import pytest
from assay_client.cli import main
from click.testing import CliRunner

from evaluators.models import Evaluator
from imports.models import ImportRun

FIXTURES = Path(__file__).parent.parent / "fixtures"
REGISTRY = FIXTURES / "openai_evals_registry"

pytestmark = pytest.mark.django_db(transaction=True)


def assay(*args: str):
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def test_a_registry_eval_is_imported_by_its_importers_name(assay_env, workspace):
    spec, samples = str(REGISTRY / "capitals.yaml"), str(REGISTRY / "capitals_samples.jsonl")
    done = assay(
        "import", "openai-evals-registry", spec, samples, "--option", "eval=capitals-fuzzy"
    )
    assert done.exit_code == 0, done.output
    assert "  ✓ capitals-fuzzy.dev.v0 → Python code evaluator" in done.output
    assert ImportRun.objects.get(workspace=workspace).kind == "openai-evals-registry"
    assert Evaluator.objects.filter(workspace=workspace).count() == 5


def test_a_langfuse_dataset_is_imported(assay_env, workspace):
    items = str(FIXTURES / "datasets" / "langfuse_items.json")
    done = assay("import", "dataset", items, "--option", "name=capitals")
    assert done.exit_code == 0, done.output
    assert "  ✓ input.question → column question (Text)" in done.output.splitlines()
