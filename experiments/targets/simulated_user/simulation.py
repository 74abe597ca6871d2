"""How a simulated-user target runs a batch of rows. Every row's conversation advances one turn
at a time, all rows together, so each step is one batch of calls with `concurrency` in
flight: the simulator's through the judges' call path and response cache
(`prompt.completion_rows`), the app's through the HTTP target's request code (`http.call`) or
the prompt target's (`prompt.prompt_rows`).

A turn: the simulated user speaks — the row's opening cell on the first turn when it has one,
else the simulator model writes the message — then the app answers. A message with the stop
phrase ends the conversation: the phrase is removed, and what remains, if anything, stays as
the user's last message (the app is not asked again). After `max_turns` answers the
conversation ends. A failed call (the app's or the simulator's) ends it with the error: the
row is an error (its evaluators see unknown) and its partial conversation is kept for the page.

The simulator sees the chat from the user's side: its system prompt (the scenario), a first
user message that starts the conversation, then the chat with the roles swapped (its own
messages as assistant, the app's as user). Each request carries `seed` (the config's plus the
repetition) and is cached under its exact body — not under the experiment — so a re-run whose
app answers the same replays the same conversation without asking the simulator again.

Latency, tokens and cost of the row are the simulator's and the app's summed over the turns
(the split is in the row's `rendered_request["usage"]`).
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from typing import Any

from assay.safety.caps import cap_text
from assay.selectors import provider_find
from assay.vocabulary import CONTENT_FIELD, ChatRole, ContentType, ResultStatus
from evalsets.items.cells import TEXT_CELL_CAP
from evalsets.items.conversation import CONVERSATION_CAP
from evaluators.config import PLACEHOLDER_RE
from evaluators.llm.conversation import transcript

from ..http import row_fields as http_row_fields
from ..http.call import HttpCall, run_calls
from ..prompt import completion_rows, prompt_rows
from . import CONVERSATION_COLUMN, MESSAGE_COLUMN

MESSAGES = CONTENT_FIELD[ContentType.CONVERSATION]
USER, ASSISTANT = ChatRole.USER.value, ChatRole.ASSISTANT.value
SWAPPED = {USER: ASSISTANT, ASSISTANT: USER}
KICKOFF = "[The conversation starts now. Write your first message to the assistant.]"
# Every request of every run shares this namespace: the key is the exact request (model, seed,
# scenario and chat so far) and the provider, so equal requests are answered once.
SIMULATOR_CACHE = "simulated-user"
# Each message is at most a text cell; the limit leaves room for the cut marker.
MESSAGE_BYTES = TEXT_CELL_CAP - 64


def conversations_run(*, experiment, items: list, repeat: int, cancel) -> list[dict]:
    """One TargetResult field dict per item: its scenario played to the end (see above)."""
    dialogues = [Dialogue(item) for item in items]
    simulation = Simulation.of(experiment, repeat)
    if isinstance(simulation, str):
        for dialogue in dialogues:
            dialogue.fail(simulation)
        return [dialogue.fields() for dialogue in dialogues]
    for turn in range(simulation.max_turns):
        talking = [d for d in dialogues if not d.ended]
        if not talking:
            break
        simulation.users_speak(talking, first=turn == 0, cancel=cancel)
        simulation.app_answers([d for d in talking if not d.ended], cancel=cancel)
    for dialogue in dialogues:
        dialogue.ended = dialogue.ended or "max_turns"
    return [dialogue.fields() for dialogue in dialogues]


@dataclass
class Usage:
    """Latency, tokens and cost summed over calls (cost None until a call has a price)."""

    latency_ms: float = 0.0
    tokens_in: int = 0
    tokens_out: int = 0
    cost: float | None = None

    def add(self, fields: dict) -> None:
        self.latency_ms += fields.get("latency_ms") or 0.0
        self.tokens_in += fields.get("tokens_in") or 0
        self.tokens_out += fields.get("tokens_out") or 0
        if fields.get("cost") is not None:
            self.cost = (self.cost or 0.0) + fields["cost"]


@dataclass
class Dialogue:
    """One row's conversation in progress."""

    item: Any
    messages: list[dict] = field(default_factory=list)
    ended: str = ""  # why it ended: stop_phrase, max_turns or error
    status: str = ResultStatus.SUCCESS
    error: str = ""
    simulator: Usage = field(default_factory=Usage)
    app: Usage = field(default_factory=Usage)
    last: dict = field(default_factory=dict)  # the last requests and raw answer

    @property
    def turn(self) -> int:
        """The number of the turn under way (user messages so far, counting this one)."""
        return sum(m["role"] == USER for m in self.messages) + self._awaits_user

    @property
    def _awaits_user(self) -> bool:
        return not self.messages or self.messages[-1]["role"] == ASSISTANT

    def fail(self, error: str, status: str = ResultStatus.ERROR) -> None:
        self.ended, self.status, self.error = "error", status, error

    def user_says(self, text: str, stop_phrase: str) -> None:
        """The user's message; with the stop phrase the conversation ends (phrase removed)."""
        stop = stop_phrase in text
        text = text.replace(stop_phrase, "").strip() if stop else text.strip()
        if text:
            self._append(USER, text)
        if stop and not self.messages:
            return self.fail("the simulated user ended the conversation before its first message")
        if stop and not self.ended:
            self.ended = "stop_phrase"

    def simulated(self, fields: dict, stop_phrase: str) -> None:
        """What the simulator model answered for this row (a message, or a failed call)."""
        self.simulator.add(fields)
        self.last["simulator"] = fields.get("rendered_request")
        if fields["status"] != ResultStatus.SUCCESS:
            message = f"turn {self.turn}: the simulated user's model failed: {fields['error']}"
            return self.fail(message, fields["status"])
        if not (fields.get("output") or "").strip():
            return self.fail(f"turn {self.turn}: the simulated user's model wrote nothing")
        self.user_says(fields["output"], stop_phrase)

    def answered(self, fields: dict) -> None:
        """What the app answered (the assistant's reply, or a failed call)."""
        self.app.add(fields)
        self.last["app"] = fields.get("rendered_request")
        self.last["raw"] = fields.get("raw_response")
        if fields["status"] != ResultStatus.SUCCESS:
            return self.fail(
                f"turn {self.turn}: the app failed: {fields['error']}", fields["status"]
            )
        self._append(ASSISTANT, fields.get("output") or "")

    def _append(self, role: str, text: str) -> None:
        self.messages.append({"role": role, "content": cap_text(text, MESSAGE_BYTES)})
        size = len(json.dumps(self.messages, ensure_ascii=False).encode("utf-8"))
        if size > CONVERSATION_CAP:
            self.messages.pop()
            self.fail(f"turn {self.turn}: the conversation grew past {CONVERSATION_CAP:,} bytes")

    def conversation(self) -> dict | None:
        return (
            {"content_type": ContentType.CONVERSATION, MESSAGES: self.messages}
            if self.messages
            else None
        )

    def fields(self) -> dict:
        """The row's TargetResult fields."""
        conversation = self.conversation()
        total = Usage()
        for part in (self.simulator, self.app):
            total.add(asdict(part))
        return {
            "status": self.status,
            "output": transcript(conversation) if conversation else "",
            "conversation": conversation,
            "error": self.error,
            "rendered_request": {
                "ended": self.ended,
                "turns": sum(m["role"] == USER for m in self.messages),
                "simulator": self.last.get("simulator"),
                "app": self.last.get("app"),
                "usage": {"simulator": asdict(self.simulator), "app": asdict(self.app)},
            },
            "raw_response": self.last.get("raw"),
            **asdict(total),
        }


