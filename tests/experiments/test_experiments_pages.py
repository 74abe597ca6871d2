"""Experiment pages: list with live progress, the new-experiment form, the experiment page."""

import pytest
from django.contrib.auth import get_user_model

from assay.models import Membership
from evaluators import services as evaluator_services
from experiments import scoring as engine
from experiments import services
from experiments.models import Experiment, ExperimentStatus
from tests.support.factories import (
    TEXT_COLUMNS,
    make_code_version,
    make_evalset_version,
    qa_rows,
)

pytestmark = pytest.mark.django_db

ECHO = """def exec_evaluation(turn):
    output = turn["evaluate_target_output_fields"]["actual_output"]["text"]
    return EvalOutput(score=0.0, reason="said: " + output)
"""


@pytest.fixture
def evalset_version(workspace, user):
    return make_evalset_version(workspace=workspace, user=user, rows=qa_rows(40, error_every=10))


@pytest.fixture
def evaluator_version(workspace, user):
    return make_code_version(workspace=workspace, user=user)


def run(workspace, user, evalset_version, versions, name="done"):
    experiment = services.experiment_create(
        workspace=workspace,
        user=user,
        name=name,
        evalset_version=evalset_version,
        bindings=[{"evaluator_version": v} for v in versions],
        chunk_size=10,
    )
    services.experiment_launch(experiment=experiment)
    return engine.experiment_run_inline(experiment_id=experiment.pk)


@pytest.fixture
def finished(workspace, user, evalset_version, evaluator_version):
    return run(workspace, user, evalset_version, [evaluator_version])


def url(name, **kwargs):
    from django.urls import reverse

    return reverse(f"experiments:{name}", kwargs={"ws": "acme", **kwargs})


def page_of(experiment, name="detail", query=""):
    return url(name, id=experiment.public_id) + query


# ----------------------------------------------------------------------------- list


def test_list_polls_only_while_something_is_active(
    web, finished, workspace, user, evalset_version, evaluator_version
):
    body = web.get(url("list")).content.decode()
    assert "done" in body and 'data-status="completed"' in body and "40 of 40 results" in body
    assert "hx-trigger" not in body  # nothing running: no polling
    queued = services.experiment_create(
        workspace=workspace,
        user=user,
        name="next",
        evalset_version=evalset_version,
        bindings=[{"evaluator_version": evaluator_version}],
    )
    services.experiment_launch(experiment=queued)
    body = web.get(url("list")).content.decode()
    assert 'hx-get="/w/acme/experiments/rows/"' in body and 'hx-trigger="every 1500ms"' in body
    rows = web.get(url("list_rows") + "?status=queued").content.decode()
    assert rows.startswith('<div id="experiment-rows"') and "next" in rows and "done" not in rows
    assert "?status=queued" in rows  # the poll keeps the filter
    Experiment.objects.filter(pk=queued.pk).update(status=ExperimentStatus.CANCELLED)
    assert "hx-trigger" not in web.get(url("list_rows")).content.decode()


def test_empty_list_offers_a_new_experiment(web):
    body = web.get(url("list")).content.decode()
    assert "No experiments yet" in body and url("new") in body


# ----------------------------------------------------------------------------- new


def form_data(evalset_version, evaluator_version, step="launch", **extra):
    vid = evaluator_version.public_id
    data = {
        "name": "From the form",
        "description": "",
        "evalset_version": str(evalset_version.public_id),
        "target_kind": "none",
        "evaluator_versions": [str(vid)],
        "concurrency": "4",
        "chunk_size": "10",
        f"map__{vid}__actual_output": "column:actual_output",
        f"map__{vid}__reference_output": "column:reference_output",
        f"policy__{vid}__kind": "threshold",
        f"policy__{vid}__threshold": "0.7",
        "step": step,
    }
    data.update(extra)
    return data


