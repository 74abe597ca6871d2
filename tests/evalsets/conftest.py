"""Fixtures for evalset tests: a set with typed columns, media files, storage in a temp dir."""

from __future__ import annotations

import pytest
from django.core.files.base import ContentFile

from evalsets import services
from evalsets.demo import png_bytes
from evalsets.items.media import media_store

COLUMNS = [
    {"name": "question", "content_type": "Text", "required": True},
    {"name": "image", "content_type": "Image"},
    {"name": "answer", "content_type": "Text"},
]


@pytest.fixture(autouse=True)
def media_root(settings, tmp_path):
    """Every test stores uploads in its own directory, never under var/."""
    settings.MEDIA_ROOT = tmp_path / "media"
    return settings.MEDIA_ROOT


@pytest.fixture
def evalset(workspace, user):
    return services.evalset_create(
        workspace=workspace, user=user, name="Capitals", columns=[dict(c) for c in COLUMNS]
    )


@pytest.fixture
def png():
    return png_bytes(4, 4, lambda x, y: (255, 0, 0))


@pytest.fixture
def stored_image(workspace, png):
    """An uploaded image of Acme: its content object."""
    return media_store(workspace=workspace, upload=ContentFile(png, name="red.png"))


def upload(name: str, body: bytes | str) -> ContentFile:
    """An in-memory upload, as Django hands a view one."""
    if isinstance(body, str):
        body = body.encode("utf-8")
    return ContentFile(body, name=name)


def run_now(job):
    """Run a queued import in this process, as the worker would (claim, then run)."""
    from evalsets.importing import import_claim, import_run

    claimed = import_claim(import_id=job.pk)
    assert claimed is not None, f"job was {job.status}, not queued"
    return import_run(job=claimed)


def jsonl(records) -> str:
    import json

    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records)
