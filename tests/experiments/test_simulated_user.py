"""The simulated-user target against real local servers: the scripted LLM server plays the user
(its `say:` script), the scripted app (`tests/support/app_server.py`) is the app under test.
Stopping on the stop phrase and at max_turns, the Conversation it produces, a re-run replayed
from the response cache, an app error mid-conversation, usage summed over the turns, a prompt
app, config errors naming their field, the form panel and an experiment through a worker."""

from __future__ import annotations

import json

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse

from assay import services as platform
from evalsets import services as evalset_services
from evalsets.items.conversation import conversation_content
from evaluators import services as evaluator_services
from evaluators.llm.conversation import transcript
from experiments import scoring as engine
from experiments import services
from experiments.models import Experiment, Result, TargetResult
from experiments.targets.simulated_user import DEFAULT_PROMPT
from tests.experiments.conftest import wait_for
from tests.support.app_server import ScriptedApp
from tests.support.llm_fixtures import TEST_API_KEY
from tests.support.llm_server import CLEAN

pytestmark = pytest.mark.django_db

STOPS = "say:Hi, I need a refund.|It was order 42.|Thanks, that is all. <END>"
COLUMNS = [
    {"name": "persona", "content_type": "Text", "required": True},
    {"name": "goal", "content_type": "Text", "required": True},
    {"name": "opening", "content_type": "Text", "required": False},
]
COUNTS_MESSAGES = """
def exec_evaluation(turn):
    messages = turn["evaluate_target_output_fields"]["chat"]["messages"]
    return EvalOutput(score=1.0, reason=str(len(messages)) + " messages")
"""


@pytest.fixture
def app():
    with ScriptedApp() as server:
        yield server


def make_provider(workspace, server, name="Simulator"):
    return platform.provider_create(
        workspace=workspace,
        name=name,
        base_url=server.base_url,
        default_model="judge-model",
        api_key=TEST_API_KEY,
        structured_mode="json_object",
    )


def scenarios(workspace, user, rows, name="Scenarios"):
    evalset = evalset_services.evalset_create(
        workspace=workspace, user=user, name=name, columns=COLUMNS
    )
    for row in rows:
        evalset_services.item_create(evalset=evalset, data=row)
    return evalset_services.version_commit(evalset=evalset, user=user, version="1.0.0")


def scenario(opening=""):
    row = {"persona": "A hurried customer", "goal": "Get a refund for order 42"}
    return {**row, "opening": opening} if opening else row


def http_app(app, **overrides):
    body = {"question": "{{message}}", "history": "{{conversation}}"}
    return {"kind": "http", "url": app.url, "body": body, "output": "answer", **overrides}


def target(provider, app_config, **overrides):
    return {
        "kind": "simulated_user",
        "provider_id": str(provider.public_id),
        "persona": "persona",
        "goal": "goal",
        "opening": "opening",
        "app": app_config,
        **overrides,
    }


@pytest.fixture
def counter(workspace, user):
    """A code evaluator of the conversation: how many messages it saw."""
    evaluator = evaluator_services.evaluator_create(
        workspace=workspace, user=user, name="Counts messages", kind="code", language="python"
    )
    variables = [{"name": "chat", "content_type": "Conversation", "required": True}]
    config = {**evaluator.draft_config, "input_variables": variables, "source": COUNTS_MESSAGES}
    evaluator_services.evaluator_update_draft(evaluator=evaluator, user=user, config=config)
    return evaluator_services.evaluator_submit_version(
        evaluator=evaluator, user=user, version="1.0.0"
    )


def create(workspace, user, version, counter, target_config, name="simulated", launch=True):
    return services.experiment_create(
        workspace=workspace,
        user=user,
        name=name,
        evalset_version=version,
        bindings=[{"evaluator_version": counter, "mapping": {"chat": "target:conversation"}}],
        target=target_config,
        launch=launch,
    )


def run(workspace, user, version, counter, target_config, name="simulated"):
    experiment = create(workspace, user, version, counter, target_config, name)
    return engine.experiment_run_inline(experiment_id=experiment.pk)


