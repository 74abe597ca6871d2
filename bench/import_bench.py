"""Import benchmark: an OpenAI eval of BENCH_ROWS rows with samples (default 50,000, about
8 MB), imported through the API (Django test client, no network) as a user's upload is: how
long the request takes when the import runs in it (ASSAY_IMPORT_INLINE_BYTES above the files'
size) and when a worker imports it (the default 1 MB, or just below the files' size), then
how long the worker's import takes (`import_execute`, the task's work, run in this process).

Run as `python bench/import_bench.py` (DATABASE_URL's server with a scratch database
`assay_bench`, or BENCH_DB's name; else a temporary SQLite file). Prints figures; asserts
nothing.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from bench.support import scratch_environment  # noqa: E402

ROWS = int(os.environ.get("BENCH_ROWS", "50000"))
FIXTURES = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "openai_evals"


def main() -> None:
    os.environ["ASSAY_DATA_DIR"] = tempfile.mkdtemp(prefix="assay-bench-")
    database = scratch_environment()
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    from assay.celery import app

    app.conf.broker_url = "memory://localhost/"  # the queued import's message: this process runs it
    files = _files()
    size = sum(map(len, files.values()))
    print(f"database: {'PostgreSQL' if database else 'SQLite'}; {ROWS:,} rows, {size:,} bytes")
    inline = _post(files, inline_bytes=size + 1, workspace="inline")
    queued = _post(files, inline_bytes=min(size - 1, 1024 * 1024), workspace="queued")
    print(f"request, imported in it:   {inline['seconds']:.2f} s ({inline['status']})")
    print(f"request, left to a worker: {queued['seconds']:.2f} s ({queued['status']})")
    _execute(queued["id"])


def _files() -> dict[str, bytes]:
    rows = (
        {
            "item": {
                "ticket_text": f"ticket {i}: my monitor won't turn on",
                "correct_label": "Hardware",
                "meta": {"priority": "high"},
            },
            "sample": {"output_text": "Hardware" if i % 3 else "Software"},
        }
        for i in range(ROWS)
    )
    data = "\n".join(json.dumps(row) for row in rows).encode()
    return {"definition": (FIXTURES / "definition.json").read_bytes(), "data": data}


def _post(files: dict[str, bytes], *, inline_bytes: int, workspace: str) -> dict:
    """POST the files as a new workspace's owner; the answer's status and the seconds."""
    from django.conf import settings
    from django.core.files.uploadedfile import SimpleUploadedFile
    from rest_framework.test import APIClient

    from assay import services as platform

    user = platform.user_create(username=f"bench-{workspace}", password="bench-password-1")
    made = platform.workspace_create(name=workspace, owner=user)
    issued = platform.token_issue(workspace=made, user=user, name="bench")
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {issued.key}")
    settings.ASSAY_IMPORT_INLINE_BYTES = inline_bytes
    body = {name: SimpleUploadedFile(f"{name}.json", data) for name, data in files.items()}
    started = time.perf_counter()
    answer = client.post("/api/v1/imports/openai-evals/", body, format="multipart")
    seconds = time.perf_counter() - started
    return {"seconds": seconds, "status": answer.status_code, "id": answer.json()["id"]}


def _execute(public_id: str) -> None:
    from imports.models import ImportRun
    from imports.services import import_execute

    run = ImportRun.objects.get(public_id=public_id)
    started = time.perf_counter()
    done = import_execute(run_id=run.pk)
    seconds = time.perf_counter() - started
    rate = ROWS / seconds
    print(f"worker's import:           {seconds:.2f} s ({done.status}, {rate:,.0f} rows/s)")


if __name__ == "__main__":
    main()