def test_new_form_lists_versions_and_suggests_mappings(web, evalset_version, evaluator_version):
    page = web.get(url("new")).content.decode()
    assert f'value="{evalset_version.public_id}"' in page and "QA @ 1.0.0 · 40 rows" in page
    assert "Contains @ 1.0.0 (Code)" in page and 'id="launch-experiment"' in page
    vid = evaluator_version.public_id
    plan = web.post(
        url("new_plan"),
        {
            "evalset_version": str(evalset_version.public_id),
            "target_kind": "none",
            "evaluator_versions": [str(vid)],
        },
    ).content.decode()
    assert f'name="map__{vid}__actual_output"' in plan
    assert '<option value="column:actual_output" selected>' in plan
    assert '<option value="column:reference_output" selected>' in plan
    assert "target output" not in plan and "Results to compute" in plan and ">40<" in plan
    with_target = web.post(
        url("new_plan"),
        {
            "evalset_version": str(evalset_version.public_id),
            "target_kind": "prompt",
            "evaluator_versions": [str(vid)],
        },
    ).content.decode()
    # with a prompt target, output-like variables are suggested from the target's answer
    assert '<option value="target:actual_output" selected>' in with_target


def test_new_form_launches(web, evalset_version, evaluator_version):
    response = web.post(url("new"), form_data(evalset_version, evaluator_version))
    experiment = Experiment.objects.get()
    assert response.status_code == 302 and response["Location"] == page_of(experiment)
    assert experiment.status == ExperimentStatus.QUEUED and experiment.chunk_size == 10
    binding = experiment.bindings.get()
    assert binding.policy == {"kind": "threshold", "threshold": 0.7}
    assert binding.mapping["reference_output"] == "column:reference_output"
    assert "Experiment launched" in web.get(response["Location"]).content.decode()


def test_new_form_saves_a_draft_that_launches_later(web, evalset_version, evaluator_version):
    response = web.post(url("new"), form_data(evalset_version, evaluator_version, step="draft"))
    experiment = Experiment.objects.get()
    assert experiment.status == ExperimentStatus.DRAFT
    page = web.get(response["Location"]).content.decode()
    assert 'id="launch-button"' in page and "Launch the experiment to fill this table" in page
    web.post(page_of(experiment, "launch"))
    experiment.refresh_from_db()
    assert experiment.status == ExperimentStatus.QUEUED
    again = web.post(page_of(experiment, "launch"), follow=True).content.decode()
    assert "Only a draft can be launched" in again


def test_refresh_step_rerenders_without_saving(web, evalset_version, evaluator_version):
    response = web.post(url("new"), form_data(evalset_version, evaluator_version, step="refresh"))
    assert response.status_code == 200 and Experiment.objects.count() == 0
    assert 'value="0.7"' in response.content.decode()


@pytest.mark.parametrize(
    "change, message",
    [
        ({"reference_output": ""}, "Required variable &#x27;reference_output&#x27; is not mapped"),
        ({"actual_output": "column:photo"}, "is Text but column &#x27;photo&#x27; is Image"),
    ],
)
def test_new_form_mapping_errors_show_and_save_nothing(
    web, workspace, user, evaluator_version, change, message
):
    columns = TEXT_COLUMNS + [
        {"name": "photo", "content_type": "Image", "required": False, "description": ""}
    ]
    version = make_evalset_version(workspace=workspace, user=user, rows=qa_rows(3), columns=columns)
    vid = evaluator_version.public_id
    data = form_data(
        version, evaluator_version, **{f"map__{vid}__{k}": v for k, v in change.items()}
    )
    response = web.post(url("new"), data)
    assert response.status_code == 400
    assert message in response.content.decode()
    assert Experiment.objects.count() == 0


@pytest.mark.parametrize(
    "extra, message",
    [
        ({"name": ""}, "This field is required"),
        ({"evaluator_versions": []}, "This field is required"),
        ({"target_kind": "prompt"}, "Choose the provider the target prompt runs on"),
        ({"chunk_size": "3"}, "greater than or equal to 10"),
    ],
)
def test_new_form_bad_input_is_reported(web, evalset_version, evaluator_version, extra, message):
    response = web.post(url("new"), form_data(evalset_version, evaluator_version, **extra))
    assert response.status_code == 400 and message in response.content.decode()
    assert Experiment.objects.count() == 0