def messages_of(row: TargetResult) -> list[tuple[str, str]]:
    return [(m["role"], m["content"]) for m in row.conversation["messages"]]


def test_the_user_stops_on_the_stop_phrase_and_the_phrase_is_not_kept(
    workspace, user, llm_server_factory, app, counter
):
    llm = llm_server_factory(default_script=STOPS)
    provider = make_provider(workspace, llm)
    version = scenarios(workspace, user, [scenario()])
    experiment = run(workspace, user, version, counter, target(provider, http_app(app)))
    assert experiment.status == "completed"
    row = TargetResult.objects.get(experiment=experiment)
    assert row.status == "success" and row.rendered_request["ended"] == "stop_phrase"
    assert messages_of(row) == [
        ("user", "Hi, I need a refund."),
        ("assistant", "echo: Hi, I need a refund."),
        ("user", "It was order 42."),
        ("assistant", "echo: It was order 42."),
        ("user", "Thanks, that is all."),
    ]
    assert "<END>" not in row.output and app.calls == 2  # the closing message is not sent
    assert len(llm.chat_requests()) == 3
    # the app received the chat so far as OpenAI messages, and the latest message
    second = app.requests[1].body
    assert second["question"] == "It was order 42." and len(second["history"]) == 3
    # the evaluator mapped to target:conversation saw the whole chat
    assert Result.objects.get(experiment=experiment).reason == "5 messages"


def test_the_simulator_sees_the_scenario_and_the_chat_from_the_users_side(
    workspace, user, llm_server_factory, app, counter
):
    llm = llm_server_factory(default_script=STOPS)
    provider = make_provider(workspace, llm)
    version = scenarios(workspace, user, [scenario()])
    run(workspace, user, version, counter, target(provider, http_app(app), seed=7))
    first, second = (r.body for r in llm.chat_requests()[:2])
    system = first["messages"][0]
    assert system["role"] == "system" and "A hurried customer" in system["content"]
    assert "Get a refund for order 42" in system["content"] and "<END>" in system["content"]
    assert first["seed"] == 7 and second["seed"] == 7
    assert [m["role"] for m in second["messages"]] == ["system", "user", "assistant", "user"]
    # its own message is the assistant's, the app's reply is the user's
    assert second["messages"][2]["content"] == "Hi, I need a refund."
    assert second["messages"][3]["content"] == "echo: Hi, I need a refund."


def test_the_conversation_ends_at_max_turns_and_an_opening_cell_is_the_first_message(
    workspace, user, llm_server_factory, app, counter
):
    llm = llm_server_factory(default_script="say:Tell me more.")
    provider = make_provider(workspace, llm)
    version = scenarios(workspace, user, [scenario(), scenario(opening="Hello, order 42?")])
    experiment = run(
        workspace, user, version, counter, target(provider, http_app(app), max_turns=3)
    )
    rows = TargetResult.objects.filter(experiment=experiment).select_related("item")
    by_opening = {bool(r.item.data.get("opening")): r for r in rows}
    for row in rows:
        assert row.status == "success" and row.rendered_request["ended"] == "max_turns"
        assert [role for role, _text in messages_of(row)] == ["user", "assistant"] * 3
        assert row.rendered_request["turns"] == 3
    assert messages_of(by_opening[True])[0] == ("user", "Hello, order 42?")
    assert messages_of(by_opening[False])[0] == ("user", "Tell me more.")
    # 3 simulator calls without an opening, 2 with one; the app answers each of the 6 turns
    assert len(llm.chat_requests()) == 5 and app.calls == 6


def test_the_output_is_a_valid_conversation_and_its_transcript(
    workspace, user, llm_server_factory, app, counter
):
    llm = llm_server_factory(default_script=STOPS)
    provider = make_provider(workspace, llm)
    version = scenarios(workspace, user, [scenario()])
    experiment = run(workspace, user, version, counter, target(provider, http_app(app)))
    row = TargetResult.objects.get(experiment=experiment)
    assert conversation_content(row.conversation["messages"]) == row.conversation
    assert row.conversation["content_type"] == "Conversation"
    assert row.output == transcript(row.conversation)
    assert row.output.startswith("user: Hi, I need a refund.\nassistant: echo: Hi")


