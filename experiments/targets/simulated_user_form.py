"""The simulated-user target's fields on the new-experiment page: the same config the API takes
(the app under test as the JSON of an HTTP or prompt target)."""

from __future__ import annotations

import json

from django import forms
from django.utils.translation import gettext as _t
from django.utils.translation import gettext_lazy as _

from .simulated_user import DEFAULT_PROMPT, DEFAULTS, MAX_TURNS_CAP

APP_EXAMPLE = (
    '{"kind": "http", "url": "https://app.example.com/chat", '
    '"body": {"messages": "{{conversation}}"}, "output": "reply"}'
)
OPTIONAL = ("model", "temperature")


def simulated_user_fields(*, workspace) -> dict:
    """Form fields, each named `su_<config key>`."""
    from assay.selectors import providers_list

    providers = [("", _t("Choose a provider"))] + [
        (str(p.public_id), f"{p.name} · {p.default_model}")
        for p in providers_list(workspace=workspace)
    ]
    return {
        "su_provider_id": forms.ChoiceField(
            label=_("Simulated user's provider"), required=False, choices=providers
        ),
        "su_model": forms.CharField(
            label=_("Model"),
            required=False,
            max_length=200,
            help_text=_("Empty: the provider's default model."),
        ),
        **_scenario_fields(),
        "su_system_prompt": forms.CharField(
            label=_("Simulated user's instructions"),
            required=False,
            initial=DEFAULT_PROMPT,
            widget=forms.Textarea(attrs={"rows": 6}),
            help_text=_("{{persona}}, {{goal}}, {{stop_phrase}}, {{max_turns}} or any {{column}}."),
        ),
        **_limit_fields(),
        "su_app": forms.CharField(
            label=_("App under test (JSON of an HTTP or prompt target)"),
            required=False,
            widget=forms.Textarea(attrs={"rows": 4, "class": "mono", "spellcheck": "false"}),
            help_text=_(
                "e.g. %(example)s — its templates may use {{conversation}} (the chat so far) "
                "and {{message}} (the user's latest message)."
            )
            % {"example": APP_EXAMPLE},
        ),
    }


def _scenario_fields() -> dict:
    def column(label, help_text=None):
        return forms.CharField(
            label=label, required=False, max_length=200, help_text=help_text or ""
        )

    return {
        "su_persona": column(_("Persona column")),
        "su_goal": column(_("Goal column")),
        "su_opening": column(
            _("Opening message column (optional)"),
            _("Empty, or an empty cell: the simulated user writes the first message."),
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


def simulated_user_problems(data: dict) -> dict[str, str]:
    problems = {}
    if not data.get("su_provider_id"):
        problems["su_provider_id"] = _t("Choose the provider the simulated user runs on.")
    for key in ("su_persona", "su_goal"):
        if not (data.get(key) or "").strip():
            problems[key] = _t("Name the column of the scenario.")
    app = _app(data)
    if not isinstance(app, dict) or "kind" not in app:
        problems["su_app"] = _t('Give the app as a JSON object with a "kind" (http or prompt).')
    return problems


def _app(data: dict):
    try:
        return json.loads(data.get("su_app") or "")
    except ValueError:
        return None


def simulated_user_config(data: dict) -> dict:
    """The API's config from the form's cleaned data (after simulated_user_problems passed)."""
    config = {
        "provider_id": data["su_provider_id"],
        "persona": data["su_persona"].strip(),
        "goal": data["su_goal"].strip(),
        "opening": (data.get("su_opening") or "").strip(),
        "system_prompt": data.get("su_system_prompt") or DEFAULT_PROMPT,
        "stop_phrase": data.get("su_stop_phrase") or DEFAULTS["stop_phrase"],
        "app": _app(data),
    }
    for key in ("max_turns", "seed"):
        value = data.get(f"su_{key}")
        config[key] = DEFAULTS[key] if value is None else value
    for key in OPTIONAL:
        if data.get(f"su_{key}") not in (None, ""):
            config[key] = data[f"su_{key}"]
    return config
