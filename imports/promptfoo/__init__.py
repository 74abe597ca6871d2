"""The promptfoo importer: a `promptfooconfig.yaml` (and the tests file it may name) → an
evalset version, evaluators and a draft experiment binding them to the rows that carry them.

Each var is a column; the rendered prompt (the first of `prompts`) is a `prompt` column; each
assertion that takes a per-test value has its own `expected_…` column. Identical assertions
are one evaluator: one reading a column scores the rows where that column has a value, one
holding its value scores the rows tagged with its tag (every row: no filter). The draft
experiment's target is external: promptfoo's providers are not called here, the team's code
pushes the outputs (`assay run`). See docs/design/promptfoo-import.md.
"""

from __future__ import annotations

from django.utils.translation import gettext_lazy as _

from ..kinds import FileSpec, ImporterKind
from .build import promptfoo_import


class PromptfooImporter(ImporterKind):
    name = "promptfoo"
    label = "promptfoo"
    files = (
        FileSpec("config", True, _("The suite's promptfooconfig.yaml.")),
        FileSpec(
            "tests",
            False,
            _(
                "The tests file the config names (tests: file://tests.csv): CSV, JSONL, JSON "
                "or YAML; none when the tests are in the config."
            ),
        ),
    )

    def run(self, *, workspace, user, files, options, report):
        """The suite in `files`, made into Assay objects (see the module's docstring)."""
        promptfoo_import(
            workspace=workspace, user=user, files=files, options=options, report=report
        )
