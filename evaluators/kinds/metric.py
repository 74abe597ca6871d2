"""The `metric` kind: a standard text metric computed in the host by its reference library.

No user code and no judge: exact / case-insensitive match, not-equal, OpenAI's like / ilike,
contains (any, all), starts-with, regex, fuzzy match and Levenshtein (rapidfuzz), BLEU
(sacrebleu), GLEU and METEOR (nltk), ROUGE-1…5 and ROUGE-L (rouge-score), JSON validity and
JSON Schema (jsonschema), numeric closeness, and the cosine of two embeddings from the
provider's `/embeddings` endpoint (`evaluators.metrics`). The config names the metric, its
options, the variable holding the output and where the reference comes from (a variable or a
fixed `reference_value`); `negate` turns a score s into 1 - s (promptfoo's `not-` forms). The
pass threshold is the evaluator's verdict policy, as for every kind: pass when score ≥ it.

A row without an output, or without the reference its metric needs, is skipped (unknown).
Batches go to the `code` queue: they are cheap CPU, and the embeddings' one request a batch
does not need the judges' pool.
"""

from __future__ import annotations

import time
from typing import Any

from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from assay.vocabulary import CONTENT_FIELD, ContentType

from ..config import NAME_RE, Errors
from ..metrics import METRICS, metric_catalogue, metric_choices
from ..metrics.options import MAX_VALUE_CHARS, REQUIRED
from ..metrics.scores import (
    BLEU_TOKENIZERS,
    FUZZY_SCORERS,
    METEOR_UNAVAILABLE,
    Scored,
    cosine,
    wordnet_reader,
)
from ..turns import turn_fields
from .base import EvaluatorKindSpec

OUTPUT, REFERENCE, VALUE = "output_variable", "reference_variable", "reference_value"
CANCEL_EVERY = 200  # rows between looks at the cancel event (a row takes micro- to milliseconds)


class MetricKind(EvaluatorKindSpec):
    name = "metric"
    label = _("Metric")
    queue = "code"
    keys = frozenset({"metric", OUTPUT, REFERENCE, VALUE, "options", "negate"})
    editor_template = "evaluators/kinds/_metric.html"

    def validate(self, config: dict, errors: Errors) -> dict:
        metric = config.get("metric")
        if metric not in METRICS:
            errors.add("metric", gettext("Unknown metric %(metric)r.") % {"metric": metric})
        return {
            "metric": metric,
            OUTPUT: _name(config.get(OUTPUT), OUTPUT, errors, optional=False),
            REFERENCE: _name(config.get(REFERENCE), REFERENCE, errors, optional=True),
            VALUE: _value(config.get(VALUE), errors),
            "options": _options(METRICS.get(metric), config.get("options", {}), errors),
            "negate": _flag(config.get("negate", False), "negate", errors),
        }

    def default_config(self, language: str | None) -> dict:
        text = {"content_type": "Text", "required": True}
        variables = [
            {"name": "actual_output", **text, "description": "The target's output."},
            {"name": "reference_output", **text, "description": "The expected output."},
        ]
        return {
            "input_variables": variables,
            "metric": "exact_match",
            OUTPUT: "actual_output",
            REFERENCE: "reference_output",
        }

    def check(self, config: dict, errors: Errors, *, model_configured: bool) -> None:
        """The variables it reads are declared Text ones, the reference comes from one place,
        and the metric can run here (an embedding model chosen; METEOR's WordNet present)."""
        metric = METRICS[config["metric"]]
        _check_variable(config, OUTPUT, errors)
        _check_reference(config, metric, errors)
        if metric.name == "meteor" and wordnet_reader() is None:
            errors.add("metric", METEOR_UNAVAILABLE)
        if metric.remote:
            _check_embedding(config, model_configured, errors)

    def model_configured(self, config: dict, *, workspace) -> bool:
        if not METRICS.get(config.get("metric")) or not METRICS[config["metric"]].remote:
            return True
        return _provider(workspace, config) is not None

    def from_template(
        self, template, *, workspace, language: str | None, prompt_locale: str = "en"
    ) -> dict:
        # a metric has no prompt: prompt_locale changes only the evaluator's name and notes
        return template.configs["metric"]

    def summary(self, config: dict) -> str:
        metric = METRICS.get(config.get("metric"))
        return f"{self.label} · {metric.label}" if metric else str(self.label)

    def editor_context(self, *, workspace) -> dict:
        from assay.selectors import providers_list

        providers = [
            {"id": str(p.public_id), "name": p.name} for p in providers_list(workspace=workspace)
        ]
        return {
            "metrics": metric_choices(),
            "metric_catalogue": metric_catalogue(),
            "metric_providers": providers,
            "fuzzy_scorers": FUZZY_SCORERS,
            "bleu_tokenizers": BLEU_TOKENIZERS,
        }

    def run(self, batch):
        return metric_run_batch(batch=batch)


# --------------------------------------------------------------------------- validation


def _name(value: Any, path: str, errors: Errors, *, optional: bool) -> Any:
    if value is None and optional:
        return None
    if not isinstance(value, str) or not NAME_RE.match(value):
        errors.add(path, gettext("Must name a declared variable."))
    return value


def _value(value: Any, errors: Errors) -> Any:
    if value is not None and not isinstance(value, str):
        errors.add(VALUE, gettext("Must be a string or null."))
    elif value is not None and len(value) > MAX_VALUE_CHARS:
        errors.add(VALUE, gettext("Must be at most %(n)s characters.") % {"n": MAX_VALUE_CHARS})
    return value


def _flag(value: Any, path: str, errors: Errors) -> Any:
    if not isinstance(value, bool):
        errors.add(path, gettext("Must be true or false."))
    return value


