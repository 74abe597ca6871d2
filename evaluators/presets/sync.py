"""Sync the preset catalogue (evaluators/presets/) into EvaluatorTemplate rows, idempotently."""

from __future__ import annotations

from django.db import transaction

from . import load_presets


def templates_sync() -> tuple[int, int]:
    """Create or update one template per preset; returns (created, updated)."""
    from ..models import EvaluatorTemplate

    created = updated = 0
    with transaction.atomic():
        for preset in load_presets():
            _, was_created = EvaluatorTemplate.objects.update_or_create(
                slug=preset["slug"], defaults=_fields(preset)
            )
            created += was_created
            updated += not was_created
    return created, updated


def _fields(preset: dict) -> dict:
    configs = preset.get("configs") or {"llm": preset["config"]}
    return {
        "name": preset["name"],
        "kind": preset["kind"],
        "description": preset["description"],
        "inputs": preset["inputs"] if isinstance(preset["inputs"], str) else _inputs(preset),
        "score_meaning": preset["score_meaning"],
        "default_policy": preset["default_policy"],
        "tags": preset.get("tags", []),
        "configs": configs,
        "locale": preset.get("locale", {}),
    }


def _inputs(preset: dict) -> str:
    return "\n".join(f"{k}: {v}" for k, v in dict(preset["inputs"]).items())
