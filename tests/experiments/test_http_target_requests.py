"""What every HTTP-target request carries and what its answer may be: User-Agent and the row's
Idempotency-Key, an answer read streamed up to ASSAY_TARGET_MAX_BYTES (a large valid answer is
parsed whole; a larger one is named as too large), a secret kept out of every stored text even
when the endpoint echoes it, and link-local addresses refused at save and at send."""

import json
import uuid

import pytest
from django.core.exceptions import ValidationError

from assay import services as platform
from experiments import scoring as engine
from experiments import services
from experiments.models import Result, TargetResult
from tests.experiments.test_http_target import by_question, row, rows_version, run, target
from tests.support.factories import make_code_version

SECRET = 'app-"token"\\0123456789-abcdef'  # JSON escapes its quotes and backslash


def sent(app, question):
    return [r for r in app.requests if r.body.get("question") == question]


# ----------------------------------------------------------------------------- who and which row


def test_every_request_says_assay_and_carries_the_rows_idempotency_key(
    workspace, user, contains, app
):
    from experiments.targets.http.call import idempotency_key

    rows = [row("q1", script="500,ok"), row("q2")]
    version = rows_version(workspace, user, rows)
    experiment = services.experiment_create(
        workspace=workspace,
        user=user,
        name="keys",
        evalset_version=version,
        bindings=[{"evaluator_version": contains}],
        target=target(app, headers={}),
        repetitions=2,
        launch=True,
    )
    experiment = engine.experiment_run_inline(experiment_id=experiment.pk)
    assert experiment.status == "completed"
    assert {r.headers["User-Agent"] for r in app.requests} == {"assay/0.1.0"}
    assert {r.headers["baggage"] for r in app.requests} == {
        f"assay.experiment={experiment.public_id}"
    }
    # q1 repetition 0: a 500, then the same request again — with the same key
    keys = {q: [r.headers["Idempotency-Key"] for r in sent(app, q)] for q in ("q1", "q2")}
    assert len(keys["q1"]) == 3 and len(set(keys["q1"])) == 2  # 2 tries of one row + repeat 1
    assert len(set(keys["q1"]) | set(keys["q2"])) == 4  # each (row, repetition) its own key
    items = {i.data["question"]["text"]: i.item_id for i in version.items.all()}
    expected = {
        idempotency_key(run_id=experiment.public_id, item_id=items[q], repeat=k)
        for q in ("q1", "q2")
        for k in (0, 1)
    }
    assert set(keys["q1"]) | set(keys["q2"]) == expected
    assert all(uuid.UUID(key).version == 5 for key in expected)
    # the stored request shows the headers as sent
    shown = TargetResult.objects.get(experiment=experiment, repeat=1, item__item_id=items["q2"])
    assert shown.rendered_request["headers"]["Idempotency-Key"] == idempotency_key(
        run_id=experiment.public_id, item_id=items["q2"], repeat=1
    )
    assert shown.rendered_request["headers"]["User-Agent"] == "assay/0.1.0"


def test_every_request_carries_the_runs_mark_as_baggage(workspace, user, contains, app):
    """The W3C baggage entry that tags the app's spans as Assay's (online rules leave them out),
    read back by OpenTelemetry's own propagator; a config's baggage is kept beside it."""
    from opentelemetry import baggage
    from opentelemetry.baggage.propagation import W3CBaggagePropagator

    version = rows_version(workspace, user, [row("q1")])
    experiment = services.experiment_create(
        workspace=workspace,
        user=user,
        name="marked",
        evalset_version=version,
        bindings=[{"evaluator_version": contains}],
        target=target(app, headers={"Baggage": "tenant=acme"}),
        launch=True,
    )
    engine.experiment_run_inline(experiment_id=experiment.pk)
    [request] = app.requests
    context = W3CBaggagePropagator().extract({"baggage": request.headers["Baggage"]})
    assert baggage.get_all(context) == {
        "tenant": "acme",
        "assay.experiment": str(experiment.public_id),
    }
    shown = TargetResult.objects.get(experiment=experiment).rendered_request["headers"]
    assert shown["Baggage"] == f"tenant=acme,assay.experiment={experiment.public_id}"


