"""Fixtures for the Python client and the `assay` CLI: a live server (pytest-django's
`live_server`, a real HTTP server on the test database) with a real Celery worker, an API
token, and an environment that points the client at them and nowhere else."""

from __future__ import annotations

import sys

import pytest

from assay import services
from tests.support.factories import make_code_version, make_evalset_version

COLUMNS = [
    {"name": n, "content_type": "Text", "required": True, "description": ""}
    for n in ("input", "reference_output")
]
CLIENT_ENV = ("ASSAY_URL", "ASSAY_TOKEN", "ASSAY_CONFIG", "ASSAY_DEBUG")
CI_ENV = ("GITHUB_STEP_SUMMARY", "GITHUB_OUTPUT", "COLUMNS")


def word_rows(n: int) -> list[dict]:
    """Rows whose right answer is the last word of the input ("say w3" → "w3")."""
    return [{"input": f"say w{i}", "reference_output": f"w{i}"} for i in range(n)]


def echo_last_word(row: dict) -> str:
    """The right answer to a word row."""
    return "You said " + row["input"].split()[-1]


@pytest.fixture(autouse=True)
def restore_sys_path(monkeypatch):
    """`assay run` puts the current directory first on sys.path, as `python -m` does; each
    test gets the path back as it was."""
    monkeypatch.setattr(sys, "path", list(sys.path))


@pytest.fixture
def server(live_server, celery_worker_inproc):
    """The live server's base URL, with a worker consuming its queues."""
    return live_server.url


@pytest.fixture
def token(user, workspace) -> str:
    """A real API token of the workspace owner."""
    return services.token_issue(workspace=workspace, user=user, name="client tests").key


@pytest.fixture
def clean_env(monkeypatch, tmp_path):
    """No Assay or CI settings from the machine: the config file lives in tmp_path."""
    for name in CLIENT_ENV + CI_ENV:
        monkeypatch.delenv(name, raising=False)
    config = tmp_path / "home" / "assay" / "config.json"
    monkeypatch.setenv("ASSAY_CONFIG", str(config))
    return config


@pytest.fixture
def assay_env(clean_env, monkeypatch, server, token):
    """ASSAY_URL and ASSAY_TOKEN for the live server, as a CI job would set them."""
    monkeypatch.setenv("ASSAY_URL", server)
    monkeypatch.setenv("ASSAY_TOKEN", token)
    return {"ASSAY_URL": server, "ASSAY_TOKEN": token}


@pytest.fixture
def client(assay_env):
    from assay_client import Client

    with Client() as made:
        yield made


@pytest.fixture
def contains(workspace, user):
    """Contains@1.0.0: a code evaluator that passes when the output contains the reference."""
    return make_code_version(workspace=workspace, user=user)


@pytest.fixture
def words(workspace, user):
    """Words@1.0.0: a committed evalset of 12 word rows."""
    return make_evalset_version(
        workspace=workspace, user=user, rows=word_rows(12), columns=COLUMNS, name="Words"
    )
