"""The image, built and run for real where Docker can: a daemon answers and the base images
are present. Neither is true on a machine that reaches only package registries (Docker Hub's
images cannot be pulled there), and the test says so when it skips. Built, the image runs
`init` then `web` on one data volume (SQLite, the filesystem broker): /healthz answers, the
sign-in page renders, the processes are not root, the generated SECRET_KEY is kept in the
volume, and the image's HEALTHCHECK turns healthy. With the PostgreSQL and Redis images too,
`docker compose up` of docker/compose.yaml serves a sign-in over plain HTTP on a LAN address."""

import json
import os
import shutil
import subprocess
import sys
import time
import urllib.request
import uuid
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(Path(__file__).parent))
BASES = ("python:3.11-slim-bookworm", "node:20-bookworm-slim")
IMAGE = "assay:smoke-test"

pytestmark = pytest.mark.integration


def docker(*args: str, timeout: float = 120, check: bool = True) -> subprocess.CompletedProcess:
    result = subprocess.run(["docker", *args], capture_output=True, text=True, timeout=timeout)
    if check:
        assert result.returncode == 0, result.stdout + result.stderr
    return result


@pytest.fixture(scope="module")
def image():
    if not shutil.which("docker"):
        pytest.skip("no docker CLI on this machine")
    if docker("info", check=False, timeout=30).returncode != 0:
        pytest.skip("no Docker daemon answers (start dockerd to run this test)")
    missing = [b for b in BASES if not present(b)]
    if missing:
        pytest.skip(
            f"base images {', '.join(missing)} are not present and cannot be pulled from "
            "here (only package registries are reachable)"
        )
    docker("build", "-f", "docker/Dockerfile", "-t", IMAGE, str(ROOT), timeout=1800)
    return IMAGE


def get(url: str) -> tuple[int, str]:
    with urllib.request.urlopen(url, timeout=5) as response:
        return response.status, response.read().decode()


def wait_until(condition, seconds: float, what: str):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            value = condition()
        except OSError:
            value = None
        if value:
            return value
        time.sleep(1)
    raise AssertionError(f"{what} did not happen in {seconds:.0f} s")


@pytest.fixture
def volume(image):
    name = f"assay-smoke-{uuid.uuid4().hex[:8]}"
    docker("volume", "create", name)
    yield name
    docker("volume", "rm", "-f", name, check=False)


def test_the_image_migrates_then_serves_as_an_unprivileged_user(image, volume):
    env = ["-e", "ASSAY_ADMIN_USERNAME=ops", "-e", "ASSAY_ADMIN_PASSWORD=a-long-unusual-one"]
    init = docker("run", "--rm", "-v", f"{volume}:/data", *env, image, "init", timeout=600)
    assert "administrator 'ops' ready" in init.stdout
    name = volume + "-web"
    docker("run", "-d", "--name", name, "-v", f"{volume}:/data", "-p", "127.0.0.1::8000", image)
    try:
        port = int(docker("port", name, "8000/tcp").stdout.split(":")[-1])
        health = wait_until(
            lambda: get(f"http://127.0.0.1:{port}/healthz?sandbox=0")[0] == 200, 180, "healthz"
        )
        assert health
        status, page = get(f"http://127.0.0.1:{port}/accounts/login/")
        assert status == 200 and "Sign in to Assay" in page
        assert docker("exec", name, "id", "-u").stdout.strip() == "10001"
        assert docker("exec", name, "id", "-g").stdout.strip() == "10001"  # the chart's group
        key = docker("exec", name, "stat", "-c", "%a %U", "/data/secret_key").stdout.split()
        assert key == ["600", "assay"]
        wait_until(
            lambda: (
                "healthy"
                == docker("inspect", "-f", "{{.State.Health.Status}}", name).stdout.strip()
            ),
            240,
            "the image's HEALTHCHECK turning healthy",
        )
    finally:
        docker("rm", "-f", name, check=False)


def compose_command() -> list[str]:
    if docker("compose", "version", check=False).returncode == 0:
        return ["docker", "compose"]
    if shutil.which("docker-compose"):
        return ["docker-compose"]
    pytest.skip("neither `docker compose` nor `docker-compose` is installed")


def test_compose_up_serves_a_sign_in_over_plain_http(image, tmp_path):
    needed = [i for i in ("postgres:16-bookworm", "redis:7-bookworm") if not present(i)]
    if needed:
        pytest.skip(f"{', '.join(needed)} not present and cannot be pulled from here")
    from test_entrypoint import free_port, request, sign_in

    port = free_port()
    project = f"assaysmoke{uuid.uuid4().hex[:6]}"
    compose = [*compose_command(), "-f", str(ROOT / "docker" / "compose.yaml"), "-p", project]
    env = {
        **os.environ,
        "ASSAY_PORT": str(port),
        "ASSAY_ADMIN_USERNAME": "ops",
        "ASSAY_ADMIN_PASSWORD": "a-long-unusual-one",
    }
    try:
        up = subprocess.run(
            [*compose, "up", "-d", "--build"], env=env, capture_output=True, text=True, timeout=1800
        )
        assert up.returncode == 0, up.stdout + up.stderr
        body = wait_until(lambda: healthy_body(port), 240, "/healthz with a live worker")
        assert body["database"]["ok"] and body["broker"]["ok"]
        session = sign_in(port, "ops", "a-long-unusual-one")
        response, page = request(port, "GET", "/w/team/evaluators/", {"Cookie": session})
        assert response.status == 200 and "ops" in page
    finally:
        subprocess.run([*compose, "down", "-v"], env=env, capture_output=True, timeout=300)


def present(image_name: str) -> bool:
    return docker("image", "inspect", image_name, check=False).returncode == 0


def healthy_body(port: int) -> dict | None:
    status, text = get(f"http://127.0.0.1:{port}/healthz")
    body = json.loads(text)
    return body if status == 200 and body["workers"]["ok"] else None