def test_another_run_sends_other_keys_and_a_config_cannot_set_the_key(
    workspace, user, contains, app
):
    version = rows_version(workspace, user, [row("q1")])
    run(workspace, user, version, contains, app)
    run(workspace, user, version, contains, app)
    assert len({r.headers["Idempotency-Key"] for r in app.requests}) == 2
    for name in ("Idempotency-Key", "idempotency-key"):
        with pytest.raises(ValidationError) as caught:
            services.experiment_create(
                workspace=workspace,
                user=user,
                name="own key",
                evalset_version=version,
                bindings=[{"evaluator_version": contains}],
                target=target(app, headers={name: "{{item_id}}"}),
            )
        assert "sends Idempotency-Key itself" in caught.value.message_dict["target.headers"][0]


def test_the_configs_own_user_agent_wins(workspace, user, contains, app):
    version = rows_version(workspace, user, [row("q1")])
    headers = {"user-agent": "team-probe/2", "X-Suite": "assay"}
    experiment = run(workspace, user, version, contains, app, headers=headers)
    [request] = app.requests
    names = [name.lower() for name in request.headers]
    assert names.count("user-agent") == 1 and names.count("idempotency-key") == 1
    assert {k.lower(): v for k, v in request.headers.items()}["user-agent"] == "team-probe/2"
    stored = TargetResult.objects.get(experiment=experiment).rendered_request["headers"]
    assert stored["user-agent"] == "team-probe/2" and "User-Agent" not in stored


# ----------------------------------------------------------------------------- answer size


def test_a_valid_300_kb_answer_is_parsed_and_its_stored_output_capped(
    workspace, user, contains, app
):
    version = rows_version(workspace, user, [row("big", script="big:300000"), row("small")])
    experiment = run(workspace, user, version, contains, app)
    big = by_question(experiment, TargetResult)["big"]
    assert big.status == "success", big.error
    assert big.output.startswith("a" * 1000) and "… truncated" in big.output
    assert len(big.output.encode()) < 257 * 1024  # assay/safety/caps.py ANSWER_BYTES
    assert (big.tokens_in, big.tokens_out, big.cost) == (12, 3, 0.0005)  # read past 257 KB
    assert by_question(experiment, Result)["small"].verdict == "pass"


@pytest.mark.parametrize("script", ["big", "stream"])
def test_an_answer_past_the_cap_is_named_too_large_not_unparseable(
    workspace, user, contains, app, settings, script
):
    settings.ASSAY_TARGET_MAX_BYTES = 100_000
    rows = [row("huge", script=f"{script}:150000"), row("fits", script=f"{script}:90000")]
    version = rows_version(workspace, user, rows)
    experiment = run(workspace, user, version, contains, app)
    targets = by_question(experiment, TargetResult)
    assert targets["huge"].status == "error"
    assert targets["huge"].error == (
        "the answer is larger than 100,000 bytes (ASSAY_TARGET_MAX_BYTES)"
    )
    assert "not JSON" not in targets["huge"].error
    assert targets["fits"].status == "success" and len(targets["fits"].output) == 90000
    assert len(sent(app, "huge")) == 1  # not retried: it would not shrink


def test_a_streamed_answer_is_not_read_past_the_cap(workspace, user, contains, app, settings):
    settings.ASSAY_TARGET_MAX_BYTES = 256 * 1024
    total = 64 * 1024 * 1024
    version = rows_version(workspace, user, [row("endless", script=f"stream:{total}")])
    experiment = run(workspace, user, version, contains, app)
    [endless] = TargetResult.objects.filter(experiment=experiment)
    assert endless.status == "error" and "larger than 262,144 bytes" in endless.error
    # the worker hung up: the app could write little more than the cap and socket buffers
    [written] = app.sent
    assert written < total // 4


# ----------------------------------------------------------------------------- secrets


