"""Evaluators: a mutable draft plus immutable submitted versions that experiments pin."""

from __future__ import annotations

import uuid

from django.conf import settings
from django.db import models
from django.utils.translation import get_language

from assay.bases import Authored, ImmutableModel, LibraryItem
from assay.vocabulary import ScoreMeaning, Verdict


def default_policy() -> dict:
    return {"kind": "threshold", "threshold": 0.5}


class KindMixin:
    """The label and behaviour of the object's kind come from its plug-in (evaluators.kinds)."""

    @property
    def kind_spec(self):
        from .kinds import kind_get

        return kind_get(self.kind)

    @property
    def kind_label(self) -> str:
        return str(self.kind_spec.label)

    @property
    def kind_summary(self) -> str:
        """The kind in a few words for lists and headers ("Code · python")."""
        config = getattr(self, "draft_config", None) or getattr(self, "config", None) or {}
        return self.kind_spec.summary(config)


class EvaluatorTemplate(KindMixin, models.Model):
    """A preset from the catalogue in evaluators/presets/, synced into the database on migrate."""

    slug = models.SlugField(max_length=80, unique=True)
    name = models.CharField(max_length=120)
    kind = models.CharField(max_length=16, help_text="A kind registered in evaluators.kinds.")
    description = models.TextField()
    inputs = models.TextField(blank=True)
    score_meaning = models.CharField(max_length=8, choices=ScoreMeaning.choices)
    default_policy = models.JSONField(default=default_policy)
    tags = models.JSONField(default=list)
    configs = models.JSONField(help_text="config per language for code; {'llm': config} for LLM")
    locale = models.JSONField(
        default=dict,
        blank=True,
        help_text="The preset per language: {lang: {name, description, inputs, config}}",
    )
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["kind", "name"]

    def __str__(self) -> str:
        return self.name

    def localized(self, field: str, language: str | None = None) -> str:
        """`field` (name, description, inputs) in `language` (default: the request's), falling
        back to the English text when the preset has no such translation."""
        entry = self.locale.get((language or get_language() or "en").lower(), {})
        return entry.get(field) or getattr(self, field)

    @property
    def display_name(self) -> str:
        return self.localized("name")

    @property
    def display_description(self) -> str:
        return self.localized("description")

    @property
    def display_inputs(self) -> str:
        return self.localized("inputs")

    def judge_config(self, prompt_locale: str) -> dict:
        """A judge's config with its prompt in `prompt_locale` (English when not translated)."""
        entry = self.locale.get(prompt_locale, {})
        return entry.get("config") or self.configs["llm"]

    @property
    def languages(self) -> list[str]:
        return self.kind_spec.template_languages(self)


class Evaluator(KindMixin, LibraryItem):
    """The unit users manage: a draft config they edit, and the versions they submit."""

    kind = models.CharField(max_length=16, help_text="A kind registered in evaluators.kinds.")
    score_meaning = models.CharField(
        max_length=8, choices=ScoreMeaning.choices, default=ScoreMeaning.QUALITY
    )
    default_policy = models.JSONField(default=default_policy)
    draft_config = models.JSONField()
    draft_changed = models.BooleanField(
        default=True, help_text="The draft differs from the latest submitted version."
    )
    template = models.ForeignKey(
        EvaluatorTemplate, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    updated_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )

    class Meta(LibraryItem.Meta):
        pass

    @property
    def latest_version(self) -> EvaluatorVersion | None:
        return super().latest_version


class EvaluatorVersion(KindMixin, ImmutableModel):
    """A frozen snapshot of a draft. Never updated, never deleted: experiments pin it."""

    public_id = models.UUIDField(default=uuid.uuid4, unique=True, editable=False)
    evaluator = models.ForeignKey(Evaluator, on_delete=models.PROTECT, related_name="versions")
    version = models.CharField(max_length=64)
    change_note = models.TextField(blank=True)
    kind = models.CharField(max_length=16, help_text="A kind registered in evaluators.kinds.")
    score_meaning = models.CharField(max_length=8, choices=ScoreMeaning.choices)
    default_policy = models.JSONField()
    config = models.JSONField()
    config_hash = models.CharField(max_length=64)
    test_result = models.JSONField(null=True, blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["evaluator", "version"], name="unique_evaluator_version"
            )
        ]
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.evaluator.name}@{self.version}"


class EvaluatorTestCase(Authored):
    """A debug turn kept with the verdict the user expects: the evaluator's regression test."""

    public_id = models.UUIDField(default=uuid.uuid4, unique=True, editable=False)
    evaluator = models.ForeignKey(Evaluator, on_delete=models.CASCADE, related_name="test_cases")
    name = models.CharField(max_length=120)
    turn = models.JSONField()
    expected_verdict = models.CharField(max_length=8, choices=Verdict.choices)
    note = models.TextField(blank=True)

    class Meta:
        ordering = ["created_at", "pk"]

    def __str__(self) -> str:
        return self.name