@dataclass
class Simulation:
    """What every row of the batch shares: the simulator, the app and the limits."""

    experiment: Any
    repeat: int
    config: dict
    provider: Any
    app: Any

    @classmethod
    def of(cls, experiment, repeat: int) -> Simulation | str:
        """The batch's set-up, or why it cannot run (its provider is gone)."""
        config = experiment.target_config
        provider = provider_find(
            workspace=experiment.workspace, public_id=config.get("provider_id")
        )
        if provider is None:
            return "the simulated user's model provider no longer exists"
        app = APPS[config["app"]["kind"]](experiment, repeat)
        return cls(experiment, repeat, config, provider, app)

    @property
    def max_turns(self) -> int:
        return int(self.config["max_turns"])

    def users_speak(self, dialogues: list[Dialogue], *, first: bool, cancel) -> None:
        """Each row's next user message: its opening cell, or the simulator's answer."""
        stop = self.config["stop_phrase"]
        asked = []
        for dialogue in dialogues:
            opening = self._cell(dialogue.item, self.config.get("opening")) if first else ""
            if opening.strip():
                dialogue.user_says(opening, stop)
            else:
                asked.append(dialogue)
        if not asked:
            return
        rows = completion_rows(
            provider=self.provider,
            requests=[self.simulator_request(d) for d in asked],
            concurrency=self.experiment.concurrency,
            cache_namespace=SIMULATOR_CACHE,
            cancel=cancel,
            run_key=f"experiment:{self.experiment.public_id}:simulator",
        )
        for dialogue, fields in zip(asked, rows, strict=True):
            dialogue.simulated(fields, stop)

    def app_answers(self, dialogues: list[Dialogue], *, cancel) -> None:
        if dialogues:
            for dialogue, fields in zip(dialogues, self.app.answer(dialogues, cancel), strict=True):
                dialogue.answered(fields)

    def simulator_request(self, dialogue: Dialogue) -> dict:
        """The chat body for the simulator: the scenario, the kickoff, the chat swapped."""
        messages = [
            {"role": "system", "content": self._prompt(dialogue.item)},
            {"role": USER, "content": KICKOFF},
            *({"role": SWAPPED[m["role"]], "content": m["content"]} for m in dialogue.messages),
        ]
        body = {
            "model": self.config.get("model") or self.provider.default_model,
            "messages": messages,
            "seed": int(self.config.get("seed") or 0) + self.repeat,
        }
        if self.config.get("temperature") is not None:
            body["temperature"] = self.config["temperature"]
        return body

    def _prompt(self, item) -> str:
        named = {
            "persona": self._cell(item, self.config["persona"]),
            "goal": self._cell(item, self.config["goal"]),
            "stop_phrase": self.config["stop_phrase"],
            "max_turns": str(self.config["max_turns"]),
        }

        def fill(match) -> str:
            name = match.group(1)
            return named[name] if name in named else self._cell(item, name)

        return PLACEHOLDER_RE.sub(fill, self.config["system_prompt"])

    @staticmethod
    def _cell(item, column: str | None) -> str:
        content = (item.data or {}).get(column or "") or {}
        if content.get("content_type") != ContentType.TEXT:
            return ""
        return content.get("text") or ""