def test_a_rerun_with_the_same_seed_replays_the_conversation_from_the_cache(
    workspace, user, llm_server_factory, app, counter
):
    llm = llm_server_factory(default_script=STOPS)
    provider = make_provider(workspace, llm)
    version = scenarios(workspace, user, [scenario(), scenario(opening="Hello?")])
    first = run(workspace, user, version, counter, target(provider, http_app(app)))
    asked = len(llm.chat_requests())
    assert asked == 5
    clone = services.experiment_clone(experiment=first, user=user, name="again")
    services.experiment_launch(experiment=clone)
    second = engine.experiment_run_inline(experiment_id=clone.pk)
    assert len(llm.chat_requests()) == asked  # no new simulator call
    assert app.calls == 8  # the app itself is asked again
    chats = [
        {r.item_id: r.conversation for r in TargetResult.objects.filter(experiment=e)}
        for e in (first, second)
    ]
    assert chats[0] == chats[1]
    # another seed is another request: the simulator is asked again
    third = run(workspace, user, version, counter, target(provider, http_app(app), seed=1))
    assert third.status == "completed" and len(llm.chat_requests()) == asked + 5


def test_an_app_error_mid_conversation_ends_it_and_its_evaluators_see_unknown(
    workspace, user, llm_server_factory, app, counter
):
    llm = llm_server_factory(default_script="say:hello|500|bye")
    provider = make_provider(workspace, llm)
    version = scenarios(workspace, user, [scenario()])
    failing = http_app(app, body={"question": "{{message}}", "script": "{{message}}"})
    experiment = run(
        workspace, user, version, counter, target(provider, {**failing, "max_retries": 0})
    )
    row = TargetResult.objects.get(experiment=experiment)
    assert row.status == "error" and row.rendered_request["ended"] == "error"
    assert row.error.startswith("turn 2: the app failed: the endpoint")
    assert messages_of(row) == [("user", "hello"), ("assistant", "echo: hello"), ("user", "500")]
    assert '"error": "scripted 500"' in row.raw_response
    result = Result.objects.get(experiment=experiment)
    assert result.status == "skipped" and result.verdict == "unknown"
    assert result.error.startswith("no output from the target: turn 2: the app failed")
    assert len(llm.chat_requests()) == 2  # nothing asked after the failure


