"""The `pairwise` kind: an LLM judge that sees one input and two outputs and says which is better.

Its prompt is an LLM judge's (`llm.py`: messages, a model on one of the workspace's providers)
with two required Text variables, `{{output_a}}` (the baseline's output) and `{{output_b}}`
(the candidate's), beside the item's own variables; it answers "A", "B" or "tie" with a reason
(`evaluators.llm.choice`). Every turn is judged twice, the outputs in order and swapped, and
the two answers make one outcome (`evaluators.pairing`): orders that disagree are a tie, flagged
position-inconsistent. Pairwise runs use it; an experiment scoring single outputs cannot.
"""

from __future__ import annotations

from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from ..config import Errors
from ..pairing import B_SHARE, OUTPUT_A, OUTPUT_B, SLOTS
from .llm import LlmKind, placeholders

PAIRWISE_SYSTEM = """\
You are a careful, impartial evaluator. You are shown a question and two answers to it, \
answer A and answer B. Decide which answer responds better: more correct, more complete and \
more useful to the person who asked. Ignore the order in which the answers are shown and their \
length as such; a longer answer is not better for being longer.
Reply with only a JSON object:
{"reason": "<two or three sentences comparing them>", "verdict": "A" or "B" or "tie"}.
Use "tie" only when neither answer is better than the other."""

PAIRWISE_USER = """\
<question>
{{input}}
</question>

<answer_a>
{{output_a}}
</answer_a>

<answer_b>
{{output_b}}
</answer_b>"""


class PairwiseKind(LlmKind):
    name = "pairwise"
    label = _("Pairwise LLM judge")
    queue = "llm"
    pairwise = True
    editor_template = "evaluators/kinds/_pairwise.html"
    debug_template = "evaluators/kinds/_pairwise_debug.html"

    def default_config(self, language: str | None) -> dict:
        text = {"content_type": "Text", "required": True}
        variables = [
            {"name": "input", **text, "description": "The question or task."},
            {"name": OUTPUT_A, **text, "description": "The baseline's answer (A)."},
            {"name": OUTPUT_B, **text, "description": "The candidate's answer (B)."},
        ]
        messages = [
            {"role": "system", "content": PAIRWISE_SYSTEM},
            {"role": "user", "content": PAIRWISE_USER},
        ]
        return {"input_variables": variables, "messages": messages}

    def check(self, config: dict, errors: Errors, *, model_configured: bool) -> None:
        super().check(config, errors, model_configured=model_configured)
        declared = {v["name"]: v for v in config["input_variables"]}
        used = placeholders(config)
        for name in SLOTS:
            variable = declared.get(name)
            if variable is None or variable["content_type"] != "Text":
                errors.add(
                    "input_variables",
                    gettext("A pairwise judge needs a Text variable %(name)r.") % {"name": name},
                )
            elif not variable["required"]:
                errors.add(
                    "input_variables",
                    gettext("%(name)r must be required: both outputs count.") % {"name": name},
                )
            if name not in used:
                errors.add(
                    "messages",
                    gettext("Use {{%(name)s}} in a message: the judge must see it.")
                    % {"name": name},
                )

    def run(self, batch):
        return pairwise_run_batch(batch=batch)


def pairwise_run_batch(*, batch) -> list:
    """Judge a kind `Batch` in both orders on the workspace's provider: one RunOutcome a turn,
    scored by B's share (1: B better, 0.5: tie, 0: A better) and carrying both calls."""
    # imported here: the SDK costs ~0.4 s to import, which code-only workers never pay
    from ..llm.pairwise import run_pairwise_batch
    from ..providers import provider_batch_run

    return provider_batch_run(batch=batch, run=run_pairwise_batch, outcome=_outcome)


def _outcome(provider, judged):
    """A pair's judgement as the runner's outcome: the first order's request and answer on top,
    both calls (with their cost) under `extra["calls"]`."""
    from ..providers import provider_cost
    from ..runner import RunOutcome

    calls = [
        order.to_dict() | {"cost": provider_cost(provider, _model(order), order)}
        for order in judged.orders
    ]
    costs = [call["cost"] for call in calls]
    return RunOutcome(
        status=judged.status,
        score=B_SHARE.get(judged.outcome),
        reason=judged.first.reason,
        error=judged.error,
        rendered_request=judged.first.rendered_request,
        raw_answer=judged.first.raw_answer,
        latency_ms=judged.total("latency_ms"),
        tokens_in=int(judged.total("tokens_in")),
        tokens_out=int(judged.total("tokens_out")),
        cost=None if None in costs else sum(costs),
        cached=all(order.cached for order in judged.orders),
        extra={
            "outcome": judged.outcome,
            "position_inconsistent": judged.position_inconsistent,
            "calls": calls,
        },
    )


def _model(order) -> str:
    return (order.rendered_request or {}).get("model", "")


__all__ = ["OUTPUT_A", "OUTPUT_B", "PairwiseKind", "pairwise_run_batch"]
