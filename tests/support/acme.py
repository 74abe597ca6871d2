"""Acme's objects, one of each kind a workspace-scoped URL names: what the outsider tests
(tests/test_outsiders.py) try to reach and the role test (tests/test_roles_routes.py) writes to.
Stored media land under MEDIA_ROOT: point it at a temporary directory first."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from django.core.files.base import ContentFile

from assay import services as platform
from evalsets import services as evalset_services
from evalsets.importing import import_create
from evaluators.models import EvaluatorTestCase
from experiments.models import Result
from experiments.services import garak_import_create
from tests.support.factories import (
    make_code_version,
    make_evalset_version,
    make_provider,
    qa_rows,
    run_inline,
)
from traces.services import ingest_key_issue

KEY = "sk-acme-only-0123456789abcdef"
GARAK_REPORT = (
    Path(__file__).resolve().parent.parent / "fixtures" / "garak" / "random_detector.report.jsonl"
)


@dataclass
class Acme:
    evaluator: str
    version: str
    case: str
    evalset: str
    item: str
    job: str
    experiment: str
    result: int
    provider: str
    token: str
    member: int
    set_version: str
    secret: str
    garak_job: str
    invitation: str = ""
    ingest_key: str = ""


def acme_build(*, workspace, user, server) -> Acme:
    """A provider on `server`, an evalset version of two rows, a code evaluator with a test
    case, a finished experiment, a draft item, an import job, a token, a secret, a queued
    garak import."""
    provider = make_provider(workspace=workspace, server=server, api_key=KEY)
    version = make_evalset_version(workspace=workspace, user=user, rows=qa_rows(2))
    code = make_code_version(workspace=workspace, user=user)
    case = EvaluatorTestCase.objects.create(
        evaluator=code.evaluator, name="c", turn={}, expected_verdict="pass"
    )
    experiment = run_inline(workspace=workspace, user=user, version=version, evaluator_version=code)
    evalset = version.evalset
    cell = {"content_type": "Text", "text": "x"}
    item = evalset_services.item_create(
        evalset=evalset, data={"input": cell, "actual_output": cell, "reference_output": cell}
    )
    job = import_create(
        evalset=evalset, user=user, start=False, upload=ContentFile(b"input\nq\n", name="r.csv")
    )
    token = platform.token_issue(workspace=workspace, user=user, name="acme").token
    secret = platform.secret_named_save(workspace=workspace, name="APP_TOKEN", value=KEY)
    scan = ContentFile(GARAK_REPORT.read_bytes(), name="scan.report.jsonl")
    garak_job, _queued = garak_import_create(workspace=workspace, user=user, upload=scan)
    return Acme(
        evaluator=str(code.evaluator.public_id),
        version=code.version,
        case=str(case.public_id),
        evalset=str(evalset.public_id),
        item=str(item.item_id),
        job=str(job.public_id),
        experiment=str(experiment.public_id),
        result=Result.objects.filter(experiment=experiment).first().pk,
        provider=str(provider.public_id),
        token=str(token.public_id),
        member=workspace.memberships.first().pk,
        set_version=str(version.public_id),
        secret=str(secret.public_id),
        garak_job=str(garak_job.public_id),
        ingest_key=str(ingest_key_issue(workspace=workspace, name="acme").ingest_key.public_id),
        invitation=str(
            platform.invitation_create(
                workspace=workspace, user=user, role="editor"
            ).invitation.public_id
        ),
    )
