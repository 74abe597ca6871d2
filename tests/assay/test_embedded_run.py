"""`manage.py assay_run` (what `make run` calls) serves the sign-in page with embedded defaults."""

import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_for(url: str, deadline: float) -> tuple[int, str]:
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(url, timeout=2) as response:
                return response.status, response.read().decode()
        except OSError:
            time.sleep(0.3)
    raise AssertionError(f"{url} did not answer in time")


def wait_until(condition, deadline: float) -> None:
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.3)
    raise AssertionError("the condition never held")


def sign_in_as_demo(base: str):
    """Sign in through the real form (CSRF cookie and token included), as a person would."""
    import http.cookiejar
    import re
    import urllib.parse

    from assay.demo import DEMO_PASSWORD, DEMO_USERNAME

    opener = urllib.request.build_opener(
        urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar())
    )
    form = opener.open(f"{base}/accounts/login/", timeout=10).read().decode()
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', form).group(1)
    body = urllib.parse.urlencode(
        {"username": DEMO_USERNAME, "password": DEMO_PASSWORD, "csrfmiddlewaretoken": token}
    ).encode()
    return opener.open(f"{base}/accounts/login/", data=body, timeout=30)


def health_when(url: str, deadline: float, condition) -> dict:
    while time.monotonic() < deadline:
        body = json.loads(wait_for(url, deadline)[1])
        if condition(body):
            return body
        time.sleep(0.3)
    raise AssertionError(f"{url} never met the condition")


def test_embedded_run_serves_sign_in(tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "REDIS_URL"}}
    env["ASSAY_DATA_DIR"] = str(tmp_path)
    env["ASSAY_WORKER_HEARTBEAT_S"] = "1"
    # what an unclean stop can leave in the filesystem broker: the worker skips it, not dies
    (tmp_path / "broker").mkdir(parents=True)
    (tmp_path / "broker" / "0_cut.default.msg").write_bytes(b'{"body": "eyJ0YXNr", "pro')
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "manage.py", "assay_run", "--addr", f"127.0.0.1:{port}"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    try:
        status, body = wait_for(f"http://127.0.0.1:{port}/accounts/login/", time.monotonic() + 120)
        assert status == 200 and "Sign in to Assay" in body
        assert (tmp_path / "assay.sqlite3").exists()
        health = f"http://127.0.0.1:{port}/healthz?sandbox=0"
        set_aside = tmp_path / "broker" / "processed" / "unreadable" / "0_cut.default.msg"
        wait_until(set_aside.exists, time.monotonic() + 60)
        since = time.monotonic()
        # a heartbeat the worker ran after skipping the cut message: it is alive and consuming
        body = health_when(
            health,
            time.monotonic() + 60,
            lambda b: (
                b["workers"]["ok"] and b["workers"]["last_beat_age_s"] < time.monotonic() - since
            ),
        )
        assert body["status"] == "ok" and set(body["queues"]) == {"default", "code", "llm"}
        landing = sign_in_as_demo(f"http://127.0.0.1:{port}")
        assert "/w/demo/evaluators/" in landing.url and "demo" in landing.read().decode()
    finally:
        os.killpg(process.pid, 15)
        # a generous bound: the worker finishes its pool and beat; slow only on a loaded machine
        output = process.communicate(timeout=90)[0].decode(errors="replace")
    assert "sign in as demo" in output
