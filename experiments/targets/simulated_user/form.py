"""The simulated-user target's fields on the new-experiment page: the same config the API takes.

The scenario's persona, goal and opening are picked from the evalset's Text columns (the page's
script keeps to the chosen version's columns and preselects ones named so). The app under test
is filled in with the HTTP or prompt target's own fields (their copies, named `su_app_<field>`)
and checked and turned into config by those kinds' own form code, never copied."""

from __future__ import annotations

from django import forms
from django.utils.translation import gettext as _t
from django.utils.translation import gettext_lazy as _

from assay.vocabulary import ContentType

from ..http.form import http_config, http_fields, http_form_problems
from ..prompt import PromptTarget, model_fields
from . import DEFAULT_PROMPT, DEFAULTS, MAX_TURNS_CAP

OPTIONAL = ("model", "temperature")
APP = "su_app_"  # the prefix of the app's fields
APP_KINDS = [
    ("http", _("Your endpoint (HTTP)")),
    ("prompt", _("A prompt on a model provider")),
]
SCENARIO = ("persona", "goal", "opening")
# the prompt target's form fields an app uses (its messages come before the chat)
PROMPT_APP_FIELDS = ("provider", "model", "system_prompt", "user_prompt", "temperature")


def simulated_user_fields(*, workspace) -> dict:
    """Form fields, each named `su_<config key>` (the app's `su_app_<its kind's field>`)."""
    provider, model = model_fields(
        workspace=workspace, provider_label=_("Simulated user's provider")
    )
    return {
        "su_provider_id": provider,
        "su_model": model,
        **_scenario_fields(text_columns(workspace=workspace)),
        "su_system_prompt": forms.CharField(
            label=_("Simulated user's instructions"),
            required=False,
            initial=DEFAULT_PROMPT,
            widget=forms.Textarea(attrs={"rows": 6}),
            help_text=_("{{persona}}, {{goal}}, {{stop_phrase}}, {{max_turns}} or any {{column}}."),
        ),
        **_limit_fields(),
        **_app_fields(workspace),
    }


def text_columns(*, workspace) -> dict[str, list[str]]:
    """Each evalset version's Text columns by version id (what a scenario column may be)."""
    from ...selectors.resolving import evalset_version_choices

    return {
        str(v.public_id): [c["name"] for c in v.columns if c["content_type"] == ContentType.TEXT]
        for v in evalset_version_choices(workspace=workspace)
    }


def _scenario_fields(columns: dict[str, list[str]]) -> dict:
    names = sorted({name for found in columns.values() for name in found})

    def column(key, label, help_text=""):
        empty = _t("— none: the simulated user starts") if key == "opening" else "—"
        return forms.ChoiceField(
            label=label,
            required=False,
            help_text=help_text,
            choices=[("", empty)] + [(n, n) for n in names],
            widget=forms.Select(attrs={"data-column-picker": key}),
        )

    return {
        "su_persona": column("persona", _("Persona column")),
        "su_goal": column("goal", _("Goal column")),
        "su_opening": column(
            "opening",
            _("Opening message column (optional)"),
            _("None, or an empty cell: the simulated user writes the first message."),
        ),
    }


def _limit_fields() -> dict:
    return {
        "su_max_turns": forms.IntegerField(
            label=_("Turns at most"),
            required=False,
            initial=DEFAULTS["max_turns"],
            min_value=1,
            max_value=MAX_TURNS_CAP,
        ),
        "su_stop_phrase": forms.CharField(
            label=_("Stop phrase"),
            required=False,
            max_length=100,
            initial=DEFAULTS["stop_phrase"],
            help_text=_("The simulated user writes it to end the conversation."),
        ),
        "su_seed": forms.IntegerField(
            label=_("Seed"), required=False, initial=DEFAULTS["seed"], min_value=0
        ),
        "su_temperature": forms.FloatField(
            label=_("Temperature"), required=False, min_value=0, max_value=2
        ),
    }


def _app_fields(workspace) -> dict:
    """The app's kind, then the HTTP and the prompt target's own fields under `su_app_`."""
    fields = {
        f"{APP}kind": forms.ChoiceField(
            label=_("App under test"),
            choices=APP_KINDS,
            initial="http",
            required=False,
            widget=forms.RadioSelect(attrs={"data-app-kind": "1"}),
        )
    }
    fields.update({APP + name: field for name, field in http_fields().items()})
    fields[f"{APP}http_body"].help_text = _(
        'e.g. {"message": "{{message}}", "history": "{{conversation}}"}: {{message}} is the '
        "user's latest message, {{conversation}} the chat so far (OpenAI messages), and any "
        "{{column}} of the row."
    )
    prompt = PromptTarget().form_fields(workspace=workspace)
    fields.update({APP + name: prompt[name] for name in PROMPT_APP_FIELDS})
    fields[f"{APP}user_prompt"].help_text = _(
        "Optional: sent before the chat, filled from the row like the system message."
    )
    return fields


def _app_data(data: dict) -> dict:
    """The app's fields under their own kind's names."""
    return {k.removeprefix(APP): v for k, v in data.items() if k.startswith(APP)}


def simulated_user_problems(data: dict) -> dict[str, str]:
    problems = {}
    if not data.get("su_provider_id"):
        problems["su_provider_id"] = _t("Choose the provider the simulated user runs on.")
    for key in ("su_persona", "su_goal"):
        if not (data.get(key) or "").strip():
            problems[key] = _t("Choose the column of the scenario.")
    found = _app_problems(_app_data(data))
    return {**problems, **{APP + name: message for name, message in found.items()}}


def _app_problems(app: dict) -> dict[str, str]:
    if (app.get("kind") or "http") == "http":
        return http_form_problems(app)
    problems = {}
    if not app.get("provider"):
        problems["provider"] = _t("Choose the provider your prompt app runs on.")
    if not any((app.get(k) or "").strip() for k in ("system_prompt", "user_prompt")):
        problems["system_prompt"] = _t("Give the app's system message (the chat follows it).")
    return problems


def simulated_user_config(data: dict) -> dict:
    """The API's config from the form's cleaned data (after simulated_user_problems passed)."""
    config = {
        "provider_id": data["su_provider_id"],
        "persona": data["su_persona"].strip(),
        "goal": data["su_goal"].strip(),
        "opening": (data.get("su_opening") or "").strip(),
        "system_prompt": data.get("su_system_prompt") or DEFAULT_PROMPT,
        "stop_phrase": data.get("su_stop_phrase") or DEFAULTS["stop_phrase"],
        "app": app_config(_app_data(data)),
    }
    for key in ("max_turns", "seed"):
        value = data.get(f"su_{key}")
        config[key] = DEFAULTS[key] if value is None else value
    for key in OPTIONAL:
        if data.get(f"su_{key}") not in (None, ""):
            config[key] = data[f"su_{key}"]
    return config


def app_config(app: dict) -> dict:
    """The app's target config from its fields: the HTTP target's own, or a prompt's messages
    (system, then the optional user message; the chat follows them)."""
    if (app.get("kind") or "http") == "http":
        return {"kind": "http", **http_config(app)}
    messages = [
        {"role": role, "content": app[key]}
        for role, key in (("system", "system_prompt"), ("user", "user_prompt"))
        if (app.get(key) or "").strip()
    ]
    config = {"kind": "prompt", "provider_id": app["provider"], "messages": messages}
    if (app.get("model") or "").strip():
        config["model"] = app["model"].strip()
    if app.get("temperature") is not None:
        config["temperature"] = app["temperature"]
    return config
