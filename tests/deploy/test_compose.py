"""The compose file's contract, read without a Docker daemon: what each service runs, as whom,
with which variables, volumes and health checks; and the image's build context."""

import re
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
COMPOSE = ROOT / "docker" / "compose.yaml"
APP_SERVICES = ("init", "web", "worker", "beat")


@pytest.fixture(scope="module")
def compose() -> dict:
    return yaml.safe_load(COMPOSE.read_text())


def variable(value: str) -> tuple[str, str]:
    """`${NAME:-default}` → (NAME, default)."""
    match = re.fullmatch(r"\$\{(\w+):-([^}]*)\}", str(value))
    assert match, f"{value!r} is not ${{NAME:-default}}"
    return match.group(1), match.group(2)


def test_every_app_service_runs_the_image_as_assay_from_the_repository_root(compose):
    for name in APP_SERVICES:
        service = compose["services"][name]
        assert service["command"] == [name]
        assert service["user"] == "assay", f"{name} runs as root"
        build = service["build"]
        assert (COMPOSE.parent / build["context"]).resolve() == ROOT
        assert (ROOT / build["dockerfile"]).exists()
        assert "assay-data:/data" in service["volumes"]


def test_the_image_runs_as_assay_and_checks_its_health():
    dockerfile = (ROOT / "docker" / "Dockerfile").read_text()
    assert re.search(r"^USER assay$", dockerfile, re.M)
    assert "useradd" in dockerfile and "--uid 10001" in dockerfile
    assert re.search(r'^HEALTHCHECK .*\n\s+CMD \["docker/healthcheck.sh"\]', dockerfile, re.M)
    # a failed dependency install fails the build
    assert "|| true" not in dockerfile
    assert "STATIC_ROOT=/app/staticfiles" in dockerfile


def test_secret_key_is_optional_and_generated_by_the_entrypoint(compose):
    env = compose["services"]["web"]["environment"]
    assert variable(env["SECRET_KEY"]) == ("SECRET_KEY", "")
    entrypoint = (ROOT / "docker" / "entrypoint.sh").read_text()
    assert '"$DATA_DIR/secret_key"' in entrypoint and "export SECRET_KEY" in entrypoint


def test_plain_http_on_a_lan_address_by_default(compose):
    env = compose["services"]["web"]["environment"]
    assert env["ASSAY_ENV"] == "production"
    assert variable(env["ASSAY_HTTPS"]) == ("ASSAY_HTTPS", "0")
    assert variable(env["ALLOWED_HOSTS"]) == ("ALLOWED_HOSTS", "*")
    assert "SESSION_COOKIE_SECURE" not in env and "CSRF_COOKIE_SECURE" not in env


def test_services_share_postgres_and_redis(compose):
    for name in APP_SERVICES:
        env = compose["services"][name]["environment"]
        assert env["DATABASE_URL"].endswith("@postgres:5432/assay")
        assert env["REDIS_URL"] == "redis://redis:6379/0"


def test_init_bootstraps_the_admin_and_the_demo_before_the_others(compose):
    init = compose["services"]["init"]
    assert init["restart"] == "no"
    env = init["environment"]
    assert variable(env["ASSAY_ADMIN_USERNAME"]) == ("ASSAY_ADMIN_USERNAME", "")
    assert variable(env["ASSAY_ADMIN_PASSWORD"]) == ("ASSAY_ADMIN_PASSWORD", "")
    assert variable(env["ASSAY_DEMO"]) == ("ASSAY_DEMO", "0")
    for name in ("web", "worker", "beat"):
        depends = compose["services"][name]["depends_on"]
        assert depends["init"] == {"condition": "service_completed_successfully"}
        assert depends["postgres"] == {"condition": "service_healthy"}
    entrypoint = (ROOT / "docker" / "entrypoint.sh").read_text()
    assert "manage.py migrate --noinput" in entrypoint and "manage.py bootstrap" in entrypoint


def test_health_checks(compose):
    services = compose["services"]
    for name in ("web", "worker", "beat"):  # the image's one script, by role
        assert services[name]["healthcheck"]["test"] == ["CMD", "docker/healthcheck.sh"]
    script = (ROOT / "docker" / "healthcheck.sh").read_text()
    assert "/healthz" in script and "inspect ping" in script and "celerybeat-schedule" in script
    # a check runs beside the entry point, not through it: it must read the generated key too
    assert 'entrypoint.sh" celery -A assay inspect ping' in script
    for name in ("postgres", "redis"):
        assert services[name]["healthcheck"]["test"]


def test_only_the_processes_that_run_the_sandbox_ask_for_sys_admin(compose):
    # the worker runs code evaluators; web runs them too (the debug panel, submit checks)
    for name, service in compose["services"].items():
        expected = ["SYS_ADMIN"] if name in ("web", "worker") else None
        assert service.get("cap_add") == expected, name


def test_state_lives_in_named_volumes(compose):
    assert set(compose["volumes"]) == {"assay-data", "postgres-data", "redis-data"}
    assert "postgres-data:/var/lib/postgresql/data" in compose["services"]["postgres"]["volumes"]


def docker_pattern(pattern: str) -> re.Pattern:
    """Docker's .dockerignore syntax (Go's filepath.Match plus `**` for any directories)."""
    out, i = "", 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            out, i = out + "(?:.*/)?", i + 3
        elif pattern.startswith("**", i):
            out, i = out + ".*", i + 2
        else:
            char = pattern[i]
            out += {"*": "[^/]*", "?": "[^/]"}.get(char, re.escape(char))
            i += 1
    return re.compile(out + r"\Z")


def docker_ignored(path: str, patterns: list[str]) -> bool:
    """A path is left out when a pattern matches it or one of its parent folders (no `!`
    patterns here, so the order does not matter)."""
    parts = path.split("/")
    prefixes = ["/".join(parts[: i + 1]) for i in range(len(parts))]
    compiled = [docker_pattern(pattern) for pattern in patterns]
    return any(regex.match(prefix) for regex in compiled for prefix in prefixes)


@pytest.fixture(scope="module")
def ignore_patterns() -> list[str]:
    lines = (ROOT / ".dockerignore").read_text().splitlines()
    patterns = [line.strip() for line in lines if line.strip() and not line.startswith("#")]
    assert not any(p.startswith("!") for p in patterns)
    return patterns


@pytest.mark.parametrize(
    "path",
    [
        ".venv/bin/python",
        "node_modules/htmx.org/package.json",
        "var/assay.sqlite3",
        "var/secret_key",
        ".git/HEAD",
        "artifacts/screenshots/a.png",
        "static/vendor/htmx.min.js",
        "assay/__pycache__/settings.cpython-311.pyc",
        "clients/python/assay_client.egg-info/PKG-INFO",
        "docker/.env",
    ],
)
def test_dockerignore_keeps_developer_state_out_of_the_image(path, ignore_patterns):
    assert docker_ignored(path, ignore_patterns)


@pytest.mark.parametrize(
    "path", ["assay/settings.py", "manage.py", "pyproject.toml", "docker/entrypoint.sh"]
)
def test_dockerignore_keeps_the_sources(path, ignore_patterns):
    assert not docker_ignored(path, ignore_patterns)
