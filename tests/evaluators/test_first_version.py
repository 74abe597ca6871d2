"""One first-version convention: evaluators and evaluation sets both propose 1.0.0 first, then
the next patch; an evaluator already at 0.0.x goes on from there (issue 28)."""

import pytest

from evalsets import services as evalset_services
from evalsets.services.versions import next_version as evalset_next_version
from evaluators import services

pytestmark = pytest.mark.django_db


def test_an_evaluator_and_an_evalset_both_start_at_1_0_0(workspace, user, code_evaluator):
    evalset = evalset_services.evalset_create(
        workspace=workspace,
        user=user,
        name="Questions",
        columns=[{"name": "input", "content_type": "Text"}],
    )
    assert services.next_version(code_evaluator) == "1.0.0"
    assert evalset_next_version(evalset) == "1.0.0"
    services.evaluator_submit_version(evaluator=code_evaluator, user=user, version="1.0.0")
    assert services.next_version(code_evaluator) == "1.0.1"


def test_an_evaluator_numbered_before_the_change_keeps_its_numbers(user, code_evaluator):
    services.evaluator_submit_version(evaluator=code_evaluator, user=user, version="0.0.1")
    assert services.next_version(code_evaluator) == "0.0.2"


def test_the_submit_dialog_proposes_1_0_0(web, code_evaluator):
    page = web.get(f"/w/acme/evaluators/{code_evaluator.public_id}/")
    assert 'value="1.0.0"' in page.content.decode()
