"""The review page shows the whole item: a trajectory as its steps, a trace's span tree, a
link back to the source outside blind mode; blind mode hides where the item came from (the
result or trace shows the judges' verdicts) in pages and API; whole numbers are one label
however they were sent, and shown without ".0"."""

from __future__ import annotations

import json

import pytest
from django.test import Client
from django.utils import timezone

from annotation.models import Label, QueueItem
from annotation.selectors import gold_labels
from experiments.models import Result, TargetResult
from tests.annotation.support import C, Q, client_of, queue_with_items
from traces.ingest.storing import rows_insert
from traces.models import Span

pytestmark = pytest.mark.django_db

TRACE = "ab" * 16
STEPS = {
    "steps": [
        {"type": "tool_call", "name": "lookup_order", "arguments": '{"order": 42}',
         "output": '{"status": "shipped"}', "status": "ok"},
        {"type": "tool_call", "name": "refund", "arguments": {"order": 42},
         "status": "error", "error": "<b>refused</b>"},
    ]
}  # fmt: skip


def page_client(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def review_url(queue_id) -> str:
    return f"/w/acme/annotation/{queue_id}/review/"


def stored_trace(workspace) -> None:
    """An agent span and its tool call under it."""
    now = timezone.now()
    common = {"workspace": workspace, "trace_id": TRACE, "start_time": now, "end_time": now}
    rows_insert(
        [
            Span(span_id="cd" * 8, name="agent", input_text="Where is order 42?",
                 output_text="It shipped.", duration_ms=0, received_at=now, **common),
            Span(span_id="ef" * 8, parent_span_id="cd" * 8, name="lookup_order", kind="tool",
                 input_text='{"order": 42}', output_text="<i>shipped</i>", duration_ms=0,
                 received_at=now, attributes={"gen_ai.tool.name": "lookup_order"}, **common),
        ]
    )  # fmt: skip


def trace_queue(api, workspace, *, blind: bool) -> dict:
    stored_trace(workspace)
    config = api.post(C, {"name": "Correct?", "kind": "boolean"}, format="json").json()
    body = {"name": "Traces", "score_configs": [config["id"]], "blind": blind}
    queue = api.post(Q, body, format="json").json()
    added = api.post(f"{Q}{queue['id']}/items/", {"traces": [TRACE]}, format="json")
    assert added.status_code == 201, added.content
    return queue


def test_a_trace_item_shows_its_span_tree_and_a_link_to_the_trace(api, workspace, member):
    queue = trace_queue(api, workspace, blind=False)
    text = page_client(member("ann")).get(review_url(queue["id"])).content.decode()
    assert 'id="span-tree"' in text and "lookup_order" in text
    assert "&lt;i&gt;shipped&lt;/i&gt;" in text and "<i>shipped" not in text  # escaped
    assert f'href="/w/acme/traces/{TRACE}/"' in text and 'id="item-source"' in text
    item = client_of(workspace=workspace, user=member("bob")).get(f"{Q}{queue['id']}/items/")
    assert item.json()["results"][0]["source_ref"] == TRACE


def test_blind_mode_hides_where_the_item_came_from_in_the_page_and_the_api(api, workspace, member):
    queue = trace_queue(api, workspace, blind=True)
    ann = member("ann")
    text = page_client(ann).get(review_url(queue["id"])).content.decode()
    assert 'id="span-tree"' in text and "lookup_order" in text  # what to judge stays
    assert TRACE not in text and 'id="item-source"' not in text and "Raw JSON" not in text
    reviewer = client_of(workspace=workspace, user=ann)
    held = reviewer.post(f"{Q}{queue['id']}/next/").json()
    listed = reviewer.get(f"{Q}{queue['id']}/items/").json()["results"][0]
    one = reviewer.get(f"{Q}{queue['id']}/items/{held['id']}/").json()
    assert held["source_ref"] is None and listed["source_ref"] is None
    assert one["source_ref"] is None and TRACE not in json.dumps([held, listed, one])


def test_an_experiment_result_shows_the_targets_trajectory_as_steps(api, workspace, user, member):
    made = queue_with_items(api, workspace=workspace, user=user, rows=1)
    result = Result.objects.get(pk=made["results"][0])
    TargetResult.objects.create(
        experiment=result.experiment,
        item=result.item,
        item_uid=result.item.item_id,
        repeat=result.repeat,
        status="success",
        output="It shipped.",
        trajectory=json.dumps(STEPS),
    )
    text = page_client(member("ann")).get(review_url(made["queue"]["id"])).content.decode()
    assert 'id="trajectory"' in text and text.count('<li class="step') == 2
    assert "lookup_order" in text and "refund" in text and "step-error" in text
    assert "&lt;b&gt;refused&lt;/b&gt;" in text and "<b>refused" not in text
    assert "{\n  &quot;status&quot;: &quot;shipped&quot;\n}" in text  # indented JSON
    assert f'href="/w/acme/experiments/{made["experiment"]}/"' in text


def test_a_trajectory_field_of_the_snapshot_is_steps_not_json(api, workspace, user, member):
    made = queue_with_items(api, workspace=workspace, user=user, rows=1)
    item = QueueItem.objects.get()
    item.snapshot = {
        "input": {"question": {"content_type": "Text", "text": "Refund order 42"}},
        "output": {"trajectory": {"content_type": "Text", "text": json.dumps(STEPS)}},
    }
    item.save(update_fields=["snapshot"])
    text = page_client(member("ann")).get(review_url(made["queue"]["id"])).content.decode()
    assert 'id="trajectory"' in text and text.count('<li class="step') == 2
    assert "Refund order 42" in text and "&quot;content_type" not in text  # a Text: its text


def stars_queue(api, workspace, user, *, blind=False) -> tuple[dict, dict]:
    made = queue_with_items(
        api, workspace=workspace, user=user, rows=1, reviewers_per_item=2, blind=blind
    )
    stars = api.post(
        C,
        {"name": "Stars", "kind": "numeric", "minimum": 1, "maximum": 5, "step": 1},
        format="json",
    ).json()
    url = f"{Q}{made['queue']['id']}/"
    assert api.patch(url, {"score_configs": [stars["id"]]}, format="json").status_code == 200
    return made, stars


def test_a_whole_number_is_one_label_from_the_form_and_the_api(api, workspace, user, member):
    made, stars = stars_queue(api, workspace, user)
    ann, bob = page_client(member("ann")), client_of(workspace=workspace, user=member("bob"))
    held = bob.post(f"{Q}{made['queue']['id']}/next/").json()
    url = f"{Q}{made['queue']['id']}/items/{held['id']}/labels/"
    assert bob.post(url, {"values": {stars["id"]: 4}}, format="json").status_code == 201
    page = ann.get(review_url(made["queue"]["id"])).content.decode()
    assert "bob · Stars: <strong>4</strong>" in page  # not 4.0
    sent = ann.post(
        review_url(made["queue"]["id"]), {"item": held["id"], f"config-{stars['id']}": "4"}
    )
    assert sent.status_code == 302
    assert [json.dumps(v) for v in Label.objects.values_list("value", flat=True)] == ["4", "4"]
    queue = QueueItem.objects.get().queue
    config = queue.score_configs.get()
    assert list(gold_labels(queue=queue, config=config).values()) == [4]  # unanimous


def test_a_number_out_of_range_is_named_without_a_trailing_zero(api, workspace, user, member):
    made, stars = stars_queue(api, workspace, user)
    ann = page_client(member("ann"))
    held = ann.get(review_url(made["queue"]["id"])).content.decode()
    item = held.split('data-item="', 1)[1].split('"', 1)[0]
    sent = ann.post(review_url(made["queue"]["id"]), {"item": item, f"config-{stars['id']}": "7"})
    text = sent.content.decode()
    assert sent.status_code == 400 and "Answer with a number from 1 to 5." in text
    assert "5.0" not in text and 'min="1" max="5" step="1"' in text


def test_a_results_item_shows_the_rows_question_the_evaluator_did_not_read(
    api, workspace, user, member
):
    made = queue_with_items(api, workspace=workspace, user=user, rows=1)  # reads answer, reference
    snapshot = QueueItem.objects.get().snapshot
    assert snapshot["input"]["input"]["text"] == "question 0"
    assert "actual_output" not in snapshot["input"] and "reference_output" in snapshot["reference"]
    text = page_client(member("ann")).get(review_url(made["queue"]["id"])).content.decode()
    assert "question 0" in text


def test_the_adjudication_page_shows_the_trajectory_and_whole_numbers(
    api, web, workspace, user, member
):
    made, stars = stars_queue(api, workspace, user)
    item = QueueItem.objects.get()
    item.snapshot = {**item.snapshot, "trajectory": STEPS}
    item.judge = [{"evaluator": "Stars judge", "version": "1", "verdict": "fail", "score": 2.0}]
    item.save(update_fields=["snapshot", "judge"])
    for name, value in (("ann", 2.0), ("bob", 4.0)):  # floats stored before label_stored
        Label.objects.create(
            item=item,
            score_config_id=QueueItem.objects.get().queue.score_configs.get().pk,
            reviewer=member(name),
            value=value,
        )
        item.slots.create(
            reviewer=Label.objects.last().reviewer, status="labelled", reserved_until=timezone.now()
        )
    text = web.get(f"/w/acme/annotation/{made['queue']['id']}/adjudicate/").content.decode()
    assert 'id="trajectory"' in text and "lookup_order" in text
    assert "Stars judge <code>1</code> · 2<" in text and "<strong>4</strong>" in text
    assert 'min="1" max="5" step="1"' in text and "2.0" not in text and "4.0" not in text


def test_the_adjudicator_sees_a_trace_items_span_tree_and_its_source(api, web, workspace, member):
    queue = trace_queue(api, workspace, blind=True)
    api.patch(f"{Q}{queue['id']}/", {"reviewers_per_item": 2}, format="json")
    config = queue["score_configs"][0]
    for name, value in (("ann", True), ("bob", False)):
        reviewer = client_of(workspace=workspace, user=member(name))
        held = reviewer.post(f"{Q}{queue['id']}/next/").json()
        url = f"{Q}{queue['id']}/items/{held['id']}/labels/"
        assert reviewer.post(url, {"values": {config: value}}, format="json").status_code == 201
    text = web.get(f"/w/acme/annotation/{queue['id']}/adjudicate/").content.decode()
    assert 'id="span-tree"' in text and "lookup_order" in text
    assert f'href="/w/acme/traces/{TRACE}/"' in text  # adjudicators see everything
