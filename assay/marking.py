"""The mark on Assay's own outbound calls: a W3C baggage entry `assay.experiment=<run>`.

HTTP targets (experiments.targets.http.call) and every judge or prompt call to a model
provider (evaluators.llm.client) build their `baggage` header here, so the entry is spelt one
way. An app (or an LLM gateway) whose OpenTelemetry SDK copies baggage onto its spans tags
what Assay caused, and online rules never score a span that carries the key.
"""

from __future__ import annotations

from urllib.parse import quote

from assay.vocabulary import EXPERIMENT_MARKER

BAGGAGE_HEADER = "baggage"
# the mark of calls no run makes: a debug run, an evaluator's test cases, a target's test
# request, a provider's connection test
NO_RUN = "debug"
# W3C baggage values are percent-encoded outside these (a run key's ':' is kept readable)
_VALUE_SAFE = ":/-._~"


def baggage_marked(*, baggage: str, run) -> str:
    """A baggage header's value (`baggage`, "" for none) with Assay's entry added after what
    it already holds: `tenant=acme,assay.experiment=<run>`."""
    entry = f"{EXPERIMENT_MARKER}={quote(str(run), safe=_VALUE_SAFE)}"
    given = baggage.strip()
    return f"{given},{entry}" if given else entry