def test_a_secret_the_endpoint_echoes_is_kept_out_of_every_stored_text(
    workspace, user, contains, app
):
    platform.secret_named_save(
        workspace=workspace, name="ECHO_TOKEN", value=SECRET, origins=[app.origin]
    )
    scripts = ("echo_headers", "echo_headers_500", "echo_headers_text")
    version = rows_version(workspace, user, [row(s, script=s) for s in scripts])
    experiment = run(
        workspace, user, version, contains, app, headers={"X-Api-Key": "{{secrets.ECHO_TOKEN}}"}
    )
    assert {r.headers["X-Api-Key"] for r in app.requests} == {SECRET}
    targets = by_question(experiment, TargetResult)
    assert targets["echo_headers"].status == "success"
    assert "X-Api-Key" in targets["echo_headers"].output  # the echo is stored, the value not
    assert "[redacted]" in targets["echo_headers"].trajectory
    assert targets["echo_headers_500"].status == "error"
    assert "[redacted]" in targets["echo_headers_500"].error
    assert "not JSON" in targets["echo_headers_text"].error
    escaped = json.dumps(SECRET)[1:-1]
    for t in targets.values():
        stored = json.dumps([t.output, t.trajectory, t.raw_response, t.error, t.rendered_request])
        assert SECRET not in stored and escaped not in stored
        assert SECRET not in (t.output + (t.trajectory or "") + (t.raw_response or "") + t.error)
    for r in Result.objects.filter(experiment=experiment):
        assert SECRET not in json.dumps([r.error, r.reason, r.stdout, r.rendered_request])


# ----------------------------------------------------------------------------- link-local


LINK_LOCAL = ["http://169.254.169.254/latest/meta-data", "http://[fe80::1]:8080/answer"]


@pytest.mark.parametrize("url", LINK_LOCAL)
def test_a_link_local_target_url_is_refused_at_save(workspace, user, contains, app, settings, url):
    settings.ASSAY_OUTBOUND_ALLOW = "public,127.0.0.0/8"  # the app's own address is allowed
    version = rows_version(workspace, user, [row("q1")])
    with pytest.raises(ValidationError) as caught:
        services.experiment_create(
            workspace=workspace,
            user=user,
            name="metadata",
            evalset_version=version,
            bindings=[{"evaluator_version": contains}],
            target=target(app, url=url, headers={}),
        )
    [message] = caught.value.message_dict["target.url"]
    assert "are not allowed" in message and "ASSAY_OUTBOUND_ALLOW" in message


@pytest.mark.parametrize("url", LINK_LOCAL)
def test_a_link_local_target_url_is_refused_at_send(workspace, user, contains, app, settings, url):
    """Saved while the policy allowed it (as a name that resolved elsewhere then would be);
    the send checks the address again and never connects."""
    version = rows_version(workspace, user, [row("q1"), row("q2")])
    settings.ASSAY_OUTBOUND_ALLOW = "*"
    experiment = services.experiment_create(
        workspace=workspace,
        user=user,
        name="metadata",
        evalset_version=version,
        bindings=[{"evaluator_version": contains}],
        target=target(app, url=url, headers={}, timeout_s=30, max_retries=3),
        launch=True,
    )
    settings.ASSAY_OUTBOUND_ALLOW = "public"
    experiment = engine.experiment_run_inline(experiment_id=experiment.pk)
    assert experiment.status == "completed"
    for t in TargetResult.objects.filter(experiment=experiment):
        assert t.status == "error" and "are not allowed" in t.error, t.error
        assert t.raw_response is None  # nothing came back: no connection was made
    assert app.calls == 0


# ----------------------------------------------------------------------------- simulated user


def test_a_simulated_users_app_gets_one_key_per_turn(workspace, user, llm_server_factory, app):
    from experiments.targets.http.call import idempotency_key
    from tests.experiments.test_simulated_user import http_app, make_provider, scenario, scenarios
    from tests.experiments.test_simulated_user import target as simulated

    llm = llm_server_factory(default_script="say:Tell me more.")
    provider = make_provider(workspace, llm)
    version = scenarios(workspace, user, [scenario()])
    contains = make_code_version(workspace=workspace, user=user, name="Any")
    experiment = services.experiment_create(
        workspace=workspace,
        user=user,
        name="chat",
        evalset_version=version,
        bindings=[
            {
                "evaluator_version": contains,
                "mapping": {
                    "actual_output": "target:actual_output",
                    "reference_output": "target:actual_output",
                },
            }
        ],  # fmt: skip
        target=simulated(provider, http_app(app), max_turns=3),
        repetitions=2,
        launch=True,
    )
    engine.experiment_run_inline(experiment_id=experiment.pk)
    assert app.calls == 6  # 3 turns × 2 repetitions
    keys = [r.headers["Idempotency-Key"] for r in app.requests]
    [item] = version.items.all()
    expected = {
        idempotency_key(run_id=experiment.public_id, item_id=item.item_id, repeat=k, turn=t)
        for k in (0, 1)
        for t in (1, 2, 3)
    }
    assert set(keys) == expected and len(expected) == 6
