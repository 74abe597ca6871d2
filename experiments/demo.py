"""Demo experiments: "Demo QA" (60 Text rows) scored twice, so the list, the experiment page and
the compare page have finished runs to show.

The baseline uses "Answer contains reference" 1.0.0 (case-insensitive containment) and, when the
evaluators demo made it, the "Equal" preset; the second run is a clone with 1.1.0 of the
containment check, which is stricter (whole word, at most twelve words), so the two differ.
A third run stands for the team's own application, evaluated from its CI: an external target
whose outputs a client "pushed" (three repetitions of a model that is right more often on easy
questions, with latency, tokens and cost), so the page shows pass@k / pass^k, clustered
intervals and the cost and latency cards; a fourth re-scores its outputs with the stricter check
without calling anything. The baseline is marked as one, so `assay gate --baseline latest`
has something to compare against, and the gate's check of the stricter run against it is
recorded, as a CI job's `assay gate` records it.

Two more apps pushed the same way and a pairwise run judging the three against each other make
the pairwise pages' three-way leaderboard (`experiments/pairwise/demo.py`).

A garak scan (garak 0.17.1's own report of its offline test probe against the echoing test
generator, scored by its random detector) is imported too, so the garak import, its
dashboard and the garak-format exports and console have something to show.

Conversations (`demo_simulated`): a simulated-user run on "Support scenarios" and the
multi-turn "Support chats" scored per assistant turn.

All run in this process: launching also enqueues the start task, which later finds the run
finished and does nothing.
"""

from __future__ import annotations

from pathlib import Path

from assay.demo import demo_existing
from evalsets.demo import demo_evalset_version
from evaluators.models import Evaluator, EvaluatorVersion
from evaluators.services import evaluator_create, evaluator_submit_version, evaluator_update_draft

from . import scoring as engine
from . import services
from .demo_simulated import simulated_demo_load
from .models import Experiment

EVALSET_NAME = "Demo QA"
EVALUATOR_NAME = "Answer contains reference"
BASELINE = "Demo QA · baseline"
STRICTER = "Demo QA · stricter containment"
PUSHED = "Demo QA · our app, pushed from CI (3 repetitions)"
RESCORED = "Demo QA · our app, re-scored with the stricter check"
GARAK_REPORT = Path(__file__).resolve().parent / "demo_data" / "garak-test-probe.report.jsonl"
GARAK_RUN = "test.Test · garak 44001075"
TARGET_MAPPING = {
    "actual_output": "target:actual_output",
    "reference_output": "column:reference_output",
}

# (question, reference answer, a wrong answer, topic, difficulty)
FACTS = [
    ("What is the capital of France?", "Paris", "Lyon", "geography", "easy"),
    ("What is the capital of Australia?", "Canberra", "Sydney", "geography", "hard"),
    ("What is the capital of Canada?", "Ottawa", "Toronto", "geography", "hard"),
    ("Which river flows through Cairo?", "Nile", "Euphrates", "geography", "easy"),
    ("What is the largest ocean?", "Pacific", "Atlantic", "geography", "easy"),
    ("How many sides does a hexagon have?", "6", "8", "math", "easy"),
    ("What is 12 times 12?", "144", "124", "math", "easy"),
    ("What is the square root of 81?", "9", "8", "math", "easy"),
    ("What is the smallest prime number?", "2", "1", "math", "hard"),
    ("How many degrees are in a right angle?", "90", "180", "math", "easy"),
    ("What is the chemical symbol for gold?", "Au", "Ag", "science", "hard"),
    ("Which planet is known as the red planet?", "Mars", "Venus", "science", "easy"),
    ("What gas do plants absorb from the air?", "carbon dioxide", "oxygen", "science", "easy"),
    ("What is the hardest natural substance?", "diamond", "quartz", "science", "hard"),
    ("How many bones are in the adult human body?", "206", "212", "science", "hard"),
    ("Who wrote Hamlet?", "Shakespeare", "Marlowe", "history", "easy"),
    ("In which year did the Berlin Wall fall?", "1989", "1991", "history", "hard"),
    ("Who painted the Mona Lisa?", "Leonardo da Vinci", "Michelangelo", "history", "easy"),
    ("Which empire built Machu Picchu?", "Inca", "Aztec", "history", "hard"),
    ("Who was the first person on the Moon?", "Neil Armstrong", "Buzz Aldrin", "history", "easy"),
]

CONTAINS_V1 = '''def exec_evaluation(turn):
    """1 when the answer mentions the reference (any case), 0 when not, unknown when empty."""
    output = turn["evaluate_target_output_fields"]["actual_output"]["text"].strip()
    reference = turn["evaluate_dataset_fields"]["reference_output"]["text"].strip()
    if not output:
        return EvalOutput(score=None, reason="Empty answer: cannot tell.")
    if reference.lower() in output.lower():
        return EvalOutput(score=1.0, reason="The answer mentions the reference.")
    return EvalOutput(score=0.0, reason="The reference is missing from the answer.")
'''

