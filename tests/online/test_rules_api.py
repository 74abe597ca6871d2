"""Online rules through the API: created with validated filters and mappings, every problem
named at once and nothing half-saved, changed, paused, deleted; outsiders see nothing and
cannot use their own workspace with Acme's evaluator versions."""

import pytest

from online.models import OnlineRule, RuleEvaluator
from tests.support.factories import make_code_version

pytestmark = pytest.mark.django_db

URL = "/api/v1/online-rules/"


@pytest.fixture
def version(workspace, user):
    return make_code_version(workspace=workspace, user=user, name="Contains")


def _details(answer) -> dict:
    """The API's problems by field ({"error": {"code", "message", "details"}})."""
    return answer.json()["error"]["details"]


def _body(version, **fields):
    mapping = {"actual_output": "span:output", "reference_output": "attribute:expected"}
    return {
        "name": "LLM answers",
        "filter": {"all": [{"field": "kind", "op": "eq", "value": "llm"}]},
        "sampling_rate": 0.1,
        "evaluators": [{"evaluator_version": str(version.public_id), "mapping": mapping}],
        **fields,
    }


def test_a_rule_is_created_with_its_evaluators(api, version):
    answer = api.post(URL, _body(version, daily_item_budget=500), format="json")
    assert answer.status_code == 201, answer.content
    rule = answer.json()
    assert (rule["scope"], rule["environment"], rule["sampling_rate"]) == (
        "span",
        "production",
        0.1,
    )
    assert rule["daily_item_budget"] == 500 and rule["active"] is True
    [evaluator] = rule["evaluators"]
    assert evaluator["evaluator_version"] == str(version.public_id)
    assert evaluator["mapping"]["reference_output"] == "attribute:expected"
    assert api.get(f"{URL}{rule['id']}/").json()["name"] == "LLM answers"
    assert [r["name"] for r in api.get(URL).json()["results"]] == ["LLM answers"]


def test_a_version_named_by_name_at_version_and_a_suggested_mapping(api, workspace, user):
    make_code_version(workspace=workspace, user=user, name="Echo", source=_ECHO_OUTPUT)
    body = {"name": "echo", "evaluators": [{"evaluator_version": "Echo@1.0.0"}]}
    answer = api.post(URL, body, format="json")
    assert answer.status_code == 400, answer.json()  # reference_output has no span field
    assert _details(answer).get("evaluators[0].mapping") == [
        "Required variable 'reference_output' is not mapped."
    ]


_ECHO_OUTPUT = """def exec_evaluation(turn):
    return EvalOutput(score=1.0, reason="ok")
"""


def test_every_problem_is_named_and_nothing_is_saved(api, version):
    body = _body(
        version,
        name=" ",
        sampling_rate=1.5,
        idle_seconds=0,
        filter={"all": [{"field": "colour", "op": "eq", "value": "x"}]},
        evaluators=[
            {"evaluator_version": str(version.public_id), "mapping": {"actual_output": "span:nope"}}
        ],
    )
    answer = api.post(URL, body, format="json")
    assert answer.status_code == 400
    errors = _details(answer)
    assert set(errors) >= {
        "name",
        "sampling_rate",
        "idle_seconds",
        "filter",
        "evaluators[0].mapping",
    }, errors
    assert "unknown field 'colour'" in errors["filter"][0]
    assert "unknown source 'span:nope'" in " ".join(errors["evaluators[0].mapping"])
    assert not OnlineRule.objects.exists() and not RuleEvaluator.objects.exists()


def test_a_source_the_scope_lacks_and_a_type_clash_are_refused(api, version):
    wrong_scope = {"actual_output": "trace:trajectory", "reference_output": "attribute:x"}
    wrong_type = {"actual_output": "span:input_messages", "reference_output": "attribute:x"}
    for mapping, words in ((wrong_scope, "a span rule has no"), (wrong_type, "is Text but")):
        entry = {"evaluator_version": str(version.public_id), "mapping": mapping}
        answer = api.post(URL, _body(version, evaluators=[entry]), format="json")
        assert answer.status_code == 400
        assert words in _details(answer)["evaluators[0].mapping"][0]


def test_names_are_unique_in_a_workspace(api, version):
    assert api.post(URL, _body(version), format="json").status_code == 201
    again = api.post(URL, _body(version), format="json")
    assert again.status_code == 400
    assert _details(again)["name"] == ["A rule of that name exists already."]
    assert OnlineRule.objects.count() == 1


def test_change_pause_and_delete(api, version, workspace, user):
    rule = api.post(URL, _body(version), format="json").json()
    other = make_code_version(workspace=workspace, user=user, name="Other")
    mapping = {"actual_output": "span:output", "reference_output": "attribute:y"}
    changed = api.patch(
        f"{URL}{rule['id']}/",
        {
            "active": False,
            "sampling_rate": 0.25,
            "evaluators": [{"evaluator_version": str(other.public_id), "mapping": mapping}],
        },
        format="json",
    )
    assert changed.status_code == 200, changed.content
    shown = changed.json()
    assert (shown["active"], shown["sampling_rate"], shown["name"]) == (False, 0.25, "LLM answers")
    assert [e["evaluator_name"] for e in shown["evaluators"]] == ["Other"]
    refused = api.patch(f"{URL}{rule['id']}/", {"sampling_rate": 0}, format="json")
    assert refused.status_code == 400
    assert OnlineRule.objects.get().sampling_rate == 0.25
    assert api.delete(f"{URL}{rule['id']}/").status_code == 204
    assert not OnlineRule.objects.exists()


def test_a_viewer_reads_but_does_not_write(api, api_client_for, member, workspace, version):
    rule = api.post(URL, _body(version), format="json").json()
    viewer = api_client_for(workspace, member("vera", role="viewer"))
    assert viewer.get(f"{URL}{rule['id']}/").status_code == 200
    assert viewer.post(URL, _body(version, name="x"), format="json").status_code == 403
    assert viewer.patch(f"{URL}{rule['id']}/", {"active": False}, format="json").status_code == 403
    assert viewer.delete(f"{URL}{rule['id']}/").status_code == 403


def test_outsiders_see_nothing_and_cannot_use_acmes_versions(api, outsider_api, version):
    rule = api.post(URL, _body(version), format="json").json()
    assert outsider_api.get(URL).json()["results"] == []
    for method in ("get", "patch", "delete"):
        answer = getattr(outsider_api, method)(f"{URL}{rule['id']}/", {}, format="json")
        assert answer.status_code == 404, method
    foreign = outsider_api.post(URL, _body(version, name="theirs"), format="json")
    assert foreign.status_code == 400
    assert _details(foreign)["evaluators[0].evaluator_version"] == [
        "No such evaluator version in this workspace."
    ]
    assert OnlineRule.objects.count() == 1
