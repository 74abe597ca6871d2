"""What the experiment page calls a target's settings: its config keys stay in JSON and the
API, a reader sees the form's words (in the page's language)."""

from __future__ import annotations

from django.utils.translation import gettext_lazy as _

CONFIG_LABELS = {
    # HTTP target (and an HTTP app under a simulated user)
    "method": _("Method"),
    "url": _("Endpoint URL"),
    "headers": _("Headers"),
    "body": _("Body template"),
    "output": _("Output (JMESPath)"),
    "trajectory": _("Trajectory (JMESPath)"),
    "tokens_in": _("Input tokens (JMESPath)"),
    "tokens_out": _("Output tokens (JMESPath)"),
    "cost": _("Cost in USD (JMESPath)"),
    "timeout_s": _("Timeout (s)"),
    "max_retries": _("Retries"),
    "rpm_limit": _("Requests per minute"),
    # simulated user
    "provider_id": _("Simulated user's provider"),
    "model": _("Model"),
    "temperature": _("Temperature"),
    "system_prompt": _("Simulated user's instructions"),
    "persona": _("Persona column"),
    "goal": _("Goal column"),
    "opening": _("Opening message column"),
    "max_turns": _("Turns at most"),
    "stop_phrase": _("Stop phrase"),
    "seed": _("Seed"),
    "app": _("App under test"),
}


def config_facts(config: dict) -> list[tuple[str, str, object]]:
    """(key, label, value) of each setting, in the config's order; an unknown key as it is."""
    return [(key, CONFIG_LABELS.get(key, key), value) for key, value in config.items()]