CONTAINS_V2 = '''import re


def exec_evaluation(turn):
    """Stricter: the reference as a whole word, in an answer of at most twelve words."""
    output = turn["evaluate_target_output_fields"]["actual_output"]["text"].strip()
    reference = turn["evaluate_dataset_fields"]["reference_output"]["text"].strip()
    if not output:
        return EvalOutput(score=None, reason="Empty answer: cannot tell.")
    if len(output.split()) > 12:
        return EvalOutput(score=0.0, reason="Too long: more than twelve words.")
    pattern = r"\\b" + re.escape(reference) + r"\\b"
    if re.search(pattern, output, flags=re.IGNORECASE):
        return EvalOutput(score=1.0, reason="The reference appears as a whole word.")
    return EvalOutput(score=0.0, reason="The reference is missing from the answer.")
'''

VARIABLES = [
    {
        "name": "actual_output",
        "content_type": "Text",
        "required": True,
        "description": "The answer to check.",
    },
    {
        "name": "reference_output",
        "content_type": "Text",
        "required": True,
        "description": "The expected answer.",
    },
]


def demo_load(*, workspace, user) -> None:
    """Create the demo evalset, evaluator and the two finished experiments once each."""
    version = _evalset_version(workspace, user)
    v1, v2 = _contains_versions(workspace, user)
    baseline = demo_existing(Experiment, workspace, BASELINE) or _baseline(
        workspace, user, version, v1
    )
    if demo_existing(Experiment, workspace, STRICTER) is None:
        stricter = services.experiment_clone(
            experiment=baseline, user=user, name=STRICTER, versions={v1.evaluator_id: v2}
        )
        _run(stricter)
    baseline.refresh_from_db()
    if not baseline.is_baseline:
        services.experiment_mark_baseline(experiment=baseline, is_baseline=True)
    _gate_checked(workspace, user, baseline)
    pushed = demo_existing(Experiment, workspace, PUSHED) or _pushed(workspace, user, version, v1)
    if demo_existing(Experiment, workspace, RESCORED) is None:
        rescored = services.experiment_rescore(
            experiment=pushed,
            user=user,
            name=RESCORED,
            bindings=[{"evaluator_version": v2, "mapping": TARGET_MAPPING}],
            launch=True,
        )
        engine.experiment_run_inline(experiment_id=rescored.pk)
    _pairwise_demo(workspace, user)
    if demo_existing(Experiment, workspace, GARAK_RUN) is None:
        for scan in services.garak_scan_import(
            workspace=workspace, user=user, data=GARAK_REPORT.read_bytes()
        ):
            engine.experiment_run_inline(experiment_id=scan.pk)
    simulated_demo_load(workspace=workspace, user=user)


def _gate_checked(workspace, user, baseline: Experiment) -> None:
    """The CI gate's check of the stricter run against the baseline, recorded as `assay gate`
    records it in CI (once: posting it again only updates it)."""
    stricter = demo_existing(Experiment, workspace, STRICTER)
    if not stricter.gate_decisions.exists():
        services.gate_decision_record(baseline=baseline, candidate=stricter, options={}, user=user)


def _pairwise_demo(workspace, user) -> None:
    """Two more apps on Demo QA and the three-way pairwise run (experiments.pairwise.demo)."""
    from .pairwise.demo import pairwise_demo_load  # it reads this module's facts

    pairwise_demo_load(workspace=workspace, user=user)


def _baseline(workspace, user, version, contains) -> Experiment:
    bindings = [{"evaluator_version": contains}] + [
        {"evaluator_version": ev} for ev in _equal_versions(workspace)
    ]
    baseline = services.experiment_create(
        workspace=workspace,
        user=user,
        name=BASELINE,
        evalset_version=version,
        bindings=bindings,
        chunk_size=20,
        description="Containment and exact match on sixty answers.",
    )
    _run(baseline)
    return baseline


def _pushed(workspace, user, version, contains) -> Experiment:
    """An external-target run whose outputs are pushed here as a client would push them."""
    experiment = services.experiment_create(
        workspace=workspace,
        user=user,
        name=PUSHED,
        evalset_version=version,
        bindings=[{"evaluator_version": contains, "mapping": TARGET_MAPPING}],
        target={"kind": "external"},
        repetitions=3,
        chunk_size=20,
        launch=True,
        description="Outputs computed by the team's app (here: a simulated one) and pushed "
        "through POST /api/v1/experiments/{id}/outputs/, as `assay run` does.",
    )
    engine.experiment_begin(experiment_id=experiment.pk)
    outputs = [
        _app_answer(item, repeat)
        for item in version.items.order_by("position")
        for repeat in range(3)
    ]
    services.outputs_push(experiment=experiment, outputs=outputs)
    return engine.experiment_run_inline(experiment_id=experiment.pk)