def test_latency_tokens_and_cost_are_summed_over_the_turns(
    workspace, user, llm_server_factory, app, counter
):
    llm = llm_server_factory(default_script=STOPS)
    provider = make_provider(workspace, llm)
    provider.prices = {"judge-model": {"input": 1.0, "output": 2.0}}
    provider.save(update_fields=["prices"])
    version = scenarios(workspace, user, [scenario()])
    usage = {"tokens_in": "usage.input_tokens", "tokens_out": "usage.output_tokens"}
    app_config = http_app(app, cost="usage.cost", **usage)
    experiment = run(workspace, user, version, counter, target(provider, app_config))
    row = TargetResult.objects.get(experiment=experiment)
    split = row.rendered_request["usage"]
    assert split["app"]["tokens_in"] == 2 * 12 and split["app"]["tokens_out"] == 2 * 3
    assert split["app"]["cost"] == pytest.approx(2 * 0.0005)
    asked = [r.body for r in llm.chat_requests()]
    assert split["simulator"]["tokens_in"] == sum(len(str_messages(b)) // 4 for b in asked)
    assert row.tokens_in == split["app"]["tokens_in"] + split["simulator"]["tokens_in"]
    assert row.tokens_out == split["app"]["tokens_out"] + split["simulator"]["tokens_out"]
    assert row.cost == pytest.approx(split["app"]["cost"] + split["simulator"]["cost"])
    assert split["simulator"]["cost"] > 0
    assert row.latency_ms == pytest.approx(
        split["app"]["latency_ms"] + split["simulator"]["latency_ms"]
    )
    assert experiment.target_summary["usage"]["tokens_in"] == row.tokens_in


def str_messages(body) -> str:
    return json.dumps(body["messages"])


def test_a_prompt_app_answers_with_its_messages_then_the_chat(
    workspace, user, llm_server_factory, counter
):
    simulator = llm_server_factory(default_script=STOPS)
    model = llm_server_factory(default_script="clean")
    version = scenarios(workspace, user, [scenario()])
    app_config = {
        "kind": "prompt",
        "provider_id": str(make_provider(workspace, model, name="App").public_id),
        "messages": [{"role": "system", "content": "You help {{persona}}. Be brief."}],
    }
    sim = make_provider(workspace, simulator)
    experiment = run(workspace, user, version, counter, target(sim, app_config))
    row = TargetResult.objects.get(experiment=experiment)
    assert row.status == "success" and len(row.conversation["messages"]) == 5
    second = model.chat_requests()[1].body["messages"]
    assert second[0] == {"role": "system", "content": "You help A hurried customer. Be brief."}
    assert [m["role"] for m in second[1:]] == ["user", "assistant", "user"]
    assert second[-1]["content"] == "It was order 42."
    assert row.conversation["messages"][1]["content"] == CLEAN  # the app model's answer


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"persona": "nope"}, "target.persona"),
        ({"goal": ""}, "target.goal"),
        ({"opening": "missing"}, "target.opening"),
        ({"max_turns": 31}, "target.max_turns"),
        ({"max_turns": 0}, "target.max_turns"),
        ({"stop_phrase": "  "}, "target.stop_phrase"),
        ({"seed": -1}, "target.seed"),
        ({"temperature": 3}, "target.temperature"),
        ({"system_prompt": "Be {{nobody}}."}, "target.system_prompt"),
        ({"provider_id": "00000000-0000-0000-0000-000000000000"}, "target.provider_id"),
        ({"app": None}, "target.app"),
        ({"app": {"kind": "external"}}, "target.app"),
        ({"surprise": 1}, "target"),
    ],
)
def test_bad_configs_are_refused_naming_the_field(
    workspace, user, llm_server, app, counter, change, field
):
    version = scenarios(workspace, user, [scenario()])
    config = {**target(make_provider(workspace, llm_server), http_app(app)), **change}
    with pytest.raises(ValidationError) as raised:
        create(workspace, user, version, counter, config)
    assert field in raised.value.message_dict
    assert not Experiment.objects.exists()


def test_the_apps_own_problems_are_named_under_target_app(
    workspace, user, llm_server, app, counter
):
    version = scenarios(workspace, user, [scenario()])
    provider = make_provider(workspace, llm_server)
    bad_app = http_app(app, url="ftp://nowhere", body={"q": "{{nope}}", "m": "{{message}}"})
    with pytest.raises(ValidationError) as raised:
        create(workspace, user, version, counter, target(provider, bad_app))
    assert {"target.app.url", "target.app.body"} <= set(raised.value.message_dict)
    body = raised.value.message_dict["target.app.body"]
    assert body == ["{{nope}} is not a column of the evalset."]  # {{message}} is the turn's


def test_the_default_prompt_is_stored_and_the_secrets_never_shown(
    workspace, user, llm_server, app, counter
):
    platform.secret_named_save(
        workspace=workspace, name="APP_TOKEN", value="s3cr3t-value-0123", origins=[app.origin]
    )
    version = scenarios(workspace, user, [scenario()])
    headers = {"Authorization": "Bearer {{secrets.APP_TOKEN}}"}
    experiment = create(
        workspace,
        user,
        version,
        counter,
        target(make_provider(workspace, llm_server), http_app(app, headers=headers)),
        launch=False,
    )
    assert experiment.target_config["system_prompt"] == DEFAULT_PROMPT
    assert experiment.target_config["max_turns"] == 6
    assert experiment.target_config["stop_phrase"] == "<END>"
    shown = experiment.target_spec.public_config(experiment.target_config)
    assert shown["app"]["headers"] == headers and "s3cr3t" not in str(shown)
    assert "up to 6 turns" in experiment.target_spec.summary(experiment.target_config)


