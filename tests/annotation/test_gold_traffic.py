"""Gold labels on live traffic calibrate the online judge: spans an online rule judged, added to
a queue and labelled, are compared with the rule's verdict on each same span (a table counted
by hand), so the rule's monitor corrects its fail rate; a label on a whole trace does not count
against a span rule's verdict on one of its spans; and where the gold label and the online
judge disagree, the span becomes a test case of the judge's evaluator with the turn it got."""

from __future__ import annotations

import pytest
from django.utils import timezone

from annotation.models import AnnotationQueue, ItemSource
from annotation.selectors import SourceItem
from annotation.selectors.filtered import traffic_outcomes
from annotation.services import queue_items_add
from annotation.services.feeds import queue_add_outcomes
from evaluators.models import EvaluatorTestCase
from online.kind import online_run_inline
from online.models import OnlineOutcome, OnlineRule, RuleScope
from online.selectors import rule_calibration
from online.services import online_sweep
from tests.annotation.support import C, Q
from tests.online.support import code_rule, llm_span, store

pytestmark = pytest.mark.django_db

LATER = timezone.timedelta(minutes=1)  # past the sweep's lag


def judged_into_a_queue(api, rule):
    """The rule's stored spans swept and judged, then added to a new queue of one reviewer
    with a boolean config (true: pass): (config, queue as the API made it, the queue)."""
    run = online_sweep(rule_id=rule.pk, now=timezone.now() + LATER)
    online_run_inline(run_id=run.pk)
    config = api.post(
        C,
        {"name": "Right?", "kind": "boolean", "pass_labels": [True], "fail_labels": [False]},
        format="json",
    ).json()
    made = api.post(Q, {"name": "Live", "score_configs": [config["id"]]}, format="json").json()
    queue = AnnotationQueue.objects.get(public_id=made["id"])
    queue_add_outcomes(queue=queue, rule=rule, verdicts=[])
    return config, made, queue


def test_gold_labels_on_live_spans_calibrate_the_online_judge(api, workspace, user):
    rule = code_rule(workspace, user)
    # the judge passes an output that contains the expected answer: 20 pass, 20 fail
    answers = [("Paris is the capital", "Paris")] * 20 + [("Lyon", "Paris")] * 20
    spans = store([llm_span(workspace, output=out, expected=exp) for out, exp in answers])
    config, made, queue = judged_into_a_queue(api, rule)
    assert queue.items.count() == 40
    # a whole trace, labelled fail: the span rule judged one of its spans, not the trace
    trace = SourceItem(ItemSource.TRACE, spans[0].trace_id, {"output": "the trace"})
    assert queue_items_add(queue=queue, items=[trace]) == 1
    # the reviewer: against the judge on 3 of its passes (fn) and 4 of its fails (fp)
    flips = {"Paris is the capital": 3, "Lyon": 4}
    for _ in range(41):
        held = api.post(f"{Q}{made['id']}/next/").json()
        output = held["snapshot"]["output"]
        right = output.startswith("Paris")  # the judge's own verdict
        if flips.get(output):
            flips[output] -= 1
            right = not right
        url = f"{Q}{made['id']}/items/{held['id']}/labels/"
        answer = api.post(url, {"values": {config["id"]: right}}, format="json")
        assert answer.status_code == 201, answer.content[:300]
    calibration = rule_calibration(rule_evaluator=rule.evaluators.get())
    # fail is the positive class: tp = both fail, fn = judge pass / human fail
    assert (calibration.tp, calibration.fn, calibration.fp, calibration.tn) == (16, 3, 4, 17)
    monitor = api.get(f"/api/v1/online-rules/{rule.public_id}/monitor/?window=day&count=1")
    window = monitor.json()["evaluators"][0]["windows"][-1]
    assert window["raw"]["fail_rate"] == pytest.approx(0.5)
    sensitivity, specificity = 16 / 19, 17 / 21  # Rogan–Gladen corrects 0.5 with them
    corrected = (0.5 + specificity - 1) / (sensitivity + specificity - 1)
    assert window["calibrated"]["fail_rate"] == pytest.approx(corrected)


def test_a_miss_on_live_traffic_becomes_a_test_case_of_the_online_judge(api, workspace, user):
    rule = code_rule(workspace, user)
    spans = store(
        [llm_span(workspace, output=out, expected="Paris") for out in ("Paris!", "Lyon", "Nice")]
    )
    config, made, queue = judged_into_a_queue(api, rule)
    # the reviewer passes "Nice" (the judge failed it) and agrees on the other two
    for _ in range(3):
        held = api.post(f"{Q}{made['id']}/next/").json()
        right = held["snapshot"]["output"] in ("Paris!", "Nice")
        url = f"{Q}{made['id']}/items/{held['id']}/labels/"
        assert api.post(url, {"values": {config["id"]: right}}, format="json").status_code == 201
    misses = api.get(f"{Q}{made['id']}/gold/misses/").json()["results"]
    [miss] = misses
    nice = spans[2]
    item = queue.items.get(source_ref=f"{nice.trace_id}:{nice.span_id}")
    assert (miss["item"], miss["result"], miss["online_rule"]) == (
        str(item.public_id),
        None,
        str(rule.public_id),
    )
    assert (miss["judge_verdict"], miss["human_verdict"]) == ("fail", "pass")
    made_case = api.post(f"{Q}{made['id']}/gold/{item.public_id}/test-case/", {}, format="json")
    assert made_case.status_code == 201, made_case.content
    case = EvaluatorTestCase.objects.get()
    assert case.evaluator == rule.evaluators.get().evaluator_version.evaluator
    assert case.expected_verdict == "pass"
    turn = case.turn  # as the online run built it from the span
    assert turn["evaluate_target_output_fields"]["actual_output"]["text"] == "Nice"
    assert turn["evaluate_dataset_fields"]["reference_output"]["text"] == "Paris"


def test_a_session_item_takes_only_a_session_rules_verdict(workspace, user):
    span_rule = code_rule(workspace, user, name="spans")
    session_rule = code_rule(workspace, user, name="sessions")
    OnlineRule.objects.filter(pk=session_rule.pk).update(scope=RuleScope.SESSION)
    common = {"item_time": timezone.now(), "rate": 1.0, "status": "success"}
    judged = [  # (rule, trace, span, session, verdict)
        (session_rule, "a" * 32, "", "chat-1", "fail"),
        (span_rule, "a" * 32, "b" * 16, "chat-1", "pass"),  # one span of the same session
        (session_rule, "c" * 32, "", "chat-2", "pass"),  # another session
    ]
    for rule, trace, span, session, verdict in judged:
        OnlineOutcome.objects.create(
            rule=rule,
            rule_evaluator=rule.evaluators.get(),
            trace_id=trace,
            span_id=span,
            session_id=session,
            verdict=verdict,
            **common,
        )
    queue = AnnotationQueue.objects.create(workspace=workspace, name="Chats")
    item = SourceItem(ItemSource.SESSION, "chat-1", {"output": "the chat"})
    queue_items_add(queue=queue, items=[item])
    [pk] = queue.items.values_list("pk", flat=True)
    found = traffic_outcomes(queue=queue, item_pks=[pk])
    version = session_rule.evaluators.get().evaluator_version
    assert {v: o.verdict for v, o in found[pk].items()} == {version: "fail"}