def _options(metric, value: Any, errors: Errors) -> dict:
    """The metric's options, each checked and defaulted; a required one (no default) named."""
    if not isinstance(value, dict):
        errors.add("options", gettext("Must be an object."))
        return {}
    if metric is None:
        return value
    errors.unknown_keys("options", value, set(metric.options))
    out = {}
    for key, (check, default) in metric.options.items():
        if key not in value and default is REQUIRED:
            errors.add(f"options.{key}", gettext("Required for this metric."))
            continue
        out[key] = check(value.get(key, default), f"options.{key}", errors)
    return out


def _check_variable(config: dict, key: str, errors: Errors) -> None:
    declared = {v["name"]: v["content_type"] for v in config["input_variables"]}
    name = config[key]
    if name not in declared:
        errors.add(
            key, gettext("Variable %(name)r is not declared in input_variables.") % {"name": name}
        )
    elif declared[name] != ContentType.TEXT:
        errors.add(key, gettext("Variable %(name)r must be a Text variable.") % {"name": name})


def _check_reference(config: dict, metric, errors: Errors) -> None:
    given = [key for key in (REFERENCE, VALUE) if config[key] is not None]
    if not metric.needs_reference:
        for key in given:
            errors.add(key, gettext("This metric takes no reference; leave it empty."))
    elif len(given) != 1:
        errors.add(
            REFERENCE,
            gettext("Name the reference variable or give a fixed reference value (one of them)."),
        )
    elif given == [REFERENCE]:
        _check_variable(config, REFERENCE, errors)


def _check_embedding(config: dict, model_configured: bool, errors: Errors) -> None:
    if not config["options"]["model"].strip():
        errors.add("options.model", gettext("Choose an embedding model."))
    if not model_configured:
        errors.add(
            "options.provider_id",
            gettext("No usable model provider is configured for this evaluator."),
        )


def _provider(workspace, config: dict):
    from assay.selectors import provider_find

    return provider_find(workspace=workspace, public_id=config["options"].get("provider_id"))


# --------------------------------------------------------------------------- running


def metric_run_batch(*, batch) -> list:
    """Score every turn of a kind `Batch` with its metric: one RunOutcome a turn, a row
    without an output (or a needed reference) skipped, a row the metric cannot score an
    error; the embeddings of a batch fetched at once (`evaluators.metrics.embeddings`)."""
    from ..runner import RunCancelled

    config = batch.config
    metric = METRICS[config["metric"]]
    pairs = [_texts(config, metric, turn) for turn in batch.turns]
    scorer = _embedding_scorer(batch, pairs) if metric.remote else metric.score
    outcomes = []
    for i, pair in enumerate(pairs):
        if batch.cancel is not None and i % CANCEL_EVERY == 0 and batch.cancel.is_set():
            raise RunCancelled
        outcomes.append(_scored_row(config, scorer, pair))
    return outcomes


def _texts(config: dict, metric, turn: dict) -> tuple[str | None, str | None] | str:
    """(output, reference) of a turn, or why it cannot be scored."""
    fields = turn_fields(turn)
    output = _text(fields.get(config[OUTPUT]))
    if output is None:
        return f"no output in {config[OUTPUT]!r}"
    if not metric.needs_reference:
        return output, None
    reference = config[VALUE] if config[VALUE] is not None else _text(fields.get(config[REFERENCE]))
    if reference is None:
        return f"no reference in {config[REFERENCE]!r}"
    return output, reference


def _text(content: Any) -> str | None:
    """A Text content's text (None when absent or empty: no output is unknown, not a fail)."""
    if not isinstance(content, dict):
        return None
    value = content.get(CONTENT_FIELD[ContentType.TEXT])
    return value if isinstance(value, str) and value != "" else None


def _scored_row(config: dict, scorer, pair):
    from ..runner import RunOutcome

    if isinstance(pair, str):
        return RunOutcome(status="skipped", error=pair)
    started = time.perf_counter()
    try:
        scored = scorer(pair[0], pair[1], config["options"])
    except Exception as exc:  # a library's failure on one row is that row's error
        scored = Scored(None, error=f"{type(exc).__name__}: {exc}")
    latency = (time.perf_counter() - started) * 1000
    if scored.error:
        return RunOutcome(status="error", error=scored.error, latency_ms=latency)
    score, reason = scored.score, scored.reason
    if config["negate"]:
        score, reason = 1.0 - score, f"not: {reason}"
    extra = {"metric": config["metric"], **scored.extra}
    return RunOutcome(status="success", score=score, reason=reason, latency_ms=latency, extra=extra)


def _embedding_scorer(batch, pairs: list):
    """A scorer over the batch's vectors, fetched once for every distinct text; when the
    provider fails, every row says why."""
    from ..metrics.embeddings import EmbeddingError, embeddings_fetch

    texts = [text for pair in pairs if not isinstance(pair, str) for text in pair]
    provider = _provider(batch.workspace, batch.config)
    options = batch.config["options"]
    try:
        if provider is None:
            raise EmbeddingError("no model provider is configured for this evaluator")
        vectors = (
            embeddings_fetch(
                provider=provider, model=options["model"], texts=texts, marker=batch.run_key
            )
            if texts
            else {}
        )
    except EmbeddingError as exc:
        message = str(exc)
        return lambda output, reference, _options: Scored(None, error=message)

    def score(output: str, reference: str, _options: dict) -> Scored:
        value = cosine(vectors[output], vectors[reference])
        # a score lies in [0, 1]: opposite directions count as no similarity
        clipped = min(max(value, 0.0), 1.0)
        return Scored(clipped, f"cosine {value:.4f}", {"cosine": value})

    return score


__all__ = ["MetricKind", "metric_run_batch"]
