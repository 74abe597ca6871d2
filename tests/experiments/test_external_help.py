"""The external target's help: the new-experiment form knows every set and evaluator as the
client names them (its script writes the command for the ones chosen), and a run waiting for
pushed outputs shows its id, the `curl` push and close for this run, and the `assay run`
command with its own set and evaluators — shell-quoted, and gone once the run is closed."""

import json
import shlex

import pytest

from experiments import services
from experiments.targets.external_help import push_command, run_command, shell_quote
from tests.support.factories import make_code_version, make_evalset_version, qa_rows

pytestmark = pytest.mark.django_db

MAPPING = {"actual_output": "target:actual_output", "reference_output": "column:reference_output"}


@pytest.fixture
def waiting(workspace, user):
    version = make_evalset_version(
        workspace=workspace, user=user, rows=qa_rows(3), name="Support FAQ"
    )
    check = make_code_version(workspace=workspace, user=user, name="Bob's check")
    experiment = services.experiment_create(
        workspace=workspace,
        user=user,
        name="pushed",
        evalset_version=version,
        bindings=[{"evaluator_version": check, "mapping": MAPPING}],
        target={"kind": "external"},
        launch=True,
    )
    return experiment, version


def test_the_waiting_run_shows_its_id_and_the_commands_for_it(web, waiting):
    experiment, version = waiting
    page = web.get(f"/w/acme/experiments/{experiment.public_id}/").content.decode()
    first = version.items.order_by("position").values_list("item_id", flat=True)[0]
    assert 'id="external-waiting"' in page
    assert f'<code id="external-id">{experiment.public_id}</code>' in page
    push_url = f"http://testserver/api/v1/experiments/{experiment.public_id}/outputs/"
    assert push_url in page and str(first) in page
    assert f"/api/v1/experiments/{experiment.public_id}/close/" in page
    # the names are this run's, quoted for a shell (HTML-escaped in the page)
    assert "--evalset &#x27;Support FAQ@1.0.0&#x27;" in page
    assert "Bob&#x27;\\&#x27;&#x27;s check@1.0.0" in page
    assert page.count('data-copy="#external-') == 4


def test_a_closed_or_finished_run_does_not_ask_for_outputs(web, waiting, api):
    experiment, _version = waiting
    api.post(f"/api/v1/experiments/{experiment.public_id}/close/")
    page = web.get(f"/w/acme/experiments/{experiment.public_id}/").content.decode()
    assert 'id="external-waiting"' not in page


def test_the_form_knows_each_set_and_evaluator_by_the_name_the_client_takes(web, waiting):
    _experiment, version = waiting
    page = web.get("/w/acme/experiments/new/").content.decode()
    start = page.index('<script id="external-refs" type="application/json">')
    refs = json.loads(page[page.index(">", start) + 1 : page.index("</script>", start)])
    assert refs["evalsets"][str(version.public_id)] == "Support FAQ@1.0.0"
    assert "Bob's check@1.0.0" in refs["evaluators"].values()
    assert "Correctness@1.0.0" not in page  # no evaluator named by the help any more


def test_commands_paste_into_a_shell_as_the_words_meant():
    command = run_command(evalset="Q&A 'v2'@1.0.0", evaluators=["A b@1.0.0", "C@2.0.0"])
    words = shlex.split(command.replace("\\\n", " "))
    assert words[words.index("--evalset") + 1] == "Q&A 'v2'@1.0.0"
    assert [w for i, w in enumerate(words) if words[i - 1] == "--evaluator"] == [
        "A b@1.0.0",
        "C@2.0.0",
    ]
    push = shlex.split(push_command(api="http://h/api/v1/", experiment_id="X", item_id="I"))
    body = json.loads(push[push.index("-d") + 1])
    assert body == {"outputs": [{"item_id": "I", "actual_output": "…"}]}
    assert shlex.split(shell_quote("it's")) == ["it's"]
