"""Malformed bodies of the wrong JSON type get a 4xx naming the problem, never a 500."""

import pytest

pytestmark = pytest.mark.django_db

WRONG = ["text", 5, [], {"x": 1}, None, True]


@pytest.mark.parametrize("value", WRONG)
def test_evaluator_fields_of_the_wrong_type(api, value):
    for field in ("config", "default_policy", "tags", "name", "description"):
        body = {"name": "n", "kind": "code", field: value}
        response = api.post("/api/v1/evaluators/", body, format="json")
        assert response.status_code in (201, 400), (field, value, response.content)
        if response.status_code == 400:
            assert response.json()["error"]["details"], (field, value)


@pytest.mark.parametrize("value", WRONG)
def test_experiment_fields_of_the_wrong_type(api, value):
    for field in ("bindings", "target", "evalset_version", "concurrency", "name"):
        response = api.post("/api/v1/experiments/", {"name": "e", field: value}, format="json")
        assert 400 <= response.status_code < 500, (field, value, response.content)


@pytest.mark.parametrize("value", WRONG)
def test_debug_and_compare_bodies_of_the_wrong_type(api, workspace, user, value):
    from evaluators import services

    evaluator = services.evaluator_create(workspace=workspace, user=user, name="d", kind="code")
    for body in ({"turns": value}, {"turns": [value]}, {"turns": [{}], "config": value}):
        response = api.post(f"/api/v1/evaluators/{evaluator.public_id}/debug", body, format="json")
        assert 400 <= response.status_code < 500 or (
            response.status_code == 200 and body.get("config") is None
        ), (body, response.content)
    response = api.get(f"/api/v1/compare?baseline={value}&candidates={value}")
    assert 400 <= response.status_code < 500


@pytest.mark.parametrize("value", WRONG)
def test_evalset_fields_of_the_wrong_type(api, value):
    for field in ("columns", "tags", "name"):
        response = api.post("/api/v1/evalsets/", {"name": "s", field: value}, format="json")
        assert response.status_code in (201, 400), (field, value, response.content)