def test_new_form_rejects_another_workspaces_versions(
    web, outsider, evalset_version, evaluator_version
):
    from assay.models import Workspace

    other = Workspace.objects.get(slug="other")
    foreign = make_code_version(workspace=other, user=outsider)
    data = form_data(
        evalset_version, evaluator_version, evaluator_versions=[str(foreign.public_id)]
    )
    response = web.post(url("new"), data)
    assert response.status_code == 400 and "is not one of the available choices" in (
        response.content.decode()
    )
    assert Experiment.objects.count() == 0


# ----------------------------------------------------------------------------- one experiment


def test_experiment_page_shows_progress_counts_summary_and_results(web, finished):
    page = web.get(page_of(finished)).content.decode()
    assert 'data-status="completed"' in page and "40 of 40 results · 100.0%" in page
    assert 'data-status="error">error <strong>4</strong>' in page
    assert 'data-verdict="pass">pass 20' in page and 'data-verdict="fail">fail 16' in page
    assert "rows/s" in page and 'id="eta">—' in page
    assert "<code>reference_output</code> ← <code>column:reference_output</code>" in page
    assert "pass if score ≥ 0.5" in page
    assert '<section id="dashboard"' in page and "20 pass, 16 fail, 4 unknown" in page
    assert page.count('<tr data-item-id="') == 40
    assert 'id="retry-button"' in page and "Retry 4 rows that errored or timed out" in page
    assert 'id="cancel-button"' not in page and 'hx-trigger="every' not in page


def test_results_table_filters(web, finished):
    def rows(query: str) -> int:
        return web.get(page_of(finished, query=query)).content.decode().count("<tr data-item-id=")

    assert rows("?verdict=fail") == 16 and rows("?status=error") == 4
    assert rows("?tag=even") == 20 and rows("?q=ZeroDivision") == 4
    assert rows("?score_min=0.5") == 20 and rows(f"?evaluator={finished.bindings.get().pk}") == 40
    bad = web.get(page_of(finished, query="?score_min=lots")).content.decode()
    assert 'id="filter-error"' in bad and "score_min" in bad and '<tr data-item-id="' not in bad


def test_untrusted_text_is_escaped(web, workspace, user):
    rows = [
        {
            "input": "q",
            "actual_output": "<img src=x onerror=alert(1)>",
            "reference_output": "r",
            "tags": ["<b>tag</b>"],
        }
    ]
    version = make_evalset_version(workspace=workspace, user=user, rows=rows, name="XSS")
    echo = make_code_version(workspace=workspace, user=user, name="Echo", source=ECHO)
    experiment = run(workspace, user, version, [echo], name="<script>alert(1)</script>")
    page = web.get(page_of(experiment)).content.decode()
    listing = web.get(url("list")).content.decode()
    for body in (page, listing):
        assert "<script>alert(1)</script>" not in body
        assert "&lt;script&gt;alert(1)&lt;/script&gt;" in body
    assert "<img src=x" not in page and "said: &lt;img src=x onerror=alert(1)&gt;" in page
    assert "<b>tag</b>" not in page and "&lt;b&gt;tag&lt;/b&gt;" in page


def test_progress_partial_polls_while_active_then_reloads(
    web, workspace, user, evalset_version, evaluator_version
):
    experiment = services.experiment_create(
        workspace=workspace,
        user=user,
        name="live",
        evalset_version=evalset_version,
        bindings=[{"evaluator_version": evaluator_version}],
        chunk_size=10,
    )
    services.experiment_launch(experiment=experiment)
    page = web.get(page_of(experiment)).content.decode()
    assert f'hx-get="{page_of(experiment, "progress")}?active=1"' in page
    assert 'id="cancel-button"' in page
    partial = web.get(page_of(experiment, "progress", "?active=1"))
    assert partial.content.decode().startswith('<section class="card" id="progress"')
    assert "0 of 40 results" in partial.content.decode()
    # the title's badge follows the status (an out-of-band swap), once, and not in the page
    assert partial.content.decode().count('id="title-status" hx-swap-oob="true"') == 1
    assert "queued" in partial.content.decode().split('id="title-status"')[1]
    assert page.count('id="title-status"') == 1
    engine.experiment_run_inline(experiment_id=experiment.pk)
    done = web.get(page_of(experiment, "progress", "?active=1"))
    assert done["HX-Refresh"] == "true"  # the page reloads once to show the final numbers
    assert "hx-trigger" not in web.get(page_of(experiment, "progress")).content.decode()