def form_data(version, provider, counter, **app) -> dict:
    vid = counter.public_id
    return {
        "name": "From the form",
        "evalset_version": str(version.public_id),
        "target_kind": "simulated_user",
        "evaluator_versions": [str(vid)],
        "concurrency": "4",
        "chunk_size": "10",
        "su_provider_id": str(provider.public_id),
        "su_persona": "persona",
        "su_goal": "goal",
        "su_opening": "",
        "su_max_turns": "4",
        "su_stop_phrase": "<STOP>",
        "su_seed": "3",
        f"map__{vid}__chat": "target:conversation",
        f"policy__{vid}__kind": "threshold",
        f"policy__{vid}__threshold": "0.5",
        "step": "draft",
        **app,
    }


def test_the_form_panel_creates_the_target(web, workspace, user, llm_server, app, counter):
    version = scenarios(workspace, user, [scenario()])
    provider = make_provider(workspace, llm_server)
    page = web.get(reverse("experiments:new", kwargs={"ws": "acme"})).content.decode()
    assert 'data-target-panel="simulated_user"' in page
    # the scenario's columns are pickers of the set's Text columns, not free text
    assert '<select name="su_persona"' in page and '<option value="goal">goal</option>' in page
    assert '<script id="su-columns" type="application/json">' in page
    # the app under test is the HTTP target's own form (and the prompt target's), not JSON
    assert 'name="su_app_http_url"' in page and 'name="su_app_system_prompt"' in page
    assert 'name="su_app"' not in page and 'id="test-request-simulated_user"' in page
    body = '{"question": "{{message}}", "history": "{{conversation}}"}'
    http = {"su_app_kind": "http", "su_app_http_url": app.url, "su_app_http_method": "POST"}
    http |= {"su_app_http_body": body, "su_app_http_output": "answer"}
    data = form_data(version, provider, counter, **http)
    response = web.post(reverse("experiments:new", kwargs={"ws": "acme"}), data)
    assert response.status_code == 302, response.content.decode()[:2000]
    experiment = Experiment.objects.get()
    config = experiment.target_config
    assert experiment.target_kind == "simulated_user" and config["max_turns"] == 4
    assert (config["stop_phrase"], config["seed"], config["opening"]) == ("<STOP>", 3, "")
    assert config["system_prompt"] == DEFAULT_PROMPT
    assert config["app"]["kind"] == "http" and config["app"]["url"] == app.url
    assert config["app"]["body"] == {"question": "{{message}}", "history": "{{conversation}}"}
    missing = web.post(
        reverse("experiments:new", kwargs={"ws": "acme"}),
        {**data, "su_app_http_url": "", "su_persona": "", "su_goal": "nope"},
    ).content.decode()
    assert "Give the URL of your application" in missing
    assert "Choose the column of the scenario" in missing
    assert "Select a valid choice. nope is not one of the available choices." in missing


def test_the_form_builds_a_prompt_app(web, workspace, user, llm_server, counter):
    version = scenarios(workspace, user, [scenario()])
    provider = make_provider(workspace, llm_server)
    prompt = {
        "su_app_kind": "prompt",
        "su_app_provider": str(provider.public_id),
        "su_app_system_prompt": "You are the shop's support bot. The customer: {{persona}}",
    }
    data = form_data(version, provider, counter, **prompt)
    response = web.post(reverse("experiments:new", kwargs={"ws": "acme"}), data)
    assert response.status_code == 302, response.content.decode()[:2000]
    app = Experiment.objects.get().target_config["app"]
    assert app["kind"] == "prompt" and app["provider_id"] == str(provider.public_id)
    assert app["messages"] == [{"role": "system", "content": prompt["su_app_system_prompt"]}]
    empty = web.post(
        reverse("experiments:new", kwargs={"ws": "acme"}),
        {**data, "su_app_system_prompt": "", "su_app_provider": ""},
    ).content.decode()
    assert "Give the app&#x27;s system message" in empty
    assert "Choose the provider your prompt app runs on." in empty


