"""Headers, sign-in throttling, private files, spreadsheet-safe CSV and debug pages that never
leak settings."""

import json
import re
import sys
from pathlib import Path

import pytest
from django.test import override_settings
from django.urls import reverse

from assay.safety.csvcells import csv_restore, csv_safe
from tests.assay.test_settings_env import run_settings
from tests.conftest import PASSWORD

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parents[2]
INLINE_HANDLER = re.compile(r"<[^>]*\son[a-z]+\s*=", re.IGNORECASE)
INLINE_SCRIPT = re.compile(r"<script(?![^>]*\bsrc=)(?![^>]*application/json)[^>]*>", re.I)


def test_pages_and_api_carry_the_security_headers(web):
    for url in [
        reverse("evaluators:list", kwargs={"ws": "acme"}),
        "/api/v1/providers/",
        reverse("login"),
    ]:
        response = web.get(url)
        csp = response["Content-Security-Policy"]
        script_src = next(p for p in csp.split(";") if p.strip().startswith("script-src"))
        assert "unsafe-inline" not in script_src and "unsafe-eval" not in script_src, url
        assert "frame-ancestors 'none'" in csp and "object-src 'none'" in csp
        assert response["X-Content-Type-Options"] == "nosniff"
        assert response["Referrer-Policy"] == "same-origin"
        assert response["X-Frame-Options"] == "DENY"


def test_no_template_has_inline_scripts_or_handlers():
    offenders = []
    for path in (ROOT / "templates").rglob("*.html"):
        text = path.read_text()
        offenders += [f"{path.name}: {m.group(0)[:60]}" for m in INLINE_HANDLER.finditer(text)]
        offenders += [f"{path.name}: {m.group(0)}" for m in INLINE_SCRIPT.finditer(text)]
    assert offenders == []


def test_rendered_pages_have_no_inline_scripts(web, workspace):
    for name in [
        "evaluators:list",
        "evaluators:new",
        "evalsets:list",
        "experiments:list",
        "settings_providers",
        "settings_members",
        "settings_tokens",
    ]:
        html = web.get(reverse(name, kwargs={"ws": "acme"})).content.decode()
        assert not INLINE_HANDLER.search(html) and not INLINE_SCRIPT.search(html), name


def test_hsts_in_production_only(tmp_path):
    assert json.loads(run_settings(tmp_path).stdout)["hsts"] == 0
    production = run_settings(tmp_path, ASSAY_ENV="production", SECRET_KEY="k" * 50)
    assert json.loads(production.stdout)["hsts"] == 31_536_000, production.stderr


@override_settings(SECURE_HSTS_SECONDS=31_536_000)
def test_hsts_header_on_https_responses(client):
    assert client.get(reverse("login"), secure=True)["Strict-Transport-Security"].startswith(
        "max-age=31536000"
    )


def sign_in(client, username: str, password: str, address: str = "127.0.0.1"):
    return client.post(
        reverse("login"), {"username": username, "password": password}, REMOTE_ADDR=address
    )


def test_ten_failures_lock_the_user_and_address_out(client, user, make_user):
    make_user("bob")
    for _ in range(9):
        assert sign_in(client, "alice", "wrong").status_code == 200
    locked = sign_in(client, "alice", "wrong")
    assert locked.status_code == 429 and b"15 minutes" in locked.content
    assert sign_in(client, "alice", PASSWORD).status_code == 429  # even the right password
    assert sign_in(client, "bob", PASSWORD).status_code == 302  # another user is unaffected
    client.logout()
    assert sign_in(client, "alice", PASSWORD, address="10.9.9.9").status_code == 302


def test_the_lockout_ends_after_15_minutes(client, user):
    from datetime import timedelta

    from axes.models import AccessAttempt
    from django.utils import timezone

    for _ in range(10):
        sign_in(client, "alice", "wrong")
    assert sign_in(client, "alice", PASSWORD).status_code == 429
    AccessAttempt.objects.update(attempt_time=timezone.now() - timedelta(minutes=16))
    assert sign_in(client, "alice", PASSWORD).status_code == 302


def test_data_dir_and_sqlite_file_are_private(tmp_path):
    data = tmp_path / "data"
    result = run_settings(data)
    assert result.returncode == 0, result.stderr
    assert data.stat().st_mode & 0o777 == 0o700
    assert (data / "assay.sqlite3").stat().st_mode & 0o777 == 0o600
    assert (data / "secret_key").stat().st_mode & 0o777 == 0o600


