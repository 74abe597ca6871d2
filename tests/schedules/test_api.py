"""/api/v1/experiment-templates/: create (validated as an experiment, every problem named by
its field), save an experiment as a template (its secrets named, never copied), launch, the run
history, schedules with their next five times, pause/resume; outsiders and viewers."""

import pytest

from assay.models import Membership
from schedules.models import ExperimentTemplate, Schedule
from tests.support.factories import make_code_version, make_evalset_version, qa_rows, run_inline

pytestmark = pytest.mark.django_db

URL = "/api/v1/experiment-templates/"
SECRET = "sk-live-very-secret-value-0123"


@pytest.fixture
def parts(workspace, user):
    version = make_evalset_version(workspace=workspace, user=user, rows=qa_rows(4))
    evaluator = make_code_version(workspace=workspace, user=user)
    return version, evaluator


def body(parts, **changes):
    version, evaluator = parts
    made = {
        "name": "Nightly QA",
        "evalset_version": str(version.public_id),
        "bindings": [{"evaluator_version": "Contains@1.0.0", "latest": True}],
        "name_pattern": "nightly {date}",
    }
    return {**made, **changes}


def test_create_launch_and_history(api, parts, workspace):
    created = api.post(URL, body(parts, evalset_latest=True), format="json")
    assert created.status_code == 201, created.content
    template = created.json()
    assert template["evalset_latest"] is True and template["evalset_version"] is None
    assert template["bindings"][0]["latest"] is True and template["bindings"][0]["version"] is None
    launched = api.post(f"{URL}{template['id']}/launch/")
    assert launched.status_code == 202, launched.content
    run = launched.json()
    assert run["outcome"] == "launched" and run["experiment"]["name"].startswith("nightly 20")
    assert run["comparison"] == "pending"
    history = api.get(f"{URL}{template['id']}/runs/").json()
    assert [r["id"] for r in history] == [run["id"]]
    experiment = workspace.experiments.get(public_id=run["experiment"]["id"])
    assert experiment.bindings.get().evaluator_version.version == "1.0.0"


def test_a_baseline_is_set_and_cleared(api, parts, workspace, user):
    template = api.post(URL, body(parts), format="json").json()
    done = run_inline(workspace=workspace, user=user, version=parts[0], evaluator_version=parts[1])
    url = f"{URL}{template['id']}/"
    marked = api.patch(url, {"baseline": str(done.public_id)}, format="json")
    assert marked.status_code == 200 and marked.json()["baseline"]["id"] == str(done.public_id)
    for empty in ("", None):
        cleared = api.patch(url, {"baseline": empty}, format="json")
        assert cleared.status_code == 200 and cleared.json()["baseline"] is None


@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"name": " "}, "name"),
        ({"evalset_version": "nope@9.9.9"}, "evalset_version"),
        ({"bindings": [{"evaluator_version": "Missing@1.0.0"}]}, "bindings[0].evaluator_version"),
        (
            {
                "bindings": [
                    {
                        "evaluator_version": "Contains@1.0.0",
                        "mapping": {"actual_output": "column:nope"},
                    }
                ]
            },
            "bindings[0].mapping",
        ),
        ({"bindings": []}, "bindings"),
        ({"repetitions": 0}, "repetitions"),
        ({"concurrency": 1000}, "concurrency"),
        ({"target": {"kind": "teleport"}}, "target.kind"),
        ({"name_pattern": "nightly {date.year}"}, "name_pattern"),
        ({"name_pattern": "{oops}"}, "name_pattern"),
        ({"baseline": "00000000-0000-0000-0000-000000000000"}, "baseline"),
    ],
)
def test_problems_are_named_by_field_and_nothing_is_saved(api, parts, changes, field):
    response = api.post(URL, body(parts, **changes), format="json")
    assert response.status_code == 400, response.content
    assert field in response.json()["error"]["details"], response.json()
    assert ExperimentTemplate.objects.count() == 0


def test_a_name_is_unique_in_the_workspace(api, parts):
    assert api.post(URL, body(parts), format="json").status_code == 201
    again = api.post(URL, body(parts), format="json")
    assert again.status_code == 400 and "name" in again.json()["error"]["details"]


