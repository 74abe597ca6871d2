"""What each promptfoo assertion becomes: a `Plan` for an Assay evaluator (kind, config,
pass threshold) and the value a row gives it, or why it cannot be mapped.

Metric assertions follow docs/design/evaluator-kinds.md's table. A value that differs from
test to test (equals, contains, starts-with, the similarity metrics, the judges' rubric,
reference or criterion) is the row's: it goes into a column the evaluator reads, so one
evaluator serves every test with that assertion. A value that is part of the evaluator
(contains-any's list, a regex, a schema, code) makes one evaluator per distinct value.
`not-` forms score 1 − s (the metric's `negate`; for code and judges the shim or the
threshold flips). Values are promptfoo templates: `{{var}}` is filled from the test's vars.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from ..kinds import ImportProblem
from . import shims

# promptfoo's documented defaults for the similarity thresholds
DEFAULT_THRESHOLDS = {"rouge-n": 0.75, "bleu": 0.5, "similar": 0.75}
DEFAULT_EMBEDDING_MODEL = "text-embedding-3-large"
TEMPLATE_RE = re.compile(r"{{\s*([A-Za-z_][\w]*)\s*}}")
# per-row reference metrics: promptfoo type → (metric, options)
REFERENCE_METRICS = {
    "equals": ("exact_match", {}),
    "contains": ("contains", {"case_sensitive": True}),
    "icontains": ("contains", {"case_sensitive": False}),
    "starts-with": ("starts_with", {"case_sensitive": True}),
    "rouge-n": ("rouge_1", {}),
    "bleu": ("bleu", {}),
}
LIST_METRICS = {
    "contains-any": ("contains_any", True),
    "contains-all": ("contains_all", True),
    "icontains-any": ("contains_any", False),
    "icontains-all": ("contains_all", False),
}
JUDGES = ("llm-rubric", "factuality", "model-graded-factuality", "model-graded-closedqa")
# promptfoo's other documented assertion types: listed in the report, never dropped
NOT_MAPPED = {
    "latency": "a latency budget is about the provider's call, which Assay does not make here",
    "cost": "a cost budget is about the provider's call, which Assay does not make here",
    "perplexity": "needs the provider's token log-probabilities",
    "perplexity-score": "needs the provider's token log-probabilities",
    "finish-reason": "needs the provider's finish reason",
    "is-valid-openai-function-call": "needs the provider's function schema",
    "is-valid-openai-tools-call": "needs the provider's tool schemas",
    "is-valid-function-call": "needs the provider's function schema",
    "tool-call-f1": "needs the provider's tool calls",
    "trace-span-count": "needs promptfoo's traces",
    "trace-span-duration": "needs promptfoo's traces",
    "trace-error-spans": "needs promptfoo's traces",
    "classifier": "runs a HuggingFace classifier promptfoo calls",
    "moderation": "calls a moderation API",
    "guardrails": "reads the provider's guardrail result",
    "webhook": "calls the user's webhook",
    "select-best": "compares the outputs of several prompts of one test",
    "max-score": "compares the outputs of several prompts of one test",
    "human": "a person's rating in promptfoo's viewer",
    "assert-set": "a group with its own threshold; import its assertions one by one",
    "answer-relevance": "a RAG metric with its own embedding and judge steps",
    "context-faithfulness": "a RAG metric that needs the retrieved context",
    "context-recall": "a RAG metric that needs the retrieved context",
    "context-relevance": "a RAG metric that needs the retrieved context",
    "conversation-relevance": "needs the whole conversation",
    "g-eval": "a multi-step judge with its own scoring",
    "pi": "a provider-hosted scorer",
    "meteor": "not mapped by this importer yet (the metric kind has METEOR: add it by hand)",
    "gleu": "not mapped by this importer yet (the metric kind has GLEU: add it by hand)",
    "is-sql": "SQL parsing is not among the metric kind's checks",
    "contains-sql": "SQL parsing is not among the metric kind's checks",
    "is-xml": "XML parsing is not among the metric kind's checks",
    "contains-xml": "XML parsing is not among the metric kind's checks",
    "is-html": "HTML parsing is not among the metric kind's checks",
    "contains-html": "HTML parsing is not among the metric kind's checks",
    "is-refusal": "promptfoo's refusal heuristics are not among the metric kind's checks",
    "similar:dot": "only cosine similarity is mapped",
    "similar:euclidean": "only cosine similarity is mapped",
}
MAPPED = {
    *REFERENCE_METRICS,
    *LIST_METRICS,
    *JUDGES,
    "regex",
    "is-json",
    "contains-json",
    "levenshtein",
    "similar",
    "similar:cosine",
    "javascript",
    "python",
}


@dataclass(frozen=True)
class Plan:
    """An evaluator an assertion becomes; `value` is what the row gives it (None: nothing,
    the evaluator's config holds everything)."""

    kind: str
    label: str
    config: dict
    threshold: float
    value: str | None = None
    column: str = ""
    note: str = ""
    meaning: str = "quality"  # "risk" for a not- judge: it passes while the score stays below t

    def key(self) -> str:
        """Assertions with equal keys are one evaluator."""
        shape = [self.kind, self.config, self.threshold, self.meaning, self.value is None]
        return json.dumps(shape, sort_keys=True)


@dataclass(frozen=True)
class Suite:
    """What plans need beyond the assertion: the vars' names (code and judges read them),
    whether rows hold a rendered prompt, the workspace's provider for judges and embeddings."""

    var_names: tuple[str, ...]
    has_prompt: bool
    provider: object | None
    judge_model: str = ""


def assertion_type(where: str, assertion) -> tuple[str, bool]:
    """(the type without `not-`, negated); a type promptfoo does not have named by place."""
    if not isinstance(assertion, dict):
        raise ImportProblem(where, "an assertion is a mapping with a type")
    kind = assertion.get("type")
    if not isinstance(kind, str) or not kind:
        raise ImportProblem(where, "an assertion needs a type")
    negate = kind.startswith("not-")
    base = kind.removeprefix("not-")
    if base not in MAPPED and base not in NOT_MAPPED:
        raise ImportProblem(where, f"unknown assertion type {kind!r}")
    return base, negate


def unmapped_reason(base: str, assertion: dict) -> str:
    """Why an assertion of a known type is not mapped, or "" when it is."""
    if base in NOT_MAPPED:
        return NOT_MAPPED[base]
    value = assertion.get("value")
    if isinstance(value, str) and value.startswith("file://"):
        return "its value is read from a file the import does not have; write it inline"
    if base in JUDGES + ("similar", "similar:cosine") and not isinstance(value, str | int | float):
        return "needs a text value"
    return ""


def assertion_plan(where: str, assertion: dict, variables: dict, suite: Suite) -> Plan:
    """The evaluator plan of a mappable assertion, its value filled from the test's vars."""
    base, negate = assertion_type(where, assertion)
    value = render(assertion.get("value"), variables)
    threshold = _threshold(where, assertion)
    if base in REFERENCE_METRICS or base in ("levenshtein", "similar", "similar:cosine"):
        return _reference_plan(where, base, negate, value, threshold, suite, assertion)
    if base in LIST_METRICS:
        return _list_plan(where, base, negate, value)
    if base in ("regex", "is-json", "contains-json"):
        return _fixed_plan(where, base, negate, value)
    if base in ("javascript", "python"):
        return _code_plan(where, base, negate, value, threshold, suite)
    return _judge_plan(where, base, negate, value, threshold, suite, assertion)


def render(value, variables: dict):
    """A promptfoo template value with `{{var}}` filled in (other text as written)."""
    if isinstance(value, str):
        return TEMPLATE_RE.sub(lambda m: variables.get(m.group(1), m.group(0)), value)
    if isinstance(value, list):
        return [render(v, variables) for v in value]
    return value


def _threshold(where: str, assertion: dict) -> float | None:
    value = assertion.get("threshold")
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ImportProblem(f"{where}, threshold", "a number")
    return float(value)


def _name(base: str, negate: bool) -> str:
    return f"not-{base}" if negate else base


def _metric(metric: str, options: dict, negate: bool, *, reference: bool) -> dict:
    return {
        "metric": metric,
        "options": options,
        "negate": negate,
        "reference_variable": "reference" if reference else None,
    }


def _reference_plan(where, base, negate, value, threshold, suite, assertion) -> Plan:
    if base == "equals" and not isinstance(value, str | int | float):
        schema = {"const": value}
        config = _metric("json_schema", {"schema": schema}, negate, reference=False)
        return Plan("metric", _name("equals (JSON)", negate), config, 0.5)
    if value is None or isinstance(value, dict | list) or value == "":
        raise ImportProblem(f"{where}, value", f"{base} needs a text value")
    column = "expected_" + _name(base, negate).replace("-", "_").replace(":cosine", "")
    if base == "levenshtein":
        distance = int(threshold if threshold is not None else 5)
        config = _metric("levenshtein", {"max_distance": distance}, negate, reference=True)
        note = f"passes at an edit distance ≤ {distance}"
        return Plan(
            "metric", f"{_name(base, negate)} ≤ {distance}", config, 0.5, str(value), column, note
        )
    if base in ("similar", "similar:cosine"):
        return _similar_plan(where, negate, str(value), threshold, suite, assertion, column)
    metric, options = REFERENCE_METRICS[base]
    config = _metric(metric, dict(options), negate, reference=True)
    label, policy, note = _continuous(base, negate, threshold)
    return Plan("metric", label, config, policy, str(value), column, note)


def _continuous(base: str, negate: bool, threshold: float | None) -> tuple[str, float, str]:
    """(label, the policy's threshold, a note): promptfoo's default threshold for the
    similarity metrics; a `not-` form passes below it, so its negated score passes above 1 − t."""
    if base not in DEFAULT_THRESHOLDS:
        note = "promptfoo ignores a threshold here; so does the import" if threshold else ""
        return _name(base, negate), 0.5, note
    t = threshold if threshold is not None else DEFAULT_THRESHOLDS[base]
    label = f"{_name(base, negate)} {'<' if negate else '≥'} {t:g}"
    note = {"rouge-n": "ROUGE-1 F-measure (rouge-score)", "bleu": "sentence BLEU (sacrebleu) / 100"}
    return label, round(1 - t, 6) if negate else t, note.get(base, "cosine of the embeddings")


def _similar_plan(where, negate, value, threshold, suite, assertion, column) -> Plan:
    if suite.provider is None:
        raise ImportProblem(where, "similar needs an embedding model: add a model provider first")
    model = str(assertion.get("provider") or "").rsplit(":", 1)[-1] or DEFAULT_EMBEDDING_MODEL
    options = {"provider_id": str(suite.provider.public_id), "model": model}
    config = _metric("embedding_cosine", options, negate, reference=True)
    label, policy, note = _continuous("similar", negate, threshold)
    return Plan("metric", f"{label} ({model})", config, policy, value, column, note)


def _list_plan(where, base, negate, value) -> Plan:
    if isinstance(value, str):  # promptfoo splits a string on commas
        value = [part.strip() for part in value.split(",") if part.strip()]
    if not isinstance(value, list) or not value:
        raise ImportProblem(f"{where}, value", f"{base} needs a list of values")
    metric, case = LIST_METRICS[base]
    options = {"values": [str(v) for v in value], "case_sensitive": case}
    label = f"{_name(base, negate)} {', '.join(options['values'])}"[:80]
    return Plan("metric", label, _metric(metric, options, negate, reference=False), 0.5)


def _fixed_plan(where, base, negate, value) -> Plan:
    if base == "regex":
        if not isinstance(value, str) or not value:
            raise ImportProblem(f"{where}, value", "regex needs a pattern")
        config = _metric("regex", {"pattern": value}, negate, reference=False)
        return Plan("metric", f"{_name(base, negate)} {value}"[:80], config, 0.5)
    schema = _schema(where, value)
    if base == "contains-json":
        config = _metric("contains_json", {"schema": schema}, negate, reference=False)
    elif schema is None:
        config = _metric("json_valid", {}, negate, reference=False)
    else:
        config = _metric("json_schema", {"schema": schema}, negate, reference=False)
    label = _name(base, negate) + (" (schema)" if schema is not None else "")
    return Plan("metric", label, config, 0.5)


def _schema(where: str, value):
    if value is None or isinstance(value, dict):
        return value
    if isinstance(value, str):
        try:
            parsed = json.loads(value)
        except json.JSONDecodeError:
            parsed = None
        if isinstance(parsed, dict):
            return parsed
    raise ImportProblem(f"{where}, value", "a JSON schema (a mapping) or nothing")


def _code_plan(where, base, negate, value, threshold, suite) -> Plan:
    if not isinstance(value, str) or not value.strip():
        raise ImportProblem(f"{where}, value", f"{base} needs code")
    source = shims.code_source(
        language=base, body=value, threshold=threshold, negate=negate, variables=suite.var_names
    )
    config = {"language": base, "source": source}
    first = value.strip().splitlines()[0]
    note = "promptfoo's pass (bool, or score ≥ threshold) is scored 1, a fail 0"
    return Plan("code", f"{_name(base, negate)}: {first}"[:80], config, 0.5, note=note)


def _judge_plan(where, base, negate, value, threshold, suite, assertion) -> Plan:
    if suite.provider is None:
        raise ImportProblem(where, f"{base} needs a judge model: add a model provider first")
    base = "factuality" if base == "model-graded-factuality" else base
    messages = shims.judge_messages(base, has_prompt=suite.has_prompt)
    model = str(assertion.get("provider") or "").rsplit(":", 1)[-1] or suite.judge_model
    config = {
        "messages": messages,
        "model": {"provider_id": str(suite.provider.public_id), "model": model},
    }
    t = threshold if threshold is not None else 0.5
    column = "expected_" + base.replace("-", "_")
    note = "a not- judge passes while the judge's score stays below the threshold" if negate else ""
    meaning = "risk" if negate else "quality"
    return Plan("llm", _name(base, negate), config, t, str(value), column, note, meaning)
