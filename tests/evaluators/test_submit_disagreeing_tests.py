"""Submitting a version whose test cases disagree asks first on the page (issue 28); the API
still submits and records the result. Real sandbox runs."""

import pytest
from django.urls import reverse

from evaluators import services

pytestmark = pytest.mark.django_db


def url(name, **kwargs):
    return reverse(f"evaluators:{name}", kwargs={"ws": "acme", **kwargs})


def text(value):
    return {"content_type": "Text", "text": value}


@pytest.fixture
def disagreeing(code_evaluator, user):
    """The starter (output equals reference) with a case expecting pass on different texts."""
    turn = {
        "evaluate_dataset_fields": {"reference_output": text("Paris")},
        "evaluate_target_output_fields": {"actual_output": text("Lyon")},
        "ext": {},
    }
    services.testcase_create(
        evaluator=code_evaluator, user=user, name="lyon", turn=turn, expected_verdict="pass"
    )
    return code_evaluator


def test_the_submit_dialog_warns_when_tests_disagree(web, disagreeing):
    partial = web.post(url("tests_run", id=disagreeing.public_id), {"box": "submit"})
    html = partial.content.decode()
    assert "1 of 1 test cases disagrees with its expected verdict." in html
    assert 'id="tests-disagree-ok"' in html and 'form="submit-form"' in html
    panel = web.post(url("tests_run", id=disagreeing.public_id)).content.decode()
    assert 'id="tests-disagree-ok"' not in panel  # the panel's table only reports


def test_submitting_without_saying_so_is_refused_and_saves_nothing(web, disagreeing):
    refused = web.post(url("submit", id=disagreeing.public_id), {"version": "1.0.0"})
    html = refused.content.decode()
    assert refused.status_code == 400 and "disagrees with its expected verdict" in html
    assert 'id="tests-disagree-ok"' in html and not disagreeing.versions.exists()
    submitted = web.post(
        url("submit", id=disagreeing.public_id), {"version": "1.0.0", "tests_disagree_ok": "1"}
    )
    assert submitted.status_code == 302
    assert disagreeing.versions.get().test_result["agreed"] == 0


def test_agreeing_tests_submit_without_a_question(web, code_evaluator, user):
    turn = {
        "evaluate_dataset_fields": {"reference_output": text("Paris")},
        "evaluate_target_output_fields": {"actual_output": text("Paris")},
        "ext": {},
    }
    services.testcase_create(
        evaluator=code_evaluator, user=user, name="paris", turn=turn, expected_verdict="pass"
    )
    response = web.post(url("submit", id=code_evaluator.public_id), {"version": "1.0.0"})
    assert response.status_code == 302 and code_evaluator.versions.exists()


def test_the_api_submits_and_records_disagreeing_tests(api, disagreeing):
    response = api.post(
        f"/api/v1/evaluators/{disagreeing.public_id}/versions/",
        {"version": "1.0.0"},
        format="json",
    )
    assert response.status_code == 201, response.content
    assert response.json()["test_result"]["passed"] is False