@pytest.mark.parametrize(
    "cell", ["=1+1", "+1", "-2", "@SUM(A1)", "\tx", "\rx", "'=x", "''+y", "'plain", "plain", ""]
)
def test_csv_cells_are_neutralised_and_restored_exactly(cell):
    safe = csv_safe(cell)
    assert not safe.startswith(("=", "+", "-", "@", "\t", "\r"))
    assert csv_restore(safe) == cell


def test_results_csv_neutralises_formula_cells(workspace, user):
    from experiments.models import Result
    from experiments.results.exports import results_csv
    from tests.support.factories import make_code_version, make_evalset_version, run_inline

    source = (
        "def exec_evaluation(turn):\n    return EvalOutput(score=1.0, reason='=HYPERLINK(\"x\")')\n"
    )
    row = {"input": "q", "actual_output": "a", "reference_output": "r"}
    version = make_evalset_version(workspace=workspace, user=user, rows=[row])
    ev = make_code_version(workspace=workspace, user=user, source=source)
    experiment = run_inline(workspace=workspace, user=user, version=version, evaluator_version=ev)
    assert Result.objects.get().reason.startswith("=")
    text = "".join(results_csv(experiment))
    assert "'=HYPERLINK" in text and ",=HYPERLINK" not in text


def test_evalset_csv_export_round_trips_formula_text(workspace, user, settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path
    from django.core.files.base import ContentFile

    from evalsets import services
    from evalsets.export import csv_lines
    from evalsets.importing import import_create
    from tests.evalsets.conftest import run_now

    evalset = services.evalset_create(
        workspace=workspace, user=user, name="s", columns=[{"name": "q", "content_type": "Text"}]
    )
    services.item_create(evalset=evalset, data={"q": {"content_type": "Text", "text": "=cmd|x"}})
    exported = b"".join(csv_lines(evalset.items.all(), ["q"]))
    assert b"'=cmd|x" in exported
    copy = services.evalset_create(
        workspace=workspace, user=user, name="copy", columns=[{"name": "q", "content_type": "Text"}]
    )
    job = run_now(import_create(evalset=copy, user=None, upload=ContentFile(exported, "x.csv")))
    assert job.status == "completed", job.errors
    assert copy.items.get().data["q"]["text"] == "=cmd|x"


@override_settings(DEBUG=True, ASSAY_DEBUG_TRACEBACKS=True)
def test_debug_page_only_for_local_addresses(client, user, workspace, monkeypatch):
    from assay import selectors

    def boom(**kwargs):
        raise RuntimeError("boom in a view")

    monkeypatch.setattr(selectors, "providers_list", boom)
    client.force_login(user)
    client.raise_request_exception = False
    url = reverse("settings_providers", kwargs={"ws": "acme"})
    remote = client.get(url, REMOTE_ADDR="203.0.113.7")
    assert remote.status_code == 500 and b"Traceback" not in remote.content
    proxied = client.get(url, HTTP_X_FORWARDED_FOR="203.0.113.7")
    assert proxied.status_code == 500 and b"Traceback" not in proxied.content
    local = client.get(url)
    assert local.status_code == 500 and b"boom in a view" in local.content


@pytest.fixture
def secret_urls(settings):
    # Built here, not in the test: the debug page shows the failing frame's source lines.
    settings.DATABASE_URL = "postgres://assay:" + "hunter2" + "-db@db.internal:5432/assay"
    settings.REDIS_URL = "redis://:" + "redis-pass" + "-xyz@cache.internal:6379/0"
    settings.CELERY_BROKER_URL = settings.REDIS_URL
    return settings


def _debug_page(request) -> str:
    from django.views.debug import ExceptionReporter

    try:
        raise RuntimeError("x")
    except RuntimeError:
        return ExceptionReporter(request, *sys.exc_info()).get_traceback_html()


def test_debug_page_hides_connection_urls_and_secrets(rf, secret_urls):
    request = rf.get(
        "/", DATABASE_URL=secret_urls.DATABASE_URL, EXTRA="see " + secret_urls.SECRET_KEY
    )
    html = _debug_page(request)
    for url in (secret_urls.DATABASE_URL, secret_urls.REDIS_URL):
        assert url.split(":")[2].split("@")[0] not in html
    assert secret_urls.SECRET_KEY not in html


def test_every_page_has_a_favicon(client):
    from pathlib import Path

    page = client.get("/accounts/login/").content.decode()
    assert '<link rel="icon" href="/static/favicon.svg"' in page
    assert (Path(__file__).resolve().parents[2] / "static" / "favicon.svg").exists()
