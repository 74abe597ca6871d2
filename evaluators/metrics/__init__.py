"""Standard text metrics, each computed by a well-kept library (never re-implemented here).

`METRICS` is the catalogue the `metric` evaluator kind (`evaluators.kinds.metric`) validates
against and runs: a metric's name, whether it compares the output with a reference, its
options (checker and default) and its scorer `(output, reference, options) -> Scored`. The
embedding cosine is the one metric scored per batch (`remote`): its vectors come from the
provider (`evaluators.metrics.embeddings`).

Names follow OpenAI's graders (`string_check` operations and `text_similarity` metrics) and
promptfoo's assertions, so that importers map onto one metric and its options exactly.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from django.utils.translation import gettext_lazy as _

from . import options as opt
from . import scores

ROUGE_TYPES = {f"rouge_{n}": f"rouge{n}" for n in range(1, 6)} | {"rouge_l": "rougeL"}
CASE = {"case_sensitive": (opt.flag, True)}
SPLIT = {"tokenize": (opt.choice(*scores.SPLITS), "space")}


@dataclass(frozen=True)
class Metric:
    """One metric: its options ({name: (checker, default)}) and its scorer."""

    name: str
    label: Any
    score: Callable[..., scores.Scored] | None
    needs_reference: bool = True
    options: dict = field(default_factory=dict)
    remote: bool = False  # scored per batch through the provider (embeddings)


def _rouge(name: str) -> Metric:
    options = {
        "measure": (opt.choice("fmeasure", "precision", "recall"), "fmeasure"),
        "use_stemmer": (opt.flag, False),
        "tokenize": (opt.choice("default", "char"), "default"),
    }
    label = f"ROUGE-{name.removeprefix('rouge_').upper()}"
    return Metric(name, label, scores.rouge(ROUGE_TYPES[name]), options=options)


_METRICS = [
    Metric("exact_match", _("Exact match"), scores.exact_match),
    Metric("case_insensitive_match", _("Case-insensitive match"), scores.case_insensitive),
    Metric("not_equal", _("Not equal"), scores.not_equal),
    Metric("like", _("Contains (like, case-sensitive)"), scores.like),
    Metric("ilike", _("Contains (ilike, ignoring case)"), scores.ilike),
    Metric("contains", _("Contains"), scores.contains, options=dict(CASE)),
    Metric(
        "contains_any",
        _("Contains any of"),
        scores.contains_any,
        needs_reference=False,
        options={"values": (opt.texts, opt.REQUIRED), **CASE},
    ),
    Metric(
        "contains_all",
        _("Contains all of"),
        scores.contains_all,
        needs_reference=False,
        options={"values": (opt.texts, opt.REQUIRED), **CASE},
    ),
    Metric("starts_with", _("Starts with"), scores.starts_with, options=dict(CASE)),
    Metric(
        "regex",
        _("Regular expression"),
        scores.regex_match,
        needs_reference=False,
        options={"pattern": (opt.pattern, opt.REQUIRED), "ignore_case": (opt.flag, False)},
    ),
    Metric(
        "fuzzy_match",
        _("Fuzzy match"),
        scores.fuzzy,
        options={
            "scorer": (opt.choice(*scores.FUZZY_SCORERS), "ratio"),
            "preprocess": (opt.flag, False),
        },
    ),
    Metric(
        "levenshtein",
        _("Levenshtein distance"),
        scores.levenshtein,
        options={"max_distance": (opt.whole(0, 100_000), 5)},
    ),
    Metric(
        "bleu",
        "BLEU",
        scores.bleu,
        options={
            "tokenize": (opt.choice(*scores.BLEU_TOKENIZERS), "13a"),
            "smooth_method": (opt.choice("exp", "floor", "add-k", "none"), "exp"),
            "lowercase": (opt.flag, False),
        },
    ),
    Metric("gleu", "GLEU", scores.gleu, options=dict(SPLIT)),
    Metric("meteor", "METEOR", scores.meteor, options=dict(SPLIT)),
    *[_rouge(name) for name in ROUGE_TYPES],
    Metric("json_valid", _("Valid JSON"), scores.json_valid, needs_reference=False),
    Metric(
        "json_schema",
        _("Matches a JSON Schema"),
        scores.json_schema_match,
        needs_reference=False,
        options={"schema": (opt.json_schema, opt.REQUIRED)},
    ),
    Metric(
        "contains_json",
        _("Contains JSON"),
        scores.contains_json,
        needs_reference=False,
        options={"schema": (opt.optional_schema, None)},
    ),
    Metric(
        "numeric",
        _("Numeric closeness"),
        scores.numeric,
        options={"abs_tol": (opt.non_negative, 0.0), "rel_tol": (opt.non_negative, 0.0)},
    ),
    Metric(
        "embedding_cosine",
        _("Embedding cosine similarity"),
        None,
        options={"provider_id": (opt.provider_id, None), "model": (opt.model_name, "")},
        remote=True,
    ),
]
METRICS: dict[str, Metric] = {metric.name: metric for metric in _METRICS}


def metric_choices() -> list[tuple[str, str]]:
    """(name, label) of every metric, in the catalogue's order (the editor's list)."""
    return [(m.name, str(m.label)) for m in _METRICS]


def metric_catalogue() -> list[dict]:
    """What the editor needs of each metric: its name, label, whether it takes a reference
    and the defaults of its options (required ones left out)."""
    return [
        {
            "name": m.name,
            "label": str(m.label),
            "needs_reference": m.needs_reference,
            "defaults": {k: d for k, (_, d) in m.options.items() if d is not opt.REQUIRED},
        }
        for m in _METRICS
    ]


__all__ = ["METRICS", "Metric", "metric_catalogue", "metric_choices"]
