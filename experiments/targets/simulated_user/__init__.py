"""The `simulated_user` target: for each row's scenario an LLM plays the user against the app
under test — an HTTP or prompt target config nested as `app` — turn by turn, and the chat is
the row's output: `conversation` (a Conversation content: user messages and the app's replies
as assistant messages) and `actual_output` (the same chat as a transcript, for text evaluators).

Config:
- `provider_id`, `model` (empty: the provider's default) and optionally `temperature`: the
  simulator's model, a provider of this workspace;
- `system_prompt`: the simulator's instructions, with {{persona}}, {{goal}}, {{stop_phrase}},
  {{max_turns}} and any Text column as {{column}} (empty: `DEFAULT_PROMPT`, stored as is);
- `persona`, `goal`: the scenario's Text columns; `opening`: an optional Text column with the
  user's first message (no column, or an empty cell: the simulator writes it);
- `max_turns` (1–30, default 6): the most user messages; `stop_phrase` (default "<END>"): the
  simulated user ends the chat by writing it;
- `seed` (default 0): sent to the simulator model as `seed` (plus the repetition);
- `app`: {"kind": "http", …} or {"kind": "prompt", …}, checked by that kind as if it were the
  target; its templates may also use {{conversation}} (the chat so far, OpenAI messages) and
  {{message}} (the user's latest message). A prompt app gets the chat after its own messages.

The package: this module (the kind and its config), `simulation` (how a batch runs) and
`form` (the config's fields on the experiment form).
"""

from __future__ import annotations

from dataclasses import dataclass

from django.utils.translation import gettext as _t
from django.utils.translation import gettext_lazy as _

from assay.selectors import provider_find
from assay.vocabulary import ContentType
from evaluators.config import PLACEHOLDER_RE

from ..base import TargetSpec

KEYS = {
    "provider_id",
    "model",
    "temperature",
    "system_prompt",
    "persona",
    "goal",
    "opening",
    "max_turns",
    "stop_phrase",
    "seed",
    "app",
}
APP_KINDS = ("http", "prompt")
MAX_TURNS_CAP = 30
MAX_PROMPT = 16 * 1024
MAX_SEED = 2**31 - 1
DEFAULT_PROMPT = (
    "You are playing a user of an AI assistant, so that the assistant can be tested.\n\n"
    "Who you are: {{persona}}\n"
    "What you want: {{goal}}\n\n"
    "Write only the user's next message: short and natural, in the first person, as this "
    "user would type it. Stay in character: never say that you are an AI or a simulation, and "
    "do not do the assistant's work. When your goal is reached, or the assistant clearly "
    "cannot reach it, end the conversation by writing {{stop_phrase}} (after a last short "
    "message if you like)."
)
DEFAULTS = {"model": "", "opening": "", "max_turns": 6, "stop_phrase": "<END>", "seed": 0}
PROMPT_NAMES = {"persona", "goal", "stop_phrase", "max_turns"}
# What the app's templates may use besides the row's columns, filled in at each turn.
CONVERSATION_COLUMN, MESSAGE_COLUMN = "conversation", "message"
TURN_COLUMNS = [
    {"name": CONVERSATION_COLUMN, "content_type": ContentType.CONVERSATION, "required": True},
    {"name": MESSAGE_COLUMN, "content_type": ContentType.TEXT, "required": True},
]


# The app's service error paths → its fields on the form (`form`: the HTTP
# and prompt targets' own fields under `su_app_`).
APP_ALIASES = {
    "target.app": "su_app_kind",
    **{
        f"target.app.{key}": f"su_app_http_{key}"
        for key in ("url", "method", "headers", "body", "output", "trajectory")
        + ("tokens_in", "tokens_out", "cost", "timeout_s", "max_retries", "rpm_limit")
    },
    "target.app.provider_id": "su_app_provider",
    "target.app.model": "su_app_model",
    "target.app.messages": "su_app_system_prompt",
    "target.app.temperature": "su_app_temperature",
}