# ----------------------------------------------------------------------------- the app


@dataclass
class _TurnRow:
    """A row as the app's templates see it at one turn: its cells, the chat so far and the
    user's latest message."""

    item_id: Any
    data: dict
    turn: int = 0  # names the request's Idempotency-Key with the row and repetition

    @classmethod
    def of(cls, dialogue: Dialogue) -> _TurnRow:
        latest = next(m["content"] for m in reversed(dialogue.messages) if m["role"] == USER)
        turn = {
            CONVERSATION_COLUMN: dialogue.conversation(),
            MESSAGE_COLUMN: {"content_type": ContentType.TEXT, "text": latest},
        }
        data = {**(dialogue.item.data or {}), **turn}
        return cls(item_id=dialogue.item.item_id, data=data, turn=dialogue.turn)


@dataclass
class _AppRun:
    """The experiment as the app's own target code sees it: the app's config is the target's."""

    workspace: Any
    workspace_id: int
    public_id: Any
    concurrency: int
    target_config: dict


class _App:
    def __init__(self, experiment, repeat: int):
        config = {k: v for k, v in experiment.target_config["app"].items() if k != "kind"}
        self.run = _AppRun(
            experiment.workspace,
            experiment.workspace_id,
            experiment.public_id,
            experiment.concurrency,
            config,
        )
        self.repeat = repeat


class HttpApp(_App):
    """The team's endpoint, called by the HTTP target's code (retries, secrets, outbound)."""

    def answer(self, dialogues: list[Dialogue], cancel) -> list[dict]:
        rows = [_TurnRow.of(d) for d in dialogues]
        calls = HttpCall.for_items(experiment=self.run, items=rows, repeat=self.repeat)
        answers = run_calls(
            experiment=self.run,
            calls=calls,
            cancel=cancel,
            run_key=f"experiment:{self.run.public_id}:target",
        )
        return [http_row_fields(self.run.target_config, call, answer) for call, answer in answers]


class PromptApp(_App):
    """An LLM app: the prompt target's messages for the row, then the chat so far."""

    def answer(self, dialogues: list[Dialogue], cancel) -> list[dict]:
        return prompt_rows(
            workspace=self.run.workspace,
            config=self.run.target_config,
            datas=[_TurnRow.of(d).data for d in dialogues],
            histories=[d.messages for d in dialogues],
            concurrency=self.run.concurrency,
            # like the prompt target: per run and repetition (a re-run asks the app again)
            cache_namespace=f"simulated-user-app:{self.run.public_id}:{self.repeat}",
            cancel=cancel,
            run_key=f"experiment:{self.run.public_id}:target",
        )


APPS = {"http": HttpApp, "prompt": PromptApp}
