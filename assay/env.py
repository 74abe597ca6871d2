"""Reading configuration from the environment: every variable Assay understands is listed here.

The README's configuration table is generated from `VARIABLES`, so the two cannot drift apart.
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path

BASE_DIR = Path(__file__).resolve().parent.parent

VARIABLES: list[tuple[str, str, str]] = [
    (
        "ASSAY_ENV",
        "development",
        "`production` turns on the strict checks (SECRET_KEY required, "
        "DEBUG off, sandbox network namespace required).",
    ),
    (
        "DATABASE_URL",
        "SQLite (WAL) at `var/assay.sqlite3`",
        "Database URL, e.g. `postgres://user:pass@host:5432/assay`.",
    ),
    (
        "REDIS_URL",
        "unset: filesystem broker under `var/broker/`",
        "Redis URL for the Celery "
        "broker, the result backend, the shared LLM rate limit and the response cache.",
    ),
    (
        "SECRET_KEY",
        "generated once into `var/secret_key`",
        "Django's secret key; required in production.",
    ),
    (
        "ASSAY_SECRETS_KEY",
        "derived from SECRET_KEY",
        "Key material for encrypting provider API "
        "keys at rest. Set it to rotate SECRET_KEY without losing stored secrets.",
    ),
    ("DEBUG", "`1` in development, `0` in production", "Django debug mode."),
    (
        "ASSAY_DEBUG_TRACEBACKS",
        "unset",
        "`1` (with DEBUG on) shows Django's traceback page, which lists the request's "
        "environment and the settings, to local addresses; otherwise a 500 is the plain page.",
    ),
    ("ALLOWED_HOSTS", "`127.0.0.1,localhost` (`*` in development)", "Comma-separated host names."),
    ("CSRF_TRUSTED_ORIGINS", "empty", "Comma-separated origins, e.g. `https://assay.example.com`."),
    (
        "ASSAY_DATA_DIR",
        "`var/`",
        "Where local state lives: SQLite file, broker folder, media, the generated secret key.",
    ),
    ("MEDIA_ROOT", "`var/media/`", "Where uploaded media (images, audio, imports) are stored."),
    ("ASSAY_LOG_LEVEL", "`INFO`", "Log level of the `assay` loggers."),
    ("ASSAY_TASK_TIME_LIMIT", "`1800`", "Hard time limit of one Celery task, in seconds."),
    (
        "ASSAY_REQUIRE_SERVICES",
        "unset",
        "`1` makes tests fail instead of skip when PostgreSQL, "
        "Redis or Chromium is missing (CI sets it).",
    ),
    (
        "ASSAY_EXPERIMENT_STALE_S",
        "`120`",
        "Seconds a run may sit queued, or a chunk's message wait in the broker, before the "
        "reaper sends it again (a broker restarted without persistence loses messages).",
    ),
    (
        "ASSAY_CHUNK_LEASE_S",
        "`60`",
        "Lease of a running chunk; its worker renews it every sixth of that while it works, "
        "and the reaper revives a chunk only when its lease expired (its worker died).",
    ),
    ("ASSAY_CHUNK_MAX_ATTEMPTS", "`5`", "Attempts per chunk before the experiment is failed."),
    ("ASSAY_REAPER_INTERVAL_S", "`30`", "How often the beat schedule runs the reaper."),
    (
        "ASSAY_WORKER_HEARTBEAT_S",
        "`15`",
        "How often the beat schedule sends the workers' heartbeat task (any task a worker runs "
        "counts as a beat too); `/healthz` reports each worker's last beat.",
    ),
    (
        "ASSAY_WORKER_STALE_S",
        "`90`",
        "A worker whose last beat is older is not live: `/healthz` says so, and an active run "
        "that has not progressed for as long says on its page that no worker is running.",
    ),
    (
        "ASSAY_DISPATCH_AHEAD",
        "`2`",
        "Chunks per queue (code, llm) waiting in the broker at a time; the next ones are picked "
        "round-robin across workspaces as chunks start.",
    ),
    (
        "ASSAY_WORKER_CONCURRENCY",
        "CPU count",
        "Pool processes of a worker (Celery's concurrency; `-c` on the command line wins) and "
        "the default of `ASSAY_WORKSPACE_MAX_CHUNKS`.",
    ),
    (
        "ASSAY_WORKSPACE_MAX_CHUNKS",
        "`ASSAY_WORKER_CONCURRENCY`",
        "Chunks one workspace may have queued or running on one queue at a time: at most what "
        "fills one worker's pool, so none of its runaways' chunks waits in the broker ahead of "
        "another workspace's run.",
    ),
    (
        "ASSAY_IMPORT_INLINE_BYTES",
        "`1048576` (1 MB)",
        "Imports from other tools whose files are larger in all run on a worker, not in the "
        "request.",
    ),
    (
        "ASSAY_EVALSET_MAX_IMPORT_BYTES",
        "`536870912` (512 MB)",
        "Largest evalset import file.",
    ),
    ("ASSAY_EVALSET_MAX_MEDIA_BYTES", "`26214400` (25 MB)", "Largest uploaded media file."),
    (
        "ASSAY_EVALSET_MAX_ROWS_FILE_BYTES",
        "`67108864` (64 MB)",
        "Largest rows file of `assay run --rows` (imported and committed inside the request; "
        "it also holds at most `ASSAY_COMMIT_INLINE_ROWS` rows).",
    ),
    (
        "ASSAY_REQUIRE_NETNS",
        "`0` (`1` in production)",
        "Refuse to run code evaluators when the sandbox cannot enter its own network namespace.",
    ),
    (
        "ASSAY_COMMIT_INLINE_ROWS",
        "20000",
        "A draft of up to this many rows is committed inside the request; a larger one "
        "becomes a background job with progress.",
    ),
    (
        "ASSAY_COMMIT_BATCH_ROWS",
        "50000",
        "Rows a background commit copies per transaction (a crash resumes from the last batch).",
    ),
    (
        "ASSAY_OUTBOUND_ALLOW",
        "`*` (`public` in production)",
        "Where providers and targets may be called: `*` (anything), `public` (public addresses "
        "only: loopback, private and link-local ranges refused), plus address ranges or host "
        "names to allow, comma-separated (`public,10.1.0.0/16,llm.internal`). Checked on the "
        "resolved address of every connection.",
    ),
    (
        "ASSAY_TARGET_MAX_BYTES",
        "`4194304` (4 MiB)",
        "Largest answer an HTTP target's endpoint may send for one row; it is read streamed "
        'and a longer one is a row error ("the answer is larger than N bytes"), never held '
        "whole. Stored outputs are capped at 256 KB after parsing.",
    ),
    (
        "ASSAY_GARAK_MAX_REPORT_BYTES",
        "`67108864` (64 MB)",
        "Largest garak report.jsonl an import takes.",
    ),
    (
        "ASSAY_GARAK_MAX_PROBES",
        "`50`",
        "Probes one garak import may hold: each becomes an evalset version and a launched run "
        "(a larger report is a 400 naming its count).",
    ),
    (
        "ASSAY_GARAK_MAX_ATTEMPTS",
        "`100000`",
        "Scored attempts one garak import may hold.",
    ),
    (
        "ASSAY_GARAK_MAX_OUTPUTS",
        "`500000`",
        "Outputs (rows) the scored attempts of one garak import may hold.",
    ),
    (
        "ASSAY_OTLP_MAX_BODY_BYTES",
        "`8388608` (8 MiB)",
        "Largest body one `POST /otlp/v1/traces` may send (as sent, compressed or not); a "
        "larger one is a 413.",
    ),
    (
        "ASSAY_OTLP_MAX_DECODED_BYTES",
        "`33554432` (32 MiB)",
        "Largest OTLP body once gzip is inflated; inflating stops there with a 413 (a gzip "
        "bomb is never inflated whole).",
    ),
    (
        "ASSAY_OTLP_MAX_SPANS",
        "`10000`",
        "Spans one OTLP request may bring; the rest are refused in the answer's `partial_success`.",
    ),
    (
        "ASSAY_OTLP_MAX_QUEUED_BATCHES",
        "`2000`",
        "OTLP requests of one workspace waiting for a worker; past it the endpoint answers 429 "
        "with `Retry-After`.",
    ),
    (
        "ASSAY_OTLP_SPANS_PER_SECOND",
        "`50000`",
        "Spans one workspace may send a second (a sliding window in Redis, or in the process "
        "without Redis); past it the endpoint answers 429 with `Retry-After`. `0`: no limit.",
    ),
    (
        "ASSAY_OTLP_SPANS_BURST",
        "`100000`",
        "Spans one workspace may send at once: the window is this many spans over "
        "burst / rate seconds (at least the spans of one request).",
    ),
    (
        "ASSAY_ONLINE_SWEEP_S",
        "`15`",
        "How often each active online rule looks at the spans stored since its last look and "
        "launches a run for those it samples.",
    ),
    (
        "ASSAY_ONLINE_SWEEP_LAG_S",
        "`10`",
        "How far behind now the sweep stops, so a span whose storing transaction is still open "
        "is taken by the next sweep, never missed.",
    ),
    (
        "ASSAY_ANNOTATION_FEED_S",
        "`60`",
        "How often annotation queues that follow an online rule or an experiment take the new "
        "outcomes or results in their sample.",
    ),
    (
        "ASSAY_TRACE_RETENTION_DAYS",
        "`30`",
        "Days spans are kept: older days' partitions are dropped hourly (PostgreSQL), older "
        "spans deleted (SQLite), and spans older than this are refused at ingestion.",
    ),
    (
        "ASSAY_HSTS_SECONDS",
        "`31536000` in production, `0` in development",
        "Strict-Transport-Security max-age sent with HTTPS responses.",
    ),
    (
        "ASSAY_HTTPS",
        "`0`",
        "`1` when every request reaches Assay over HTTPS: the session and CSRF cookies are "
        "Secure. Leave it off for plain HTTP (a LAN address), or the browser drops the cookies "
        "and sign-in fails.",
    ),
    (
        "ASSAY_TRUST_FORWARDED_PROTO",
        "`0`",
        "`1` behind a TLS proxy that sets `X-Forwarded-Proto` (and drops a client's): a request "
        "it marks `https` counts as secure, and its cookies are Secure.",
    ),
    ("SESSION_COOKIE_SECURE", "`ASSAY_HTTPS`", "Send the session cookie over HTTPS only."),
    ("CSRF_COOKIE_SECURE", "`ASSAY_HTTPS`", "Send the CSRF cookie over HTTPS only."),
    (
        "STATIC_ROOT",
        "`var/staticfiles/`",
        "Where `collectstatic` puts the static files (the image keeps them in "
        "`/app/staticfiles`, outside the data volume).",
    ),
    (
        "ASSAY_ADMIN_USERNAME",
        "unset",
        "`manage.py bootstrap` (compose's `init`, the chart's migrations job) creates this "
        "superuser with its own workspace if it does not exist yet.",
    ),
    (
        "ASSAY_ADMIN_PASSWORD",
        "unset",
        "The new administrator's password (checked like any password; ignored once the "
        "account exists).",
    ),
    ("ASSAY_ADMIN_WORKSPACE", "`Team`", "Name of the administrator's first workspace."),
    ("ASSAY_DEMO", "`0`", "`1` makes `manage.py bootstrap` load the demo workspace and user."),
    ("ASSAY_CHROMIUM", "`/usr/bin/chromium`", "Chromium binary used by the browser tests."),
]


def env_str(name: str, default: str = "") -> str:
    """Return the variable, or the default when unset or empty."""
    return os.environ.get(name) or default


def env_bool(name: str, default: bool) -> bool:
    """Parse 1/0, true/false, yes/no, on/off; anything else is an error that names the variable."""
    raw = os.environ.get(name)
    if raw is None or raw == "":
        return default
    value = raw.strip().lower()
    if value in {"1", "true", "yes", "on"}:
        return True
    if value in {"0", "false", "no", "off"}:
        return False
    raise ValueError(f"{name} must be a boolean (1/0, true/false), got {raw!r}")


def env_list(name: str, default: list[str]) -> list[str]:
    """Split a comma-separated variable into a list, dropping blanks."""
    raw = os.environ.get(name)
    if not raw:
        return default
    return [item.strip() for item in raw.split(",") if item.strip()]


def env_int(name: str, default: int) -> int:
    """Parse an integer variable with an error that names it."""
    raw = os.environ.get(name)
    if not raw:
        return default
    try:
        return int(raw)
    except ValueError:
        raise ValueError(f"{name} must be an integer, got {raw!r}") from None


def private_dir(path: Path) -> None:
    """Create `path` readable by its owner only (0700); tighten it if we own it already."""
    path.mkdir(mode=0o700, parents=True, exist_ok=True)
    if path.stat().st_uid == os.getuid():
        path.chmod(0o700)


def private_file(path: Path) -> None:
    """Create `path` empty with mode 0600 if it does not exist yet (never widen an existing one)."""
    if not path.exists():
        os.close(os.open(path, os.O_CREAT | os.O_WRONLY, 0o600))


def local_secret_key(data_dir: Path) -> str:
    """Generate the development secret key once and keep it under the data directory."""
    path = data_dir / "secret_key"
    if path.exists():
        return path.read_text().strip()
    data_dir.mkdir(parents=True, exist_ok=True)
    key = secrets.token_urlsafe(50)
    path.write_text(key)
    path.chmod(0o600)
    return key
