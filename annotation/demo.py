"""The demo's reviewed queue: the rows the stricter containment check failed in the demo
experiment ("Demo QA · stricter containment"), seventeen of them reviewed by two reviewers, so a
newcomer finds the queue page with its progress, the reviewers' agreement (alpha with its
interval, kappa per pair), gold labels and the judge's calibration from them; the last three
have one label, and the newcomer's "Start reviewing" gives them the second.

The check fails right answers too (long ones), so the reviewers often say "correct" where the
judge said fail. They agree but on the answers that only come near the reference ("Nileish,
roughly"); an adjudicator settled all of those but the last, which waits on the adjudication
page. Labels go through the review services, as a reviewer's would; loading runs on every
start and makes the queue once.
"""

from __future__ import annotations

import re

from django.contrib.auth import get_user_model

from assay import services as platform
from assay.demo import demo_existing
from assay.models import Membership
from experiments.demo import EVALUATOR_NAME, STRICTER
from experiments.models import Experiment, Result

from . import selectors, services
from .models import AnnotationQueue

QUEUE = "Demo QA · failing rows, reviewed twice"
ITEMS = 20
REVIEWED = 17  # the second reviewer stops here: three items wait for a second label (yours)
# Demo reviewers: accounts nobody signs in as (no password), named so no real user is taken.
REVIEWERS = ("demo-reviewer-mei", "demo-reviewer-sam")
CORRECT = "Correct answer?"
HELPFUL = "Helpfulness"
NEAR_MISS = "Near it, not it: an approximation is no answer."


def demo_load(*, workspace, user) -> None:
    """The reviewed queue, once (nothing when the demo experiment is missing)."""
    experiment = demo_existing(Experiment, workspace, STRICTER)
    if experiment is None or demo_existing(AnnotationQueue, workspace, QUEUE) is not None:
        return
    queue = _queue(workspace, user)
    results = _failing(experiment)
    found = selectors.result_items(
        workspace=workspace, experiment_id=experiment.public_id, result_ids=results
    )
    services.queue_items_add(queue=queue, items=found["items"])
    reviewers = [_reviewer(workspace, name) for name in REVIEWERS]
    for reviewer, limit in zip(reviewers, (ITEMS, REVIEWED), strict=True):
        _review_all(queue, reviewer, limit)
    _adjudicate(queue, user)


def _queue(workspace, user) -> AnnotationQueue:
    correct = services.score_config_create(
        workspace=workspace,
        user=user,
        fields={
            "name": CORRECT,
            "kind": "boolean",
            "rubric": "Does the answer give the reference answer? Wording and length do not "
            "matter; a near miss is wrong.",
            "pass_labels": [True],
            "fail_labels": [False],
        },
    )
    helpful = services.score_config_create(
        workspace=workspace,
        user=user,
        fields={
            "name": HELPFUL,
            "kind": "numeric",
            "minimum": 1,
            "maximum": 5,
            "step": 1,
            "rubric": "5: right and to the point; 1: wrong or no answer.",
        },
    )
    return services.annotation_queue_create(
        workspace=workspace,
        user=user,
        fields={"name": QUEUE, "reviewers_per_item": 2},
        score_configs=[correct, helpful],
    )


def _failing(experiment: Experiment) -> list[int]:
    failed = Result.objects.filter(
        experiment=experiment,
        verdict="fail",
        binding__evaluator_version__evaluator__name=EVALUATOR_NAME,
    ).order_by("position")
    return list(failed.values_list("pk", flat=True)[:ITEMS])


def _reviewer(workspace, username: str):
    """An editor of the demo workspace, made once (no password: set_unusable_password)."""
    account = get_user_model().objects.filter(username=username).first()
    if account is None:
        account = get_user_model().objects.create_user(username=username, password=None)
    if not Membership.objects.filter(workspace=workspace, user=account).exists():
        platform.membership_add(workspace=workspace, username=username, role=Membership.Role.EDITOR)
    return account


def _review_all(queue: AnnotationQueue, reviewer, limit: int) -> None:
    configs = {c.name: c for c in queue.score_configs.all()}
    strict = reviewer.username == REVIEWERS[1]
    for _number in range(limit):
        item = services.review_next(queue=queue, reviewer=reviewer)
        if item is None:
            return
        correct, helpful = _judgement(item.snapshot, strict=strict)
        values = {configs[CORRECT]: correct, configs[HELPFUL]: helpful}
        services.review_label(item=item, reviewer=reviewer, values=values)


def _judgement(snapshot: dict, *, strict: bool) -> tuple[bool, int]:
    """(correct, helpfulness) of an answer: the reference as a word is right (5, or 4 when
    long-winded), anything else wrong (1); a near miss ("Nileish") is right for the lenient
    reviewer (3) and wrong for the strict one (2)."""
    answer = _text(snapshot.get("output", {}).get("actual_output"))
    reference = _text(snapshot.get("reference", {}).get("reference_output"))
    if reference and re.search(rf"\b{re.escape(reference)}\b", answer, re.IGNORECASE):
        return True, 4 if len(answer.split()) > 12 else 5
    if reference and reference.lower() in answer.lower():
        return (False, 2) if strict else (True, 3)
    return False, 1


def _text(content) -> str:
    return (content or {}).get("text") or "" if isinstance(content, dict) else str(content or "")


def _adjudicate(queue: AnnotationQueue, adjudicator) -> None:
    """Settle every disagreement but the last (it waits for the newcomer): a near miss is
    wrong."""
    waiting = selectors.queue_disagreements(queue=queue)
    for item, configs in waiting[:-1]:
        values = {c: (False if c.kind == "boolean" else 2) for c in configs}
        services.item_adjudicate(item=item, adjudicator=adjudicator, values=values, note=NEAR_MISS)