def test_cancel_retry_and_clone_buttons(
    web, finished, workspace, user, evalset_version, evaluator_version
):
    not_cancelled = web.post(page_of(finished, "cancel"), follow=True).content.decode()
    assert "A completed experiment cannot be cancelled" in not_cancelled

    retried = web.post(page_of(finished, "retry"), follow=True).content.decode()
    assert "Retrying 4 failed rows" in retried
    finished.refresh_from_db()
    assert finished.status == ExperimentStatus.QUEUED and finished.retry_round == 1
    engine.experiment_run_inline(experiment_id=finished.pk)

    evaluator = evaluator_version.evaluator
    evaluator_services.evaluator_update_draft(evaluator=evaluator, user=user, description="second")
    evaluator_services.evaluator_submit_version(evaluator=evaluator, user=user, version="1.1.0")
    page = web.get(page_of(finished)).content.decode()
    assert f'name="version__{evaluator.public_id}"' in page and ">1.1.0</option>" in page
    response = web.post(
        page_of(finished, "clone"),
        {
            "name": "second look",
            "evalset_version": str(evalset_version.public_id),
            f"version__{evaluator.public_id}": "1.1.0",
        },
    )
    clone = Experiment.objects.get(name="second look")
    assert response["Location"] == page_of(clone) and clone.status == ExperimentStatus.DRAFT
    assert clone.bindings.get().evaluator_version.version == "1.1.0"
    assert clone.cloned_from_id == finished.pk
    bad = web.post(page_of(finished, "clone"), {"name": "", "evalset_version": "x"}, follow=True)
    assert "Could not clone" in bad.content.decode() and Experiment.objects.count() == 2


def test_nothing_to_retry_is_a_message(web, workspace, user, evaluator_version):
    version = make_evalset_version(workspace=workspace, user=user, rows=qa_rows(4), name="ok")
    clean = run(workspace, user, version, [evaluator_version])
    page = web.get(page_of(clean)).content.decode()
    assert 'id="retry-button"' not in page
    body = web.post(page_of(clean, "retry"), follow=True).content.decode()
    assert "There are no failed rows to retry" in body


# ----------------------------------------------------------------------------- access


def test_outsider_gets_404(client, outsider, finished):
    client.force_login(outsider)
    for name in ("detail", "progress"):
        assert client.get(page_of(finished, name)).status_code == 404
    for name in ("launch", "cancel", "retry", "clone"):
        assert client.post(page_of(finished, name)).status_code == 404
    assert client.get(url("list")).status_code == 404
    finished.refresh_from_db()
    assert finished.status == ExperimentStatus.COMPLETED and Experiment.objects.count() == 1


def test_viewer_sees_no_buttons_and_cannot_post(
    client, member, finished, evalset_version, evaluator_version
):
    viewer = member("vic", Membership.Role.VIEWER)
    client.force_login(viewer)
    page = client.get(page_of(finished)).content.decode()
    assert "20 pass, 16 fail, 4 unknown" in page
    assert 'id="retry-button"' not in page and 'id="clone-button"' not in page
    assert client.post(page_of(finished, "retry")).status_code == 403
    response = client.post(url("new"), form_data(evalset_version, evaluator_version))
    assert response.status_code == 403 and Experiment.objects.count() == 1


