"""`assay gate` records the decision by default, so a CI run tells the workspace's gate.failed
webhooks without extra flags, once however often the job is re-run; `--no-record` (and
`Client.gate(record=False)`) only reads, which is what a viewer's token may do."""

from __future__ import annotations

import pytest
from assay_client import Client
from assay_client.cli import main
from click.testing import CliRunner

from assay import services
from assay.models import Membership
from assay.vocabulary import EventType
from experiments.models import GateDecision
from notifications.services import endpoint_create
from tests.support.gate_runs import pairs, verdict_runs

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def listening(workspace, user):
    endpoint, _secret = endpoint_create(
        workspace=workspace,
        user=user,
        url="http://127.0.0.1:9/hook",
        events=[EventType.GATE_FAILED],
    )
    return endpoint


@pytest.fixture
def regression(workspace, user) -> list[str]:
    """A completed baseline and a candidate that regresses (scored in this process)."""
    made = verdict_runs(workspace=workspace, user=user)(*pairs(down=25, up=2), name="Nightly")
    return [str(run.public_id) for run in made]


@pytest.fixture
def ci_env(clean_env, monkeypatch, live_server, token):
    """What a CI job sets: the server (no worker needed, the runs are scored) and a token."""
    monkeypatch.setenv("ASSAY_URL", live_server.url)
    monkeypatch.setenv("ASSAY_TOKEN", token)
    return monkeypatch


def gate(*flags: str, ids: list[str]):
    return CliRunner().invoke(main, ["gate", "--baseline", ids[0], "--candidate", ids[1], *flags])


def test_the_command_records_by_default_and_announces_once(ci_env, listening, regression):
    first = gate(ids=regression)
    assert first.exit_code == 1, first.output
    assert "Reader: pass rate dropped 11.5 pts" in first.stdout
    rerun = gate("--json", ids=regression)  # the same job run again
    assert rerun.exit_code == 1 and '"failure_announced_at": "' in rerun.stdout
    [decision] = GateDecision.objects.all()
    assert decision.passed is False and decision.decided_by.username == "alice"
    assert listening.deliveries.count() == 1
    assert listening.deliveries.get().event.data["candidate"]["id"] == regression[1]


def test_no_record_only_reads(ci_env, listening, regression):
    read = gate("--no-record", ids=regression)
    assert read.exit_code == 1 and "Reader: pass rate dropped 11.5 pts" in read.stdout
    with Client() as client:
        assert client.gate(*regression, record=False).passed is False
    assert not GateDecision.objects.exists() and listening.deliveries.count() == 0
    with Client() as client:
        recorded = client.gate(*regression)
    assert recorded.passed is False and recorded["recorded"]["failure_announced_at"]
    assert GateDecision.objects.count() == 1 and listening.deliveries.count() == 1


def test_a_viewers_token_is_refused_the_record_and_may_read(
    ci_env, listening, regression, workspace, member
):
    viewer = member("vic", Membership.Role.VIEWER)
    ci_env.setenv(
        "ASSAY_TOKEN", services.token_issue(workspace=workspace, user=viewer, name="ci").key
    )
    refused = gate(ids=regression)
    assert refused.exit_code == 2, refused.output
    assert "Your role in this workspace does not allow this." in refused.stderr
    read = gate("--no-record", ids=regression)
    assert read.exit_code == 1 and "Assay gate FAILED" in read.stdout
    assert not GateDecision.objects.exists() and listening.deliveries.count() == 0