def test_save_as_template_names_the_secret_and_never_copies_it(api, parts):
    version, _evaluator = parts
    secret = {"name": "API_KEY", "value": SECRET, "origins": ["https://app.example.com"]}
    assert api.post("/api/v1/secrets/", secret, format="json").status_code == 201
    target = {
        "kind": "http",
        "url": "https://app.example.com/answer",
        "headers": {"Authorization": "Bearer {{secrets.API_KEY}}"},
        "body": {"q": "{{input}}"},
        "output": "answer",
    }
    experiment = api.post(
        "/api/v1/experiments/",
        {"name": "run", "evalset_version": str(version.public_id), "target": target,
         "bindings": [{"evaluator_version": "Contains@1.0.0"}]},
        format="json",
    )  # fmt: skip
    assert experiment.status_code == 201, experiment.content
    saved = api.post(
        f"{URL}from-experiment/",
        {"experiment": experiment.json()["id"], "name": "From run"},
        format="json",
    )
    assert saved.status_code == 201, saved.content
    stored = ExperimentTemplate.objects.get(name="From run")
    assert stored.target_config["headers"] == {"Authorization": "Bearer {{secrets.API_KEY}}"}
    assert SECRET not in str(stored.target_config) and SECRET not in saved.content.decode()
    assert str(stored.saved_from.public_id) == experiment.json()["id"]
    launched = api.post(f"{URL}{saved.json()['id']}/launch/")
    assert launched.status_code == 202, launched.content


def test_schedules_show_five_times_and_pause(api, parts):
    template = api.post(URL, body(parts), format="json").json()
    url = f"{URL}{template['id']}/schedules/"
    bad = api.post(url, {"cron": "every night", "timezone": "Mars/Base"}, format="json")
    assert bad.status_code == 400
    assert {"cron", "timezone"} <= set(bad.json()["error"]["details"])
    made = api.post(url, {"cron": "0 2 * * *", "timezone": "Asia/Shanghai"}, format="json")
    assert made.status_code == 201, made.content
    schedule = made.json()
    assert len(schedule["next_runs"]) == 5 and all(
        t.endswith("18:00:00+00:00") for t in schedule["next_runs"]
    )
    paused = api.patch(f"{url}{schedule['id']}/", {"paused": True}, format="json")
    assert paused.status_code == 200 and paused.json()["paused"] is True
    assert Schedule.objects.get().paused is True
    listed = api.get(url).json()
    assert [s["id"] for s in listed.get("results", listed)] == [schedule["id"]]


def test_an_outsider_and_foreign_ids_get_404(
    api, outsider_api, parts, workspace, user, api_client_for, outsider
):
    template = api.post(URL, body(parts), format="json").json()
    schedule = api.post(
        f"{URL}{template['id']}/schedules/", {"cron": "0 2 * * *", "timezone": "UTC"}, format="json"
    ).json()
    for url in (
        f"{URL}{template['id']}/",
        f"{URL}{template['id']}/runs/",
        f"{URL}{template['id']}/schedules/{schedule['id']}/",
    ):
        assert outsider_api.get(url).status_code == 404
    assert outsider_api.post(f"{URL}{template['id']}/launch/").status_code == 404
    assert outsider_api.delete(f"{URL}{template['id']}/").status_code == 404
    # the outsider's own workspace, naming Acme's versions and experiment in a body
    foreign = outsider_api.post(URL, body(parts), format="json")
    assert foreign.status_code == 400
    assert "evalset_version" in foreign.json()["error"]["details"]
    experiment = run_inline(
        workspace=workspace, user=user, version=parts[0], evaluator_version=parts[1]
    )
    saved = outsider_api.post(
        f"{URL}from-experiment/",
        {"experiment": str(experiment.public_id), "name": "x"},
        format="json",
    )
    assert saved.status_code == 404
    assert ExperimentTemplate.objects.count() == 1


def test_a_viewer_reads_but_cannot_launch_or_change(api, parts, member, api_client_for, workspace):
    template = api.post(URL, body(parts), format="json").json()
    viewer = api_client_for(workspace, member("vic", Membership.Role.VIEWER))
    assert viewer.get(f"{URL}{template['id']}/").status_code == 200
    assert viewer.post(f"{URL}{template['id']}/launch/").status_code == 403
    assert viewer.patch(f"{URL}{template['id']}/", {"name": "x"}, format="json").status_code == 403
    assert (
        viewer.post(
            f"{URL}{template['id']}/schedules/",
            {"cron": "0 2 * * *", "timezone": "UTC"},
            format="json",
        ).status_code
        == 403
    )
    editor = api_client_for(workspace, member("eddie", Membership.Role.EDITOR))
    assert editor.post(f"{URL}{template['id']}/launch/").status_code == 202