def test_anonymous_is_sent_to_sign_in(client, finished):
    response = client.get(page_of(finished))
    assert response.status_code == 302 and "/accounts/login/" in response["Location"]
    assert get_user_model().objects.count() == 1


# ----------------------------------------------------------------------------- demo


def test_demo_loads_finished_runs_a_baseline_a_pushed_run_and_a_rescore(workspace, user):
    from experiments.demo import BASELINE, GARAK_RUN, PUSHED, RESCORED, STRICTER, demo_load
    from experiments.demo_simulated import SIMULATED_RUN
    from experiments.models import Aggregate, TargetResult
    from experiments.pairwise.demo import PAIRWISE_APPS

    demo_load(workspace=workspace, user=user)
    demo_load(workspace=workspace, user=user)  # idempotent: nothing doubled
    mine = Experiment.objects.filter(workspace=workspace).exclude(name__in=PAIRWISE_APPS)
    runs = {e.name: e for e in mine}  # the pairwise demo's apps: test_pairwise_demo
    # (the conversations' runs are checked in test_simulated_user)
    assert set(runs) == {BASELINE, STRICTER, PUSHED, RESCORED, GARAK_RUN, SIMULATED_RUN}
    assert all(e.status == ExperimentStatus.COMPLETED for e in runs.values())
    assert runs[BASELINE].results_done == runs[STRICTER].results_done == 60
    assert runs[STRICTER].cloned_from_id == runs[BASELINE].pk
    assert runs[BASELINE].is_baseline and not runs[STRICTER].is_baseline
    [check] = runs[STRICTER].gate_decisions.all()  # recorded once, as `assay gate` records
    assert check.baseline == runs[BASELINE] and check.passed is False
    lines = {
        name: Aggregate.objects.get(experiment=e).summary
        for name, e in runs.items()
        if name != SIMULATED_RUN
    }
    assert lines[BASELINE]["nones"] == lines[STRICTER]["nones"] == 4
    assert lines[STRICTER]["passed"] < lines[BASELINE]["passed"]

    # the pushed run: 60 rows × 3 repetitions, with usage, and repetitions on the dashboard
    pushed = runs[PUSHED]
    assert pushed.target_kind == "external" and pushed.results_done == 180
    assert TargetResult.objects.filter(experiment=pushed, status="success").count() == 180
    assert 0 < lines[PUSHED]["passed"] < 180
    assert lines[PUSHED]["repetitions"]["k"] == 3
    assert pushed.target_summary["usage"]["cost"] > 0
    assert runs[RESCORED].outputs_from_id == pushed.pk
    assert runs[RESCORED].results_done == 180
    garak = lines[GARAK_RUN]
    assert (garak["passed"], garak["fails"]) == (17, 23)  # as garak's own eval entry says


def test_the_list_shows_each_evaluators_pass_rate_and_filters(web, workspace, user, finished):
    other = make_evalset_version(workspace=workspace, user=user, rows=qa_rows(4), name="Other")
    second = make_code_version(workspace=workspace, user=user, name="Second")
    services.experiment_create(
        workspace=workspace,
        user=user,
        name="elsewhere",
        evalset_version=other,
        bindings=[{"evaluator_version": second}],
    )
    page = web.get("/w/acme/experiments/").content.decode()
    row = page.split(f'data-experiment="{finished.public_id}"')[1].split("</tr>")[0]
    rate = finished.aggregates.get().summary["pass_rate"]
    assert 'class="score-line"' in row and f"{rate * 100:.1f}%" in row and "[" in row
    evalset = finished.evalset_version.evalset.public_id
    only = web.get(f"/w/acme/experiments/?evalset={evalset}").content.decode()
    assert str(finished.public_id) in only and "elsewhere" not in only
    by_evaluator = web.get(f"/w/acme/experiments/?evaluator={second.evaluator.public_id}")
    assert "elsewhere" in by_evaluator.content.decode()
    assert str(finished.public_id) not in by_evaluator.content.decode()
    assert web.get("/w/acme/experiments/?evalset=nonsense").status_code == 200  # ignored