class SimulatedUserTarget(TargetSpec):
    name = "simulated_user"
    label = _("Simulated user: an LLM plays the user against your app, turn by turn")
    outputs = ("actual_output", "conversation")
    form_template = "experiments/targets/_simulated_user.html"
    testable = True
    form_aliases = {
        **{
            f"target.{key}": f"su_{key}"
            for key in ("provider_id", "model", "persona", "goal", "opening", "system_prompt")
            + ("max_turns", "stop_phrase", "seed", "temperature")
        },
        **APP_ALIASES,
    }

    def clean(self, *, workspace, config, evalset_version, errors) -> dict:
        config = {**DEFAULTS, **config}
        config["system_prompt"] = config.get("system_prompt") or DEFAULT_PROMPT
        unknown = set(config) - KEYS
        if unknown:
            errors["target"] = [_t("Unknown field(s): %(f)s.") % {"f": ", ".join(sorted(unknown))}]
        if provider_find(workspace=workspace, public_id=config.get("provider_id")) is None:
            errors["target.provider_id"] = [_t("Choose a model provider of this workspace.")]
        columns = {c["name"]: c for c in evalset_version.columns}
        _check_columns(config, columns, errors)
        _check_limits(config, errors)
        _check_prompt(config.get("system_prompt"), columns, errors)
        config["app"] = _clean_app(workspace, config.get("app"), evalset_version, errors)
        return config

    def run_batch(self, *, experiment, items, repeat, cancel) -> list[dict]:
        from .simulation import conversations_run

        return conversations_run(experiment=experiment, items=items, repeat=repeat, cancel=cancel)

    def summary(self, config: dict) -> str:
        app = config.get("app") or {}
        return _t("Simulated user (%(model)s, up to %(n)s turns) against %(app)s") % {
            "model": config.get("model") or _t("the default model"),
            "n": config.get("max_turns"),
            "app": _app_spec(app).summary(_app_config(app)) if app.get("kind") else "?",
        }

    def public_config(self, config: dict) -> dict:
        app = config.get("app") or {}
        if app.get("kind") not in APP_KINDS:
            return config
        shown = _app_spec(app).public_config(_app_config(app))
        return {**config, "app": {"kind": app["kind"], **shown}}

    def form_fields(self, *, workspace) -> dict:
        from .form import simulated_user_fields

        return simulated_user_fields(workspace=workspace)

    def form_problems(self, data: dict) -> dict[str, str]:
        from .form import simulated_user_problems

        return simulated_user_problems(data)

    def from_form(self, data: dict) -> dict:
        from .form import simulated_user_config

        return {"kind": self.name, **simulated_user_config(data)}


def _app_spec(app: dict) -> TargetSpec:
    from .. import target_get

    return target_get(app["kind"])


def _app_config(app: dict) -> dict:
    return {key: value for key, value in app.items() if key != "kind"}


# ----------------------------------------------------------------------------- validation


def _check_columns(config: dict, columns: dict, errors: dict) -> None:
    """persona and goal name Text columns; opening names one too, or nothing."""
    for key in ("persona", "goal", "opening"):
        name = config.get(key)
        if key == "opening" and name in (None, ""):
            config[key] = ""
            continue
        column = columns.get(name) if isinstance(name, str) else None
        if column is None or column["content_type"] != ContentType.TEXT:
            errors[f"target.{key}"] = [_t("Name a Text column of the evalset.")]


def _check_limits(config: dict, errors: dict) -> None:
    checks = {
        "max_turns": (_whole(config.get("max_turns"), 1, MAX_TURNS_CAP), f"1–{MAX_TURNS_CAP}"),
        "seed": (_whole(config.get("seed"), 0, MAX_SEED), f"0–{MAX_SEED:,}"),
        "temperature": (_temperature(config.get("temperature")), "0–2"),
        "stop_phrase": (_short(config.get("stop_phrase"), 100), _t("a phrase of 1–100 characters")),
        "model": (_short(config.get("model"), 200, empty=True), _t("at most 200 characters")),
    }
    for key, (ok, what) in checks.items():
        if not ok:
            errors[f"target.{key}"] = [_t("Give %(what)s.") % {"what": what}]


def _whole(value, low: int, high: int) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and low <= value <= high


def _temperature(value) -> bool:
    if value is None:
        return True
    return isinstance(value, int | float) and not isinstance(value, bool) and 0 <= value <= 2


def _short(value, limit: int, *, empty: bool = False) -> bool:
    return isinstance(value, str) and (empty or bool(value.strip())) and len(value) <= limit


def _check_prompt(prompt, columns: dict, errors: dict) -> None:
    if not isinstance(prompt, str) or len(prompt.encode("utf-8")) > MAX_PROMPT:
        errors["target.system_prompt"] = [_t("Give the simulated user's instructions (16 KB).")]
        return
    texts = {n for n, c in columns.items() if c["content_type"] == ContentType.TEXT}
    bad = sorted(set(PLACEHOLDER_RE.findall(prompt)) - PROMPT_NAMES - texts)
    if bad:
        names = ", ".join(f"{{{{{n}}}}}" for n in bad)
        errors["target.system_prompt"] = [
            _t(
                "%(names)s: use {{persona}}, {{goal}}, {{stop_phrase}}, {{max_turns}} or a Text "
                "column."
            )
            % {"names": names}
        ]


@dataclass(frozen=True)
class _AppVersion:
    """The evalset version as the app's templates see it: its columns and the turn's own."""

    columns: list


def _clean_app(workspace, app, evalset_version, errors: dict) -> dict:
    """The app's config, checked by its own kind; its problems keyed `target.app.<field>`."""
    if not isinstance(app, dict) or app.get("kind") not in APP_KINDS:
        errors["target.app"] = [
            _t("Give the app under test: {kind: http, …} or {kind: prompt, …}.")
        ]
        return app if isinstance(app, dict) else {}
    found: dict = {}
    version = _AppVersion(columns=[*evalset_version.columns, *TURN_COLUMNS])
    config = _app_spec(app).clean(
        workspace=workspace, config=_app_config(app), evalset_version=version, errors=found
    )
    for key, problems in found.items():
        errors["target.app" + key.removeprefix("target")] = problems
    return {"kind": app["kind"], **config}
