"""Demo pairwise run: three apps on "Demo QA" judged against each other, so the pairwise pages
have a three-way leaderboard to show.

The apps are the experiments demo's pushed run ("our app") and two more whose outputs a client
"pushed" the same way: a terse app that knows the easy questions, and a careful one that is
nearly always right but wordy. The demo has no reachable model, so the judge's answers are
stored as a worker would store them: a simulated judge (it sees the reference answer and
prefers the output that names it; two equally right or wrong outputs tie, except on some
questions where it simply picks the output shown first: position bias) answers each pair in
both orders, and the real engine writes the rows, folds the orders and computes the
statistics.
Loaded once; deterministic, so every start shows the same numbers.
"""

from __future__ import annotations

import hashlib
import json

from assay.models import ModelProvider
from evaluators.models import Evaluator, EvaluatorTemplate, EvaluatorVersion
from evaluators.pairing import B_SHARE, OUTPUT_A, OUTPUT_B, pair_verdict, swapped_turn
from evaluators.runner import RunOutcome
from evaluators.services import evaluator_create_from_template, evaluator_submit_version
from evaluators.turns import turn_fields

from .. import scoring as engine
from .. import services
from ..models import Experiment, PairwiseRun
from .services import pairwise_run_create
from .work import pairwise_run_inline

RUN_NAME = "Demo QA · three apps, pairwise"
TERSE = "Demo QA · terse app, pushed"
CAREFUL = "Demo QA · careful app, pushed"
PAIRWISE_APPS = (TERSE, CAREFUL)
JUDGE_NAME = "Which answer is better (pairwise)"
ORDERS = ("A, B", "B, A")


def pairwise_demo_load(*, workspace, user) -> None:
    """Create the two extra apps, the pairwise judge and the three-way run, once each."""
    from .. import demo

    if PairwiseRun.objects.filter(workspace=workspace, name=RUN_NAME).exists():
        return
    ours = Experiment.objects.filter(workspace=workspace, name=demo.PUSHED).first()
    judge = _judge(workspace, user)
    if ours is None or judge is None:
        return
    terse = _app(workspace, user, ours, TERSE, _terse_answer)
    careful = _app(workspace, user, ours, CAREFUL, _careful_answer)
    run = pairwise_run_create(
        workspace=workspace,
        user=user,
        name=RUN_NAME,
        description="Our app against a terse and a careful one, each pair of answers judged in "
        "both orders (the demo's judge is simulated; its answers are stored as a worker's are).",
        experiments=[ours, terse, careful],
        evaluator_version=judge,
        chunk_size=20,
    )
    pairwise_run_inline(run_id=run.pk, judge=demo_judge)


def _judge(workspace, user) -> EvaluatorVersion | None:
    """The preset's pairwise judge, version 1.0.0; None without a model provider to point it
    at (the platform's demo makes one; an app's demo loaded alone has none)."""
    found = Evaluator.objects.filter(workspace=workspace, name=JUDGE_NAME).first()
    if found is None:
        template = EvaluatorTemplate.objects.filter(slug="which-is-better").first()
        if template is None or not ModelProvider.objects.filter(workspace=workspace).exists():
            return None
        found = evaluator_create_from_template(workspace=workspace, user=user, template=template)
    version = found.versions.filter(version="1.0.0").first()
    return version or evaluator_submit_version(
        evaluator=found, user=user, version="1.0.0", change_note="Started from the preset."
    )


def _app(workspace, user, ours: Experiment, name: str, answer) -> Experiment:
    """A completed external-target run on our app's evalset version, its outputs pushed."""
    found = Experiment.objects.filter(workspace=workspace, name=name).first()
    if found is not None:
        return found
    binding = ours.bindings.select_related("evaluator_version").first()
    experiment = services.experiment_create(
        workspace=workspace,
        user=user,
        name=name,
        evalset_version=ours.evalset_version,
        bindings=[{"evaluator_version": binding.evaluator_version, "mapping": binding.mapping}],
        target={"kind": "external"},
        chunk_size=20,
        launch=True,
        description="Outputs of another app (simulated), pushed as `assay run` does.",
    )
    engine.experiment_begin(experiment_id=experiment.pk)
    outputs = [answer(item) for item in ours.evalset_version.items.order_by("position")]
    services.outputs_push(experiment=experiment, outputs=outputs)
    return engine.experiment_run_inline(experiment_id=experiment.pk)