WRONG = {question: wrong for question, _a, wrong, _t, _l in FACTS}
HARD = {question for question, _a, _w, _t, level in FACTS if level == "hard"}


def _app_answer(item, repeat: int) -> dict:
    """A simulated app: right 9 times in 10 on easy questions and 6 in 10 on hard ones,
    varying by repetition; deterministic, so every load shows the same numbers."""
    question = item.data["input"]["text"]
    reference = item.data["reference_output"]["text"]
    luck = (item.position * 7 + repeat * 3) % 10
    right = luck < (6 if question in HARD else 9)
    answer = f"It is {reference}." if right else f"It is {WRONG.get(question, 'unclear')}."
    tokens_in, tokens_out = 40 + len(question) // 4, 6 + len(answer) // 4
    return {
        "item_id": str(item.item_id),
        "repeat": repeat,
        "actual_output": answer,
        "latency_ms": 180.0 + (item.position * 37 + repeat * 91) % 420,
        "tokens_in": tokens_in,
        "tokens_out": tokens_out,
        "cost": round(tokens_in * 0.15e-6 + tokens_out * 0.6e-6, 8),
    }


def _run(experiment: Experiment) -> None:
    services.experiment_launch(experiment=experiment)
    engine.experiment_run_inline(experiment_id=experiment.pk)


def _evalset_version(workspace, user):
    return demo_evalset_version(
        workspace=workspace,
        user=user,
        rows=_rows(),
        note="Sixty rows.",
        name=EVALSET_NAME,
        tags=["demo", "qa"],
        description="Sixty short answers to general-knowledge questions: exact, verbose, "
        "differently cased, wrong and empty ones, tagged by topic and difficulty.",
        # actual_output may be empty: an empty answer is a row the check cannot judge
        columns=[
            {
                "name": name,
                "content_type": "Text",
                "required": name != "actual_output",
                "description": d,
            }
            for name, d in (
                ("input", "The question."),
                ("actual_output", "The model's answer."),
                ("reference_output", "The expected answer."),
            )
        ],
    )


def _rows() -> list[dict]:
    """Three answers per fact: exact, a sentence, and a variant (wrong, lower case, empty…)."""
    rows = []
    for i, (question, answer, wrong, topic, level) in enumerate(FACTS):
        variants = [
            (answer, "exact"),
            (
                f"The answer to that is {answer}, as far as I know."
                if i % 3
                else "Good question! After weighing several sources and common references, I am "
                f"fairly confident that the answer you are looking for is {answer}.",
                "verbose",
            ),
            _variant(i, answer, wrong),
        ]
        for text, style in variants:
            rows.append(
                {
                    "data": {"input": question, "actual_output": text, "reference_output": answer},
                    "tags": [topic, level, style],
                }
            )
    return rows


def _variant(i: int, answer: str, wrong: str) -> tuple[str, str]:
    if i % 5 == 4:
        return "", "empty"
    if i % 4 == 1:
        return answer.lower() + ".", "lowercase"
    if i % 4 == 3:
        return f"{answer}ish, roughly", "partial"
    return wrong, "wrong"


def _contains_versions(workspace, user) -> tuple[EvaluatorVersion, EvaluatorVersion]:
    evaluator = demo_existing(Evaluator, workspace, EVALUATOR_NAME) or evaluator_create(
        workspace=workspace,
        user=user,
        name=EVALUATOR_NAME,
        kind="code",
        language="python",
        description="Does the answer mention the reference answer?",
        tags=["demo", "string"],
        config={
            "input_variables": VARIABLES,
            "language": "python",
            "source": CONTAINS_V1,
            "timeout_s": 5.0,
            "memory_mb": 256,
        },
    )
    return (
        _version(evaluator, user, "1.0.0", CONTAINS_V1, "Case-insensitive containment."),
        _version(evaluator, user, "1.1.0", CONTAINS_V2, "Stricter: whole word, short answers."),
    )


def _version(evaluator, user, version: str, source: str, note: str) -> EvaluatorVersion:
    found = evaluator.versions.filter(version=version).first()
    if found is not None:
        return found
    config = {**evaluator.draft_config, "source": source}
    evaluator_update_draft(evaluator=evaluator, user=user, config=config)
    return evaluator_submit_version(
        evaluator=evaluator, user=user, version=version, change_note=note
    )


def _equal_versions(workspace) -> list[EvaluatorVersion]:
    """The evaluators demo's "Equal" preset version, when it exists."""
    found = (
        EvaluatorVersion.objects.filter(
            evaluator__workspace=workspace,
            evaluator__template__slug="equal",
            evaluator__deleted_at__isnull=True,
        )
        .order_by("created_at")
        .first()
    )
    return [found] if found is not None else []
