"""Settings come from the environment; production refuses to start without a SECRET_KEY."""

import json
import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PROBE = (
    "import django, json; from django.conf import settings; django.setup();"
    "db = settings.DATABASES['default'];"
    "print(json.dumps({'engine': db['ENGINE'], 'name': str(db['NAME']), 'debug': settings.DEBUG,"
    "'hosts': settings.ALLOWED_HOSTS, 'broker': settings.CELERY_BROKER_URL,"
    "'secret_len': len(settings.SECRET_KEY), 'outbound': settings.ASSAY_OUTBOUND_ALLOW,"
    "'hsts': settings.SECURE_HSTS_SECONDS}))"
)


def run_settings(tmp_path, **env) -> subprocess.CompletedProcess:
    base = {
        k: v
        for k, v in os.environ.items()
        if k not in {"DATABASE_URL", "REDIS_URL", "SECRET_KEY", "ASSAY_ENV", "DEBUG"}
    }
    base.update({"DJANGO_SETTINGS_MODULE": "assay.settings", "ASSAY_DATA_DIR": str(tmp_path)})
    base.update(env)
    return subprocess.run(
        [sys.executable, "-c", PROBE],
        cwd=ROOT,
        env=base,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_embedded_defaults(tmp_path):
    result = run_settings(tmp_path)
    assert result.returncode == 0, result.stderr
    values = json.loads(result.stdout)
    assert values["engine"] == "django.db.backends.sqlite3"
    assert values["name"] == str(tmp_path / "assay.sqlite3")
    assert values["broker"] == "filesystem://"
    assert values["debug"] is True
    # the generated key is kept and reused
    assert (tmp_path / "secret_key").read_text().strip()
    assert json.loads(run_settings(tmp_path).stdout)["secret_len"] == values["secret_len"]


def test_database_and_redis_urls(tmp_path):
    result = run_settings(
        tmp_path,
        DATABASE_URL="postgres://u:p@db.internal:5433/assaydb",
        REDIS_URL="redis://cache.internal:6380/2",
        ALLOWED_HOSTS="a.test, b.test",
    )
    assert result.returncode == 0, result.stderr
    values = json.loads(result.stdout)
    assert values["engine"] == "django.db.backends.postgresql"
    assert values["name"] == "assaydb"
    assert values["broker"] == "redis://cache.internal:6380/2"
    assert values["hosts"] == ["a.test", "b.test"]


def test_production_requires_secret_key(tmp_path):
    result = run_settings(tmp_path, ASSAY_ENV="production")
    assert result.returncode != 0
    assert "SECRET_KEY is required" in result.stderr


def test_production_with_secret_key_turns_debug_off(tmp_path):
    result = run_settings(tmp_path, ASSAY_ENV="production", SECRET_KEY="x" * 60)
    assert result.returncode == 0, result.stderr
    values = json.loads(result.stdout)
    assert values["debug"] is False and values["hosts"] == ["127.0.0.1", "localhost"]


def test_bad_boolean_names_the_variable(tmp_path):
    result = run_settings(tmp_path, DEBUG="maybe")
    assert result.returncode != 0
    assert "DEBUG must be a boolean" in result.stderr


def test_readme_table_is_generated_from_the_variables():
    sys.path.insert(0, str(ROOT / "scripts"))
    from config_table import readme_table, table

    readme = (ROOT / "README.md").read_text()
    start, end = readme_table(readme)
    assert readme[start:end] == table(), "run: python scripts/config_table.py --write"


READS = re.compile(
    r"""(?:env_(?:str|int|bool|list)\(|os\.environ(?:\.get\(|\[))\s*["']([A-Z_]+)["']"""
)


def test_every_variable_read_is_listed_and_every_listed_one_is_read():
    from assay.env import VARIABLES

    sources = [
        p
        for d in ("assay", "evaluators", "evalsets", "experiments", "sandbox", "tests")
        for p in (ROOT / d).rglob("*.py")
    ]
    read = {name for path in sources for name in READS.findall(path.read_text())}
    # the framework's own, and a canary the sandbox tests plant to prove it never leaks
    read -= {
        "DJANGO_SETTINGS_MODULE",
        "DJANGO_ALLOW_ASYNC_UNSAFE",
        "TMPDIR",
        "PATH",
        "ASSAY_SANDBOX_CANARY",
    }
    listed = {name for name, _, _ in VARIABLES}
    assert sorted(read - listed) == [], "read but not documented"
    assert sorted(listed - read) == [], "documented but never read"


def test_outbound_policy_defaults_and_bad_values(tmp_path):
    assert json.loads(run_settings(tmp_path).stdout)["outbound"] == "*"
    production = run_settings(tmp_path, ASSAY_ENV="production", SECRET_KEY="k" * 50)
    assert json.loads(production.stdout)["outbound"] == "public", production.stderr
    bad = run_settings(tmp_path, ASSAY_OUTBOUND_ALLOW="public,not a host!")
    assert bad.returncode != 0 and "ASSAY_OUTBOUND_ALLOW" in bad.stderr


WORKER_LOGGING = (
    "import django, logging; django.setup();"
    "from assay.celery import app; app.log.setup(loglevel='INFO', redirect_stdouts=False);"
    "print(logging.getLogger().isEnabledFor(logging.INFO),"
    " [n for n in ('httpx', 'httpx2', 'httpcore2', 'aiohttp', 'aiohttp.client')"
    "  if logging.getLogger(n).isEnabledFor(logging.INFO)])"
)


def test_a_worker_at_info_does_not_log_every_http_call(tmp_path):
    """HTTP clients log each request's URL at INFO: row data of HTTP targets, and CPU."""
    env = {k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "REDIS_URL"}}
    env.update({"DJANGO_SETTINGS_MODULE": "assay.settings", "ASSAY_DATA_DIR": str(tmp_path)})
    done = subprocess.run(
        [sys.executable, "-c", WORKER_LOGGING],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["True", "[]"]  # the worker logs at INFO; the clients do not
