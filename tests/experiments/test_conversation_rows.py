"""A run on an evaluation set of conversations: a Python code evaluator reads the messages in the
real sandbox; the grid, the drawer and the full view of the compare detail show the transcript
with every untrusted text escaped; an HTTP target's template sends a conversation as messages."""

from __future__ import annotations

import pytest
from django.template.loader import render_to_string
from django.urls import reverse

from evalsets import services as evalset_services
from evalsets.models import EvalSetItem
from evaluators import services as evaluator_services
from experiments import scoring as engine
from experiments import services

pytestmark = pytest.mark.django_db

READS_MESSAGES = """
def exec_evaluation(turn):
    messages = turn["evaluate_dataset_fields"]["dialogue"]["messages"]
    results = [m for m in messages if m["role"] == "tool"]
    if not results:
        return EvalOutput(score=None, reason="no tool result")
    return EvalOutput(score=1.0, reason=str(len(messages)) + " messages")
"""

HOSTILE = [
    {"role": "system", "content": "<img src=x onerror=alert(1)>"},
    {"role": "user", "content": "<script>steal()</script>", "name": "<b>eve</b>"},
    {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": "call_1",
                "type": "function",
                "function": {"name": "<i>tool</i>", "arguments": '{"q": "<svg onload=x()>"}'},
            }
        ],
    },
    {"role": "tool", "tool_call_id": "call_1", "content": "</li><script>pwn()</script>"},
    {"role": "assistant", "content": "Done & <u>dusted</u>"},
]
RAW = ("<script>", "<img src=x", "<b>eve</b>", "<i>tool</i>", "<svg onload", "<u>dusted</u>")


@pytest.fixture
def run(workspace, user):
    evalset = evalset_services.evalset_create(
        workspace=workspace,
        user=user,
        name="Chats",
        columns=[{"name": "dialogue", "content_type": "Conversation", "required": True}],
    )
    evalset_services.item_create(evalset=evalset, data={"dialogue": HOSTILE})
    evalset_services.item_create(
        evalset=evalset, data={"dialogue": [{"role": "user", "content": "no tools here"}]}
    )
    version = evalset_services.version_commit(evalset=evalset, user=user, version="1.0.0")
    evaluator = evaluator_services.evaluator_create(
        workspace=workspace, user=user, name="Reads chats", kind="code", language="python"
    )
    variables = [{"name": "dialogue", "content_type": "Conversation", "required": True}]
    config = {**evaluator.draft_config, "input_variables": variables, "source": READS_MESSAGES}
    evaluator_services.evaluator_update_draft(evaluator=evaluator, user=user, config=config)
    submitted = evaluator_services.evaluator_submit_version(
        evaluator=evaluator, user=user, version="1.0.0"
    )
    experiment = services.experiment_create(
        workspace=workspace,
        user=user,
        name="chats",
        evalset_version=version,
        bindings=[{"evaluator_version": submitted}],
    )
    services.experiment_launch(experiment=experiment)
    return engine.experiment_run_inline(experiment_id=experiment.pk)


def test_the_code_evaluator_scored_the_conversations(run):
    results = {r.item.data["dialogue"]["messages"][0]["role"]: r for r in run.results.all()}
    assert (results["system"].score, results["system"].verdict) == (1.0, "pass")
    assert results["system"].reason == "5 messages"
    assert (results["user"].score, results["user"].verdict) == (None, "unknown")


def test_grid_and_drawer_show_an_escaped_transcript(web, run):
    grid = web.get(reverse("experiments:detail", kwargs={"ws": "acme", "id": run.public_id}))
    item = EvalSetItem.objects.get(
        version=run.evalset_version, data__dialogue__messages__0__role="system"
    )
    drawer = web.get(
        reverse(
            "experiments:item",
            kwargs={"ws": "acme", "id": run.public_id, "item_id": item.item_id},
        )
    )
    for page in (grid, drawer):
        body = page.content.decode()
        assert page.status_code == 200
        for raw in RAW:
            assert raw not in body
        assert "&lt;script&gt;steal()&lt;/script&gt;" in body
        assert "&lt;/li&gt;&lt;script&gt;pwn()&lt;/script&gt;" in body
        assert 'class="msg msg-tool"' in body and "&lt;i&gt;tool&lt;/i&gt;" in body
        assert "5 messages" in body


def test_the_full_view_shows_every_message_escaped():
    """`_content.html` (the compare detail's inputs) shows the whole transcript, not a preview."""
    content = {"content_type": "Conversation", "messages": HOSTILE}
    html = render_to_string("experiments/_content.html", {"content": content})
    for raw in RAW:
        assert raw not in html
    assert html.count('<li class="msg') == len(HOSTILE) and "<details" not in html
    assert "&lt;img src=x onerror=alert(1)&gt;" in html  # the system prompt too


def test_an_http_target_template_sends_a_conversation_as_its_messages():
    """`{{dialogue}}` in a request body is OpenAI's messages array; inside text, its JSON."""
    from types import SimpleNamespace

    from experiments.targets.templating import Renderer

    messages = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]
    item = SimpleNamespace(
        data={"dialogue": {"content_type": "Conversation", "messages": messages}}
    )
    renderer = Renderer(item, media_url=lambda content: "", secrets={})
    body = renderer.json({"messages": "{{dialogue}}", "note": "chat: {{dialogue | text}}"})
    assert body["messages"] == messages
    assert body["note"] == 'chat: [{"role": "user", "content": "hi"}, ' + (
        '{"role": "assistant", "content": "hello"}]'
    )
    assert renderer.json("{{dialogue | json}}") == messages