@pytest.mark.django_db(transaction=True)
def test_a_run_through_a_real_worker(
    workspace, user, llm_server_factory, app, counter, celery_worker_inproc
):
    llm = llm_server_factory(default_script=STOPS)
    provider = make_provider(workspace, llm)
    version = scenarios(workspace, user, [scenario(), scenario(opening="Hi there")])
    experiment = create(workspace, user, version, counter, target(provider, http_app(app)))

    def finished():
        experiment.refresh_from_db()
        return experiment.status == "completed"

    wait_for(finished, 60, "the simulated-user run to complete")
    rows = TargetResult.objects.filter(experiment=experiment)
    assert {r.status for r in rows} == {"success"} and rows.count() == 2
    assert Result.objects.filter(experiment=experiment).count() == 2


def test_the_simulated_conversation_scored_per_assistant_turn(
    workspace, user, llm_server_factory, app, counter
):
    llm = llm_server_factory(default_script=STOPS)
    provider = make_provider(workspace, llm)
    version = scenarios(workspace, user, [scenario()])
    binding = {
        "evaluator_version": counter,
        "mapping": {"chat": "target:conversation"},
        "per_turn": True,
    }
    experiment = services.experiment_create(
        workspace=workspace,
        user=user,
        name="per turn",
        evalset_version=version,
        bindings=[binding],
        target=target(provider, http_app(app)),
        launch=True,
    )
    done = engine.experiment_run_inline(experiment_id=experiment.pk)
    stored = done.bindings.get()
    assert stored.turn_source == "target:conversation"
    results = Result.objects.filter(experiment=done).order_by("turn")
    # two replies of the app; the closing user message is not a turn
    assert [r.reason for r in results] == ["2 messages", "4 messages"]
    assert done.results_done == done.results_total == 1
    assert stored.aggregate.summary["per_turn"]["turns"] == 2


def test_the_demo_plays_its_scenarios_and_scores_its_chats_per_turn(workspace, user):
    from evalsets.demo import demo_load as evalsets_demo
    from experiments.demo import demo_load
    from experiments.demo_simulated import PER_TURN_RUN, PROVIDER, SIMULATED_RUN

    evalsets_demo(workspace=workspace, user=user)
    demo_load(workspace=workspace, user=user)
    demo_load(workspace=workspace, user=user)  # idempotent: nothing doubled
    simulated = Experiment.objects.get(workspace=workspace, name=SIMULATED_RUN)
    per_turn = Experiment.objects.get(workspace=workspace, name=PER_TURN_RUN)
    assert simulated.status == per_turn.status == "completed"
    rows = TargetResult.objects.filter(experiment=simulated)
    assert rows.count() == 4 and {r.status for r in rows} == {"success"}
    ended = sorted(r.rendered_request["ended"] for r in rows)
    assert ended == ["max_turns", "stop_phrase", "stop_phrase", "stop_phrase"]
    assert all("<END>" not in r.output for r in rows)
    assert simulated.target_summary["usage"]["cost"] > 0
    forward = simulated.bindings.get(per_turn=True).aggregate.summary
    assert (forward["passed"], forward["fails"]) == (3, 1)  # the cancellation is refused
    assert forward["per_turn"]["turns"] == 10
    chats = per_turn.bindings.get().aggregate.summary
    assert chats["total_processed"] == 5 and chats["per_turn"]["turns"] == 8
    assert workspace.providers.filter(name=PROVIDER).count() == 1


def test_the_pages_show_the_target_and_the_chat_escaped(
    web, workspace, user, llm_server_factory, app, counter
):
    llm = llm_server_factory(default_script="say:<script>alert(1)</script> hi|bye <END>")
    provider = make_provider(workspace, llm)
    version = scenarios(workspace, user, [scenario()])
    experiment = run(workspace, user, version, counter, target(provider, http_app(app)))
    kwargs = {"ws": "acme", "id": experiment.public_id}
    page = web.get(reverse("experiments:detail", kwargs=kwargs)).content.decode()
    assert "up to 6 turns" in page and "{{conversation}}" in page
    item = TargetResult.objects.get(experiment=experiment).item
    drawer = web.get(
        reverse("experiments:item", kwargs={**kwargs, "item_id": item.item_id})
    ).content.decode()
    assert 'class="chat conversation"' in drawer and "echo: " in drawer
    assert "<script>alert(1)</script>" not in drawer + page
    assert "&lt;script&gt;alert(1)&lt;/script&gt; hi" in drawer
