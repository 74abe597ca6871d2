"""A binding's per-turn options: score a Conversation once per assistant turn, then make the
row's verdict from its turns (every turn passes, their mean or their lowest score)."""

from __future__ import annotations

from django.utils.translation import gettext as _

from assay.vocabulary import ContentType

from ..mapping import TARGET_PREFIX, output_type
from ..models import TurnAggregate

TURN_KEYS = ("per_turn", "turn_source", "turn_aggregate")


def binding_turn_options(
    *, binding: dict, mapping: dict, columns: list[dict], path: str, errors: dict
) -> dict:
    """per_turn, turn_source and turn_aggregate to store for a binding; problems go into
    `errors` keyed by `<path>.<key>`. Without per_turn the binding scores each row once."""
    per_turn = binding.get("per_turn", False)
    if not isinstance(per_turn, bool):
        errors[f"{path}.per_turn"] = [_("per_turn is true or false.")]
        return _once()
    aggregate = binding.get("turn_aggregate") or TurnAggregate.ALL_PASS
    if aggregate not in TurnAggregate.values:
        choices = ", ".join(TurnAggregate.values)
        errors[f"{path}.turn_aggregate"] = [_("Use one of %(choices)s.") % {"choices": choices}]
    if not per_turn:
        if binding.get("turn_source"):
            errors[f"{path}.turn_source"] = [_("turn_source is for a binding with per_turn.")]
        return _once()
    source = _turn_source(
        binding.get("turn_source"), mapping, columns, f"{path}.turn_source", errors
    )
    return {"per_turn": True, "turn_source": source, "turn_aggregate": aggregate}


def _once() -> dict:
    return {"per_turn": False, "turn_source": "", "turn_aggregate": TurnAggregate.ALL_PASS}


def _turn_source(source, mapping: dict, columns: list[dict], key: str, errors: dict) -> str:
    """The Conversation source scored turn by turn: the one given, else the only Conversation
    source the mapping reads."""
    types = {f"column:{c['name']}": c["content_type"] for c in columns}
    mapped = [s for s in dict.fromkeys((mapping or {}).values()) if isinstance(s, str)]
    conversations = [s for s in mapped if _source_type(s, types) == ContentType.CONVERSATION]
    if source in (None, ""):
        if len(conversations) == 1:
            return conversations[0]
        errors[key] = [_no_source(conversations)]
        return ""
    if source not in conversations:
        errors[key] = [
            _("%(source)r is not a Conversation the mapping feeds to a variable.")
            % {"source": source}
        ]
    return source if isinstance(source, str) else ""


def _source_type(source: str, column_types: dict) -> str | None:
    if source.startswith(TARGET_PREFIX):
        return output_type(source.removeprefix(TARGET_PREFIX))
    return column_types.get(source)


def _no_source(conversations: list[str]) -> str:
    if conversations:
        return _("Name the Conversation to score turn by turn: one of %(sources)s.") % {
            "sources": ", ".join(conversations)
        }
    return _(
        "Scoring per assistant turn needs a Conversation variable mapped to a Conversation "
        "column or to target:conversation."
    )
