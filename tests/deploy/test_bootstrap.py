"""`manage.py bootstrap`: the first administrator from ASSAY_ADMIN_* and the demo with
ASSAY_DEMO=1, safe on every start (compose's init service, the chart's migrations job)."""

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.core.management.base import CommandError

from assay.models import Membership, ModelProvider, Workspace

pytestmark = pytest.mark.django_db
User = get_user_model()


@pytest.fixture
def admin_env(monkeypatch):
    monkeypatch.setenv("ASSAY_ADMIN_USERNAME", "root-admin")
    monkeypatch.setenv("ASSAY_ADMIN_PASSWORD", "a-long-unusual-passphrase")
    monkeypatch.setenv("ASSAY_ADMIN_WORKSPACE", "Platform team")
    monkeypatch.delenv("ASSAY_DEMO", raising=False)
    return monkeypatch


def test_creates_the_administrator_and_a_workspace(admin_env):
    call_command("bootstrap")
    user = User.objects.get(username="root-admin")
    assert user.is_superuser and user.check_password("a-long-unusual-passphrase")
    membership = Membership.objects.get(user=user)
    assert membership.role == Membership.Role.OWNER
    assert membership.workspace.name == "Platform team"


def test_a_second_start_changes_nothing(admin_env):
    call_command("bootstrap")
    user = User.objects.get(username="root-admin")
    user.set_password("changed-in-the-app-later")
    user.save(update_fields=["password"])
    admin_env.setenv("ASSAY_ADMIN_PASSWORD", "a-long-unusual-passphrase")
    call_command("bootstrap")
    user.refresh_from_db()
    assert user.check_password("changed-in-the-app-later")
    assert Workspace.objects.filter(name="Platform team").count() == 1


def test_a_new_administrator_without_a_password_names_the_variable(admin_env):
    admin_env.delenv("ASSAY_ADMIN_PASSWORD")
    with pytest.raises(CommandError, match="ASSAY_ADMIN_PASSWORD"):
        call_command("bootstrap")
    assert not User.objects.filter(username="root-admin").exists()


def test_a_weak_password_is_refused_without_echoing_it(admin_env):
    admin_env.setenv("ASSAY_ADMIN_PASSWORD", "password")
    with pytest.raises(CommandError) as caught:
        call_command("bootstrap")
    assert "ASSAY_ADMIN_PASSWORD" in str(caught.value) and "common" in str(caught.value)
    assert "'password'" not in str(caught.value)
    assert not User.objects.filter(username="root-admin").exists()


def test_nothing_set_does_nothing(monkeypatch):
    for name in ("ASSAY_ADMIN_USERNAME", "ASSAY_ADMIN_PASSWORD", "ASSAY_DEMO"):
        monkeypatch.delenv(name, raising=False)
    call_command("bootstrap")
    assert not User.objects.exists()


def test_assay_demo_loads_the_demo_under_a_production_policy(monkeypatch, settings):
    # compose's init: production refuses loopback providers, the demo's are on this machine
    settings.ASSAY_OUTBOUND_ALLOW = "public"
    monkeypatch.delenv("ASSAY_ADMIN_USERNAME", raising=False)
    monkeypatch.setenv("ASSAY_DEMO", "1")
    call_command("bootstrap")
    workspace = Workspace.objects.get(slug="demo")
    assert ModelProvider.objects.filter(workspace=workspace).exists()
    assert settings.ASSAY_OUTBOUND_ALLOW == "public"
