"""docker/entrypoint.sh run as compose runs it, without Docker: the generated SECRET_KEY kept
in the data directory, `init` (migrate, the administrator), then `web` (gunicorn) in production
with compose's environment, and a sign-in over plain HTTP on a LAN address."""

import http.client
import os
import re
import signal
import socket
import stat
import subprocess
import sys
import time
import urllib.parse
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
ENTRYPOINT = ROOT / "docker" / "entrypoint.sh"
LAN = "192.168.1.20:8000"  # only a Host header: every request goes to 127.0.0.1


def base_env(data_dir: Path, **extra) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in {"SECRET_KEY", "ASSAY_ENV"}}
    env["PATH"] = f"{Path(sys.executable).parent}:{env['PATH']}"
    env["ASSAY_DATA_DIR"] = str(data_dir)
    env.update(extra)
    return env


def entrypoint(env: dict, *args: str, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run(
        ["sh", str(ENTRYPOINT), *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        **kwargs,
    )


def printed_key(env: dict) -> str:
    result = entrypoint(env, "sh", "-c", 'printf %s "$SECRET_KEY"')
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_a_secret_key_is_generated_once_and_kept(tmp_path):
    env = base_env(tmp_path)
    key = printed_key(env)
    assert len(key) >= 50
    kept = tmp_path / "secret_key"
    assert kept.read_text().strip() == key
    assert stat.S_IMODE(kept.stat().st_mode) == 0o600
    assert printed_key(env) == key


def test_a_given_secret_key_wins_and_nothing_is_written(tmp_path):
    assert printed_key(base_env(tmp_path, SECRET_KEY="given-" + "k" * 50)) == "given-" + "k" * 50
    assert not (tmp_path / "secret_key").exists()


def test_no_key_and_no_data_directory_is_refused_naming_the_variable(tmp_path):
    result = entrypoint(base_env(tmp_path / "missing"), "true")
    assert result.returncode != 0
    assert "SECRET_KEY is not set" in result.stderr and "set SECRET_KEY" in result.stderr


def compose_environment(service: str) -> dict:
    """A service's variables from docker/compose.yaml with the `${NAME:-default}` defaults."""
    compose = yaml.safe_load((ROOT / "docker" / "compose.yaml").read_text())
    env = compose["services"][service]["environment"]
    pattern = re.compile(r"\$\{\w+:-([^}]*)\}")
    return {name: pattern.sub(lambda m: m.group(1), str(value)) for name, value in env.items()}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def request(port, method, path, headers=None, body=None):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    connection.request(method, path, body=body, headers={"Host": LAN, **(headers or {})})
    response = connection.getresponse()
    return response, response.read().decode(errors="replace")


def wait_for_health(port: int, server: subprocess.Popen) -> None:
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        assert server.poll() is None, server.stdout.read()
        try:
            if request(port, "GET", "/healthz?sandbox=0")[0].status == 200:
                return
        except OSError:
            pass
        time.sleep(0.5)
    raise AssertionError("/healthz never answered 200")


def cookie(response, name: str) -> str:
    for header in response.headers.get_all("Set-Cookie") or []:
        if header.startswith(name + "="):
            return header
    raise AssertionError(f"no {name} cookie")


def sign_in(port: int, username: str, password: str) -> str:
    response, form = request(port, "GET", "/accounts/login/")
    assert response.status == 200 and "Sign in to Assay" in form
    csrf = cookie(response, "csrftoken")
    assert "Secure" not in csrf
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', form).group(1)
    body = urllib.parse.urlencode(
        {"username": username, "password": password, "csrfmiddlewaretoken": token}
    )
    response, _ = request(
        port,
        "POST",
        "/accounts/login/",
        {
            "Cookie": csrf.split(";")[0],
            "Origin": f"http://{LAN}",
            "Content-Type": "application/x-www-form-urlencoded",
        },
        body,
    )
    assert response.status == 302, "the sign-in was refused"
    session = cookie(response, "sessionid")
    assert "Secure" not in session, "a Secure cookie over plain HTTP is dropped by the browser"
    return session.split(";")[0]


def test_init_then_web_serve_a_sign_in_over_plain_http_on_a_lan_address(tmp_path):
    env = base_env(tmp_path / "data", **compose_environment("init"))
    for name in ("DATABASE_URL", "REDIS_URL"):  # SQLite and the filesystem broker here
        env.pop(name)
    env.update(
        SECRET_KEY="",
        STATIC_ROOT=str(tmp_path / "static"),
        ASSAY_ADMIN_USERNAME="ops",
        ASSAY_ADMIN_PASSWORD="a-long-unusual-passphrase",
        PORT=str(free_port()),
        WEB_CONCURRENCY="1",
    )
    (tmp_path / "data").mkdir()
    built = entrypoint(env, "python", "manage.py", "collectstatic", "--noinput")  # the build
    assert built.returncode == 0, built.stderr
    init = entrypoint(env, "init")
    assert init.returncode == 0, init.stderr
    assert "administrator 'ops' ready, workspace 'team' created" in init.stdout
    server = subprocess.Popen(
        ["sh", str(ENTRYPOINT), "web"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    try:
        wait_for_health(int(env["PORT"]), server)
        session = sign_in(int(env["PORT"]), "ops", "a-long-unusual-passphrase")
        response, page = request(
            int(env["PORT"]), "GET", "/w/team/evaluators/", {"Cookie": session}
        )
        assert response.status == 200 and "ops" in page
        # the image's health check, pointed at this gunicorn as if it were process 1
        check = health_check(env, server.pid)
        assert check.returncode == 0, check.stderr
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.communicate(timeout=60)


def health_check(env: dict, pid: int) -> subprocess.CompletedProcess:
    return subprocess.run(
        ["sh", str(ROOT / "docker" / "healthcheck.sh")],
        env={**env, "ASSAY_HEALTH_PID": str(pid)},
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_the_health_check_of_beat_is_its_schedule_files_age(tmp_path):
    # a process whose command line reads like beat's
    beat = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)", "beat", "-"])
    try:
        env = base_env(tmp_path)
        assert health_check(env, beat.pid).returncode != 0  # no schedule written yet
        (tmp_path / "celerybeat-schedule.db").write_bytes(b"")
        assert health_check(env, beat.pid).returncode == 0
    finally:
        beat.kill()
        beat.wait()


def test_the_health_check_refuses_a_process_it_does_not_know(tmp_path):
    other = subprocess.Popen(["sleep", "60"])
    try:
        check = health_check(base_env(tmp_path), other.pid)
        assert check.returncode != 0 and "no health check for: sleep 60" in check.stderr
    finally:
        other.kill()
        other.wait()