def _facts(item) -> tuple[str, str, str, bool]:
    from ..demo import HARD, WRONG

    question = item.data["input"]["text"]
    reference = item.data["reference_output"]["text"]
    return question, reference, WRONG.get(question, "unclear"), question in HARD


def _terse_answer(item) -> dict:
    """Right on easy questions, right on one hard question in three; a word or two."""
    question, reference, wrong, hard = _facts(item)
    right = not hard or item.position % 3 == 0
    return {"item_id": str(item.item_id), "actual_output": f"{reference if right else wrong}."}


def _careful_answer(item) -> dict:
    """Nearly always right, and says so at length."""
    question, reference, wrong, _hard = _facts(item)
    right = item.position % 10 != 7
    text = (
        f"Good question. Having checked the usual references, the answer is {reference}; "
        "let me know if you would like the reasoning behind it."
        if right
        else f"I believe it is {wrong}, though I am not entirely certain."
    )
    return {"item_id": str(item.item_id), "actual_output": text}


# ----------------------------------------------------------------------------- the judge


def demo_judge(*, run, turns, repeat, cancel) -> list[RunOutcome]:
    """The simulated judge, in the engine's judge shape: one outcome per turn, both orders."""
    return [_judged(run, turn) for turn in turns]


def _judged(run, turn) -> RunOutcome:
    calls = [
        _call(run, turn if order == ORDERS[0] else swapped_turn(turn), order) for order in ORDERS
    ]
    outcome, inconsistent = pair_verdict(calls[0]["verdict"], calls[1]["verdict"])
    return RunOutcome(
        status="success",
        score=B_SHARE.get(outcome),
        reason=calls[0]["reason"],
        rendered_request=calls[0]["rendered_request"],
        raw_answer=calls[0]["raw_answer"],
        latency_ms=sum(call["latency_ms"] for call in calls),
        tokens_in=sum(call["tokens_in"] for call in calls),
        tokens_out=sum(call["tokens_out"] for call in calls),
        extra={"outcome": outcome, "position_inconsistent": inconsistent, "calls": calls},
    )


def _call(run, shown: dict, order: str) -> dict:
    fields = turn_fields(shown)
    question = fields["input"]["text"]
    first, second = fields[OUTPUT_A]["text"], fields[OUTPUT_B]["text"]
    verdict, reason = _decide(question, first, second)
    raw = json.dumps({"reason": reason, "verdict": verdict})
    request = _request(run, shown)
    return {
        "order": order,
        "status": "success",
        "verdict": verdict,
        "reason": reason,
        "rendered_request": request,
        "raw_answer": raw,
        "latency_ms": 250.0 + _spread(question + order, 500),
        "tokens_in": len(json.dumps(request or {})) // 4,
        "tokens_out": len(raw) // 4,
        "cached": False,
    }


def _decide(question: str, first: str, second: str) -> tuple[str, str]:
    """Right beats wrong; two equally right (or wrong) answers tie, except on the questions
    where this judge just likes the output shown first (its position bias)."""
    from ..demo import FACTS

    reference = next(answer for q, answer, *_rest in FACTS if q == question)
    knows = [reference.lower() in text.lower() for text in (first, second)]
    if knows[0] != knows[1]:
        winner = "A" if knows[0] else "B"
        return winner, f"Answer {winner} names the right answer ({reference}); the other does not."
    if _spread(question, 10) < 3:
        return "A", "Both answers are about as good; the first one reads slightly better."
    both = "right" if knows[0] else "wrong"
    return "tie", f"Both answers are {both}; neither is better."


def _spread(text: str, modulo: int) -> int:
    """A stable number in [0, modulo) for a text (Python's hash() changes every start)."""
    return int(hashlib.sha256(text.encode()).hexdigest()[:8], 16) % modulo


def _request(run, shown: dict) -> dict | None:
    """The request the judge would have been sent (the provider's answer mode)."""
    from evaluators.llm.choice import choice_instruction, choice_schema
    from evaluators.llm.request import build_request

    try:
        return build_request(
            run.evaluator_version.config,
            shown,
            structured_mode="json_object",
            default_model="qwen2.5:7b",
            schema=choice_schema(),
            instruction=choice_instruction(),
        )
    except ValueError:
        return None
