"""Headless Chromium: a conversation row in the results drawer (the transcript opens from its
count, hostile text stays text), and an LLM judge whose Conversation variable is sent as chat
history, edited and debugged as a JSON array of messages."""

import json

import pytest

from assay import services as platform
from evalsets import services as evalset_services
from evaluators import services as evaluator_services
from experiments import scoring as engine
from experiments import services
from tests.support.fixtures import screenshot, sign_in, wait_until

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

READS = """def exec_evaluation(turn):
    messages = turn["evaluate_dataset_fields"]["dialogue"]["messages"]
    return EvalOutput(score=1.0, reason=str(len(messages)) + " messages read")
"""
CHAT = [
    {"role": "system", "content": "You are a travel assistant."},
    {"role": "user", "content": "Weather in Paris? <script>window.pwned = 1</script>"},
    {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": "call_1",
                "type": "function",
                "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'},
            }
        ],
    },
    {"role": "tool", "tool_call_id": "call_1", "content": '{"temp_c": 18}'},
    {"role": "assistant", "content": "It is 18 °C in Paris."},
]


@pytest.fixture
def chats_run(workspace, user):
    evalset = evalset_services.evalset_create(
        workspace=workspace,
        user=user,
        name="Chats",
        columns=[{"name": "dialogue", "content_type": "Conversation", "required": True}],
    )
    evalset_services.item_create(evalset=evalset, data={"dialogue": CHAT})
    version = evalset_services.version_commit(evalset=evalset, user=user, version="1.0.0")
    evaluator = evaluator_services.evaluator_create(
        workspace=workspace, user=user, name="Reads chats", kind="code", language="python"
    )
    variables = [{"name": "dialogue", "content_type": "Conversation", "required": True}]
    config = {**evaluator.draft_config, "input_variables": variables, "source": READS}
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


def test_a_conversation_row_in_the_drawer(live_server, page, chats_run):
    sign_in(page, live_server)
    page.goto(f"{live_server.url}/w/acme/experiments/{chats_run.public_id}/")
    cell = page.locator("#results-table .conversation").first
    assert "5 messages" in cell.inner_text() and "Weather in Paris?" in cell.inner_text()
    page.locator("#results-table .open-item").first.click()
    page.wait_for_selector("#result-drawer")
    drawer = page.locator("#result-drawer")
    assert "5 messages read" in drawer.inner_text()
    drawer.locator("details.chat-more > summary").click()
    full = drawer.locator("details.chat-more[open] > ol.chat")
    wait_until(page, "document.querySelector('#result-drawer details.chat-more[open]') !== null")
    assert full.locator("li.msg").count() == 5
    assert 'get_weather({"city": "Paris"})' in full.inner_text()
    assert "<script>window.pwned = 1</script>" in full.inner_text()  # shown as text…
    assert page.evaluate("window.pwned === undefined")  # …never run
    screenshot(page, "conversation-drawer")
    assert page.console_errors == []


def test_a_judge_with_chat_history_in_the_editor_and_debug(
    live_server, page, workspace, user, llm_server
):
    provider = platform.provider_create(
        workspace=workspace,
        name="Local judge",
        base_url=llm_server.base_url,
        default_model="judge-model",
        api_key="sk-test-assay-0123456789",
        structured_mode="json_object",
    )
    judge = evaluator_services.evaluator_create(
        workspace=workspace, user=user, name="Chat judge", kind="llm"
    )
    config = {
        "input_variables": [{"name": "chat", "content_type": "Conversation", "required": True}],
        "messages": [
            {"role": "system", "content": "Judge the conversation."},
            {"role": "user", "content": "Did the assistant help? [[script:score:0.9]]"},
        ],
        "model": {**judge.draft_config["model"], "provider_id": str(provider.public_id)},
        "chat_history_variable": "chat",
    }
    evaluator_services.evaluator_update_draft(evaluator=judge, user=user, config=config)
    sign_in(page, live_server)
    page.goto(f"{live_server.url}/w/acme/evaluators/{judge.public_id}/")
    page.wait_for_selector("#conversation-options:not([hidden])")
    assert page.locator("#chat-history").input_value() == "chat"
    assert page.locator("#variable-chips").inner_text().strip() == "{{chat}}"
    editor = page.locator("#turn-var-chat")
    assert json.loads(editor.input_value())[1]["role"] == "assistant"  # the sample exchange
    editor.fill(json.dumps(CHAT))
    page.keyboard.press("Control+Enter")
    page.wait_for_selector(".debug-result")
    result = page.locator(".debug-result").first
    assert result.locator(".score").inner_text() == "0.90"
    sent = llm_server.chat_requests()[0].body["messages"]
    assert sent[0]["content"].startswith("Judge the conversation.") and sent[1:-1] == CHAT
    screenshot(page, "conversation-judge-debug")
    page.select_option("#chat-history", "")
    stored = json.loads(page.locator("#id_config_json").input_value())
    assert "chat_history_variable" not in stored
    assert page.console_errors == []
