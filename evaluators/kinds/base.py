"""What an evaluator kind is: one small interface every kind module implements.

A kind owns its config keys (validation and a starter), what blocks a submit beyond the schema,
how a batch of turns runs, which queue its experiment chunks go to, and the editor partial of
the draft page. Everything else — variables, versions, debug, experiments, verdicts — is shared.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any, ClassVar


@dataclass(frozen=True)
class Batch:
    """What a kind runs: one config on some turns, in the workspace that owns them."""

    workspace: Any
    config: dict
    turns: list[dict]
    version_key: str | None = None  # a submitted version's key (answers cached); None: a draft
    concurrency: int = 16
    cancel: threading.Event | None = None
    # whose calls share the `concurrency` across workers ("experiment:<id>:judge"); None: this
    # batch alone
    run_key: str | None = None


class EvaluatorKindSpec:
    """Subclass, fill in the class attributes and methods, and `register()` an instance."""

    name: ClassVar[str]  # stored in Evaluator.kind
    label: ClassVar[str]  # shown in pages and errors
    queue: ClassVar[str]  # "code" (CPU-bound chunks) or "llm" (IO-bound chunks)
    keys: ClassVar[frozenset[str]]  # config keys besides input_variables
    # The draft page's structured editor for the kind's keys; None: the JSON view only.
    editor_template: ClassVar[str | None] = None
    # How the debug panel shows one outcome; None: the shared card (verdict, score, reason).
    debug_template: ClassVar[str | None] = None
    # Judges two outputs side by side (`output_a`, `output_b`): pairwise runs use such kinds,
    # experiments scoring one output per row cannot.
    pairwise: ClassVar[bool] = False

    def validate(self, config: dict, errors) -> dict:
        """The kind's keys of `config`, normalised; problems go to `errors.add(path, msg)`."""
        raise NotImplementedError

    def default_config(self, language: str | None) -> dict:
        """A blank-but-valid starter config (before validation)."""
        raise NotImplementedError

    def check(self, config: dict, errors, *, model_configured: bool) -> None:
        """The cheap checks that block submitting a schema-valid config (errors.add(path, msg))."""

    def model_configured(self, config: dict, *, workspace) -> bool:
        """Whether the config's model provider is usable here (kinds without a model: True)."""
        return True

    def deep_problems(self, config: dict) -> dict[str, list[str]]:
        """Checks that need the runtime (the sandbox), run only after the cheap ones pass."""
        return {}

    def template_languages(self, template) -> list[str]:
        """The languages a preset of this kind comes in (empty when it has none)."""
        return []

    def from_template(
        self, template, *, workspace, language: str | None, prompt_locale: str = "en"
    ) -> dict:
        """The config an evaluator started from `template` gets (a judge's prompt in
        `prompt_locale`, one of evaluators.presets.PROMPT_LOCALES)."""
        raise NotImplementedError

    def run(self, batch: Batch) -> list[Any]:
        """One RunOutcome per turn of `batch`, in order; a row's failure is its outcome, never an
        exception. Raise `evaluators.runner.RunCancelled` when `cancel` stops the batch."""
        raise NotImplementedError

    def summary(self, config: dict) -> str:
        """The kind in a few words for lists and headers."""
        return str(self.label)

    def editor_context(self, *, workspace) -> dict:
        """Extra template context for the editor partial."""
        return {}
