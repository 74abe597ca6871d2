"""Shared fixtures: users, workspaces, API clients, a real Celery worker, headless Chromium."""

from __future__ import annotations

import os
import shutil

import pytest
from rest_framework.test import APIClient

from assay import services
from assay.models import Membership

pytest_plugins = [
    "tests.support.fixtures",
    "tests.support.llm_fixtures",
    "tests.support.pairwise",
    "tests.support.fake_run_kind",
]


@pytest.fixture(autouse=True)
def _default_language_after_each_test():
    """A request in Chinese leaves its language active on the thread (LocaleMiddleware does
    not put it back), and a later test's messages came out in Chinese: back to the default."""
    yield
    from django.utils import translation

    translation.deactivate()


def pytest_configure(config):
    from django.conf import settings

    from tests.support import isolation

    # A million PBKDF2 rounds per test user cost ~0.2 s each; tests do not need slow hashes.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    isolation.unique_test_database(settings)
    base = os.environ.get("REDIS_URL")
    if base:
        db = isolation.claim_redis_db(base)
        if db is None:
            raise pytest.UsageError(f"no free Redis db (1-15) at {base} for this test run")
        config._assay_redis = (base, db)
        isolation.point_at_redis(settings, isolation.with_db(base, db))


def pytest_unconfigure(config):
    from tests.support import isolation

    claimed = getattr(config, "_assay_redis", None)
    if claimed:
        isolation.release_redis_db(*claimed)


PASSWORD = "correct-horse-battery"


def require_service(name: str, available: bool, why: str = "") -> None:
    """Skip when a service is missing, or fail when ASSAY_REQUIRE_SERVICES=1 (CI)."""
    if available:
        return
    message = f"{name} unavailable{': ' + why if why else ''}"
    if os.environ.get("ASSAY_REQUIRE_SERVICES") == "1":
        pytest.fail(message + " (ASSAY_REQUIRE_SERVICES=1 forbids skipping)")
    pytest.skip(message)


@pytest.fixture
def make_user(db):
    def make(username: str = "alice"):
        return services.user_create(username=username, password=PASSWORD)

    return make


@pytest.fixture
def user(make_user):
    return make_user("alice")


@pytest.fixture
def workspace(user):
    return services.workspace_create(name="Acme", slug="acme", owner=user)


@pytest.fixture
def outsider(make_user):
    """A user with a workspace of their own, who must never see Acme's objects."""
    mallory = make_user("mallory")
    services.workspace_create(name="Other", slug="other", owner=mallory)
    return mallory


@pytest.fixture
def member(make_user, workspace):
    def make(username: str, role: str = Membership.Role.EDITOR):
        account = make_user(username)
        services.membership_add(workspace=workspace, username=username, role=role)
        return account

    return make


@pytest.fixture
def web(client, user, workspace):
    """A browser-less client signed in as the workspace owner."""
    client.force_login(user)
    return client


@pytest.fixture
def api(user, workspace):
    """An API client authenticated with a real token of the owner in Acme."""
    issued = services.token_issue(workspace=workspace, user=user, name="tests")
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {issued.key}")
    client.token_key = issued.key
    return client


@pytest.fixture
def outsider_api(outsider):
    from assay.models import Workspace

    issued = services.token_issue(
        workspace=Workspace.objects.get(slug="other"), user=outsider, name="outsider"
    )
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {issued.key}")
    return client


@pytest.fixture
def api_client_for():
    """An API client with a fresh token for any (workspace, user)."""

    def make(workspace, account):
        issued = services.token_issue(workspace=workspace, user=account, name="t")
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=f"Token {issued.key}")
        return client

    return make


@pytest.fixture(scope="session")
def chromium_path():
    from django.conf import settings

    path = settings.ASSAY_CHROMIUM
    found = os.path.exists(path) or shutil.which(path) is not None
    require_service("Chromium", found, f"{path} not found (apt-get install chromium)")
    return path
