"""The demo evaluation sets: "Capitals QA", with a flag image per row and a committed 1.0.0,
and the multi-turn "Support chats" (`demo_conversations`).

The images are tiny PNGs drawn here with the standard library, so the demo needs no assets.
"""

from __future__ import annotations

import struct
import zlib

from django.core.files.base import ContentFile

from assay.demo import demo_existing

from .demo_conversations import conversations_set
from .items.media import media_store
from .models import EvalSet
from .services import evalset_create, items_bulk, version_commit

DEMO_NAME = "Capitals QA"

# (country, capital, three stripe colours, vertical stripes?, tags)
COUNTRIES = [
    ("France", "Paris", [(0, 85, 164), (255, 255, 255), (239, 65, 53)], True, ["europe", "easy"]),
    ("Italy", "Rome", [(0, 146, 70), (255, 255, 255), (206, 43, 55)], True, ["europe", "easy"]),
    ("Ireland", "Dublin", [(22, 155, 98), (255, 255, 255), (255, 136, 62)], True, ["europe"]),
    ("Belgium", "Brussels", [(0, 0, 0), (253, 218, 36), (239, 51, 64)], True, ["europe"]),
    ("Germany", "Berlin", [(0, 0, 0), (221, 0, 0), (255, 206, 0)], False, ["europe", "easy"]),
    ("Austria", "Vienna", [(200, 16, 46), (255, 255, 255), (200, 16, 46)], False, ["europe"]),
    ("Hungary", "Budapest", [(206, 41, 57), (255, 255, 255), (71, 112, 80)], False, ["europe"]),
    (
        "Netherlands",
        "Amsterdam",
        [(174, 28, 40), (255, 255, 255), (33, 70, 139)],
        False,
        ["europe", "tricky"],
    ),
    ("Russia", "Moscow", [(255, 255, 255), (0, 57, 166), (213, 43, 30)], False, ["europe"]),
    ("Bulgaria", "Sofia", [(255, 255, 255), (0, 150, 110), (214, 38, 18)], False, ["europe"]),
    ("Estonia", "Tallinn", [(0, 114, 206), (0, 0, 0), (255, 255, 255)], False, ["europe"]),
    ("Lithuania", "Vilnius", [(253, 185, 19), (0, 106, 68), (193, 39, 45)], False, ["europe"]),
    ("Nigeria", "Abuja", [(0, 135, 81), (255, 255, 255), (0, 135, 81)], True, ["africa", "tricky"]),
    ("Mali", "Bamako", [(20, 181, 58), (252, 209, 22), (206, 17, 38)], True, ["africa"]),
    ("Guinea", "Conakry", [(206, 17, 38), (252, 209, 22), (0, 148, 96)], True, ["africa"]),
    ("Chad", "N'Djamena", [(0, 38, 100), (254, 203, 0), (198, 12, 48)], True, ["africa"]),
    (
        "Sierra Leone",
        "Freetown",
        [(30, 181, 58), (255, 255, 255), (0, 114, 198)],
        False,
        ["africa"],
    ),
    ("Gabon", "Libreville", [(0, 158, 96), (252, 209, 22), (58, 117, 196)], False, ["africa"]),
    ("Colombia", "Bogotá", [(252, 209, 22), (0, 56, 147), (206, 17, 38)], False, ["americas"]),
    ("Peru", "Lima", [(217, 16, 35), (255, 255, 255), (217, 16, 35)], True, ["americas", "easy"]),
]


def png_bytes(width: int, height: int, pixel) -> bytes:
    """A truecolour PNG where `pixel(x, y)` gives each (r, g, b)."""
    raw = b"".join(
        b"\x00" + b"".join(bytes(pixel(x, y)) for x in range(width)) for y in range(height)
    )

    def chunk(kind: bytes, body: bytes) -> bytes:
        crc = zlib.crc32(kind + body) & 0xFFFFFFFF
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", crc)

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(raw, 9))
        + chunk(b"IEND", b"")
    )


def flag_png(colours, vertical: bool, width: int = 48, height: int = 32) -> bytes:
    """Three equal stripes, the way many national flags are drawn."""
    if vertical:
        return png_bytes(width, height, lambda x, y: colours[min(2, 3 * x // width)])
    return png_bytes(width, height, lambda x, y: colours[min(2, 3 * y // height)])


def demo_load(*, workspace, user) -> None:
    """Create the demo sets once (each is skipped when it exists already)."""
    _capitals_load(workspace=workspace, user=user)
    demo_evalset_version(workspace=workspace, user=user, **conversations_set())


def demo_evalset_version(*, workspace, user, rows: list[dict], note: str, **fields):
    """The demo set named `fields["name"]` (created with `fields` and `rows` when an earlier
    start did not make it) and its latest version, committed as 1.0.0 with `note` when it has
    none. The experiments' demos find their sets this way."""
    evalset = demo_existing(EvalSet, workspace, fields["name"])
    if evalset is None:
        evalset = evalset_create(workspace=workspace, user=user, **fields)
        items_bulk(evalset=evalset, create=rows)
    return evalset.versions.first() or version_commit(
        evalset=evalset, user=user, version="1.0.0", note=note
    )


def _capitals_load(*, workspace, user) -> None:
    """Columns, 20 rows with flag images and tags, version 1.0.0."""
    if EvalSet.objects.filter(workspace=workspace, name=DEMO_NAME).exists():
        return
    evalset = evalset_create(
        workspace=workspace,
        user=user,
        name=DEMO_NAME,
        description="Which capital goes with which flag? Reference answers for correctness "
        "judges; the flag images feed image-understanding judges.",
        tags=["demo", "geography"],
        columns=[
            {
                "name": "question",
                "content_type": "Text",
                "required": True,
                "description": "What the model is asked.",
            },
            {"name": "flag", "content_type": "Image", "description": "The country's flag."},
            {
                "name": "reference_output",
                "content_type": "Text",
                "required": True,
                "description": "The expected answer.",
            },
        ],
    )
    rows = [_row(workspace, *country) for country in COUNTRIES]
    items_bulk(evalset=evalset, create=rows)
    version_commit(evalset=evalset, user=user, version="1.0.0", note="Twenty capitals.")


def _row(workspace, country, capital, colours, vertical, tags) -> dict:
    upload = ContentFile(flag_png(colours, vertical), name=f"{country.lower()}.png")
    image = media_store(workspace=workspace, upload=upload, expected="Image")
    return {
        "data": {
            "question": f"What is the capital of {country}?",
            "flag": image,
            "reference_output": capital,
        },
        "tags": tags,
    }
