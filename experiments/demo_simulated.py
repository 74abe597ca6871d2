"""Demo: conversations. "Support scenarios" (persona, goal, optional opening) played by a
simulated user against a support app, and the multi-turn "Support chats" (evalsets' demo)
scored reply by reply.

The demo has no model and no app of its own, so both are scripted and served in this process
(127.0.0.1, an ephemeral port) only while the demo loads: the run goes through the real
simulated-user target — the simulator's calls through the LLM call path and response cache, the
app's through the HTTP target's code — so its conversations, usage and per-turn results are
what a real run stores. The simulator's provider, "Scripted user (demo)", points at that
address, closed once loading ends: to play the scenarios again, choose a real provider and app.
When the outbound policy refuses loopback addresses (production), the run is left out.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from django.conf import settings

from assay.demo import demo_existing
from assay.models import ModelProvider
from assay.safety.outbound import outbound_policy, url_problem
from assay.services import provider_create, provider_update
from evalsets.demo import demo_evalset_version
from evalsets.models import EvalSet
from evaluators.models import Evaluator
from evaluators.services import evaluator_create, evaluator_submit_version

from . import scoring as engine
from . import services
from .models import Experiment

SCENARIOS = "Support scenarios"
CHATS = "Support chats"  # evalsets' demo (demo_conversations)
SIMULATED_RUN = "Support scenarios · simulated users vs the support app"
PER_TURN_RUN = "Support chats · every reply scored"
PROVIDER = "Scripted user (demo)"
FORWARD = "Reply moves the case forward (demo)"
RESOLVED = "Case resolved (demo)"
STOP = "<END>"

# persona, goal, opening (may be empty), then what the user says next, turn after turn
PLAYS = [
    (
        "A hurried customer who writes in short sentences.",
        "Get a refund for order 42.",
        "Hi, I want my money back for order 42.",
        ["It arrived broken.", f"Thanks, that is all. {STOP}"],
    ),
    (
        "A polite retiree, new to online shopping.",
        "Change the delivery address of order 77 to 5 Rose Lane.",
        "",
        [
            "Hello, I would like to change where my parcel goes.",
            "It is order 77, please send it to 5 Rose Lane.",
            f"Lovely, thank you. {STOP}",
        ],
    ),
    (
        "A frustrated customer who has already called twice.",
        "Cancel a subscription today.",
        "",
        ["Cancel my subscription. Now.", "I have asked twice already!", f"Forget it. {STOP}"],
    ),
    (
        "A curious student with many questions.",
        "Learn the opening hours of the Lisbon store.",
        "What time does the Lisbon store open?",
        ["And on Sundays?", "Is it the same in summer?", "And on public holidays?"],
    ),
]
# the support app: the first rule whose words appear in the user's latest message answers
APP_RULES = [
    (("broken",), "I am sorry. I have opened refund R-1042 for order 42: 3–5 days to your card."),
    (("money back", "refund"), "I can help with that. What went wrong with the order?"),
    (("rose lane", "order 77"), "Done: order 77 now goes to 5 Rose Lane."),
    (("change where",), "Of course. Which order is it, and what is the new address?"),
    (("cancel", "twice"), "I cannot cancel subscriptions in this chat. Please call us."),
    (("sunday",), "On Sundays the Lisbon store is closed."),
    (("summer",), "In July and August it opens an hour earlier, at 8:00."),
    (("holiday",), "On public holidays it opens 10:00–14:00."),
    (("open",), "The Lisbon store opens 9:00–19:00, Monday to Saturday."),
]
FORWARD_CODE = '''def exec_evaluation(turn):
    """1 when the reply being scored (the conversation's last message) moves the case on,
    0 when it sends the user elsewhere."""
    fields = {**turn["evaluate_dataset_fields"], **turn["evaluate_target_output_fields"]}
    reply = fields["conversation"]["messages"][-1]
    text = (reply.get("content") or "").lower()
    if "cannot" in text or "please call" in text:
        return EvalOutput(score=0.0, reason="The reply sends the user elsewhere.")
    return EvalOutput(score=1.0, reason="The reply moves the case forward.")
'''
RESOLVED_CODE = '''def exec_evaluation(turn):
    """1 when the assistant confirmed a result somewhere in the transcript."""
    text = turn["evaluate_target_output_fields"]["actual_output"]["text"]
    done = any(word in text for word in ("Done:", "opened refund", "opens 9:00"))
    if done:
        return EvalOutput(score=1.0, reason="The assistant confirmed the result.")
    return EvalOutput(score=0.0, reason="No result was confirmed.")
'''


def simulated_demo_load(*, workspace, user) -> None:
    """The scenarios set and its simulated-user run, and a per-turn run on "Support chats";
    each once."""
    forward = _evaluator(workspace, user, FORWARD, "conversation", "Conversation", FORWARD_CODE)
    if demo_existing(Experiment, workspace, PER_TURN_RUN) is None:
        _per_turn_run(workspace, user, forward)
    if demo_existing(Experiment, workspace, SIMULATED_RUN) is not None:
        return
    with ScriptedServer() as server:
        if url_problem(server.url, outbound_policy(settings.ASSAY_OUTBOUND_ALLOW)):
            return  # the policy refuses loopback: no run rather than a run of errors
        resolved = _evaluator(workspace, user, RESOLVED, "actual_output", "Text", RESOLVED_CODE)
        _simulated_run(workspace, user, server, forward, resolved)


def _evaluator(workspace, user, name, variable, content_type, source):
    """A submitted 1.0.0 of a one-variable Python evaluator (the variable from the target)."""
    found = demo_existing(Evaluator, workspace, name)
    if found is not None:
        return found.versions.get(version="1.0.0")
    evaluator = evaluator_create(
        workspace=workspace,
        user=user,
        name=name,
        kind="code",
        language="python",
        tags=["demo", "conversation"],
        config={
            "input_variables": [{"name": variable, "content_type": content_type}],
            "language": "python",
            "source": source,
            "timeout_s": 5.0,
            "memory_mb": 256,
        },
    )
    return evaluator_submit_version(evaluator=evaluator, user=user, version="1.0.0")


def _per_turn_run(workspace, user, forward) -> None:
    chats = demo_existing(EvalSet, workspace, CHATS)
    version = chats.versions.first() if chats else None
    if version is None:
        return
    binding = {
        "evaluator_version": forward,
        "mapping": {"conversation": "column:conversation"},
        "per_turn": True,
    }
    experiment = services.experiment_create(
        workspace=workspace,
        user=user,
        name=PER_TURN_RUN,
        evalset_version=version,
        bindings=[binding],
        launch=True,
        description="Each assistant reply scored with the history up to it; a chat passes "
        "when every reply does.",
    )
    engine.experiment_run_inline(experiment_id=experiment.pk)


def _simulated_run(workspace, user, server, forward, resolved) -> None:
    version = _scenarios(workspace, user)
    bindings = [
        {
            "evaluator_version": forward,
            "mapping": {"conversation": "target:conversation"},
            "per_turn": True,
        },
        {"evaluator_version": resolved, "mapping": {"actual_output": "target:actual_output"}},
    ]
    experiment = services.experiment_create(
        workspace=workspace,
        user=user,
        name=SIMULATED_RUN,
        evalset_version=version,
        bindings=bindings,
        target=_target(_provider(workspace, server.base_url), server.app_url),
        launch=True,
        description="A scripted user per scenario against a scripted support app, both served "
        "in-process while the demo loaded: up to four turns, or until the user writes <END>.",
    )
    engine.experiment_run_inline(experiment_id=experiment.pk)


def _target(provider, app_url: str) -> dict:
    return {
        "kind": "simulated_user",
        "provider_id": str(provider.public_id),
        "persona": "persona",
        "goal": "goal",
        "opening": "opening",
        "max_turns": 4,
        "stop_phrase": STOP,
        "seed": 7,
        "app": {
            "kind": "http",
            "url": app_url,
            "body": {"messages": "{{conversation}}", "customer_goal": "{{goal}}"},
            "output": "reply",
            "tokens_in": "usage.input_tokens",
            "tokens_out": "usage.output_tokens",
            "cost": "usage.cost",
            "max_retries": 0,
        },
    }


def _provider(workspace, base_url: str) -> ModelProvider:
    """The scripted simulator's provider, pointed at this load's server."""
    found = demo_existing(ModelProvider, workspace, PROVIDER)
    if found is not None:
        return provider_update(provider=found, base_url=base_url)
    return provider_create(
        workspace=workspace,
        name=PROVIDER,
        base_url=base_url,
        default_model="scripted-user",
        structured_mode=ModelProvider.StructuredMode.JSON_OBJECT,
        rpm_limit=60_000,  # a script in this process: no reason to space its calls out
        prices={"scripted-user": {"input": 0.15, "output": 0.6}},
    )


def _scenarios(workspace, user):
    rows = [
        {"data": {"persona": p, "goal": g, "opening": o}, "tags": ["support"]}
        for p, g, o, _script in PLAYS
    ]
    return demo_evalset_version(
        workspace=workspace,
        user=user,
        rows=rows,
        note="Four support scenarios.",
        name=SCENARIOS,
        tags=["demo", "conversation"],
        description="Who the user is, what they want and (optionally) how they open: "
        "scenarios a simulated user plays against the app under test.",
        columns=[
            {"name": "persona", "content_type": "Text", "required": True},
            {"name": "goal", "content_type": "Text", "required": True},
            {"name": "opening", "content_type": "Text", "required": False},
        ],
    )


# ----------------------------------------------------------------------------- the servers


def user_says(body: dict) -> str:
    """The scripted user's next message: its scenario found by persona in the system prompt,
    the step after the messages it already wrote (an opening it did not write counts too)."""
    messages = body.get("messages") or []
    system = next((m["content"] for m in messages if m.get("role") == "system"), "")
    written = sum(1 for m in messages if m.get("role") == "assistant")
    for persona, _goal, opening, script in PLAYS:
        if persona in system:
            return script[min(written - (1 if opening else 0), len(script) - 1)]
    return f"Thank you. {STOP}"


def app_answers(body: dict) -> str:
    """The scripted support app's reply to the latest user message."""
    latest = next(
        (m["content"] for m in reversed(body.get("messages") or []) if m.get("role") == "user"),
        "",
    ).lower()
    for words, reply in APP_RULES:
        if any(word in latest for word in words):
            return reply
    return "Could you tell me a little more?"


class _Handler(BaseHTTPRequestHandler):
    def log_message(self, format, *args) -> None:  # noqa: A002 - the standard signature
        """Quiet: the demo load prints one line."""

    def do_POST(self) -> None:  # noqa: N802 - the standard name
        length = int(self.headers.get("Content-Length") or 0)
        body = json.loads(self.rfile.read(length) or b"{}")
        if self.path.startswith("/v1/chat/completions"):
            self._send(_completion(user_says(body), body))
        else:
            self._send(_app_reply(app_answers(body), body))

    def _send(self, payload: dict) -> None:
        data = json.dumps(payload).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


def _completion(content: str, body: dict) -> dict:
    prompt = len(json.dumps(body.get("messages"))) // 4
    choice = {"index": 0, "message": {"role": "assistant", "content": content}}
    usage = {"prompt_tokens": prompt, "completion_tokens": max(1, len(content) // 4)}
    return {"choices": [{**choice, "finish_reason": "stop"}], "usage": usage}


def _app_reply(reply: str, body: dict) -> dict:
    tokens_in, tokens_out = 30 + len(json.dumps(body)) // 4, max(1, len(reply) // 4)
    cost = round(tokens_in * 0.4e-6 + tokens_out * 1.6e-6, 8)
    usage = {"input_tokens": tokens_in, "output_tokens": tokens_out, "cost": cost}
    return {"reply": reply, "usage": usage}


class ScriptedServer:
    """The scripted simulator (an OpenAI-compatible /v1) and support app (/app), served on
    127.0.0.1 for as long as the `with` block lasts."""

    def __enter__(self) -> ScriptedServer:
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
        self.server.daemon_threads = True
        # a short poll interval: shutting down waits for the loop's next look
        self.thread = threading.Thread(
            target=self.server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(timeout=5)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    @property
    def base_url(self) -> str:
        return f"{self.url}/v1"

    @property
    def app_url(self) -> str:
        return f"{self.url}/app"
