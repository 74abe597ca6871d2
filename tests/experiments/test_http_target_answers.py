"""What an HTTP target's endpoint can do with its answer, and what Assay does about it: an
answer trickled a byte at a time ends at timeout_s for the whole request (and the app sees the
hang-up); a redirect is a row error naming where it pointed; an echoed secret is scrubbed from
the extracted output in every form an echo takes (as sent, base64, reversed, masked) before a
viewer's export can show it; and a huge or endless answer does not grow the web process that
runs the Test request (its peak memory measured, never the time)."""

import base64
import csv
import io
import json

import pytest

from assay import services as platform
from assay.models import Membership
from assay.safety.redact import secret_forms
from experiments import scoring as engine
from experiments import services
from experiments.models import TargetResult
from tests.experiments.test_http_target import by_question, row, rows_version
from tests.support.memory import peak_growth_mb

KEY = "app-token-0123456789-abcdef"
MASKED = "app-to****cdef"  # what a provider-style masked echo shows of KEY: 10 characters
EXPERIMENTS = "/api/v1/experiments/"


def http_target(app, **overrides) -> dict:
    return {
        "kind": "http",
        "url": app.url,
        "headers": {"X-Api-Key": "{{secrets.ECHO_KEY}}"},
        "body": {"question": "{{question}}", "script": "{{script}}"},
        "output": "answer",
        "timeout_s": 1,
        "max_retries": 0,
        **overrides,
    }


def run(workspace, user, app, contains, rows, **overrides):
    platform.secret_named_save(
        workspace=workspace, name="ECHO_KEY", value=KEY, origins=[app.origin]
    )
    experiment = services.experiment_create(
        workspace=workspace,
        user=user,
        name="answers",
        evalset_version=rows_version(workspace, user, rows),
        bindings=[{"evaluator_version": contains}],
        target=http_target(app, **overrides),
        launch=True,
    )
    return engine.experiment_run_inline(experiment_id=experiment.pk)


def try_row(api, workspace, user, app, script: str, **overrides) -> dict:
    platform.secret_named_save(
        workspace=workspace, name="ECHO_KEY", value=KEY, origins=[app.origin]
    )
    version = rows_version(workspace, user, [row("q1", script=script)])
    body = {"evalset_version": str(version.public_id), "target": http_target(app, **overrides)}
    answer = api.post(EXPERIMENTS + "target-test/", body, format="json")
    assert answer.status_code == 200, answer.content[:500]
    return answer.json()


def wait_for_hang_up(app) -> None:
    import time

    for _ in range(200):  # the app notices at its next drip
        if app.hung_up:
            return
        time.sleep(0.05)
    raise AssertionError("the app never saw the client hang up")


# ----------------------------------------------------------------------------- the deadline


DEADLINE = "timed out after 1 attempts (1 s per request, to the answer's last byte)"


def test_a_trickled_answer_ends_at_timeout_s_for_the_whole_request(workspace, user, app, contains):
    """A byte every 0.25 s never trips a read timeout of 1 s: the row used to wait for the
    whole drip and succeed. Now it is a timeout row and the app sees the client hang up."""
    experiment = run(workspace, user, app, contains, [row("slow", script="drip:8"), row("fast")])
    targets = by_question(experiment, TargetResult)
    assert targets["slow"].status == "timeout"
    assert targets["slow"].error == DEADLINE
    assert targets["fast"].status == "success"
    wait_for_hang_up(app)


def test_the_test_request_has_the_same_deadline(workspace, user, app, api):
    tried = try_row(api, workspace, user, app, "drip:8")
    assert tried["status"] == "timeout" and tried["error"] == DEADLINE
    wait_for_hang_up(app)


# ----------------------------------------------------------------------------- redirects


@pytest.mark.parametrize("status", [301, 302, 307, 308])
def test_a_redirect_is_a_row_error_naming_where_it_points(workspace, user, app, contains, status):
    experiment = run(workspace, user, app, contains, [row("moved", script=f"redirect:{status}")])
    [target] = TargetResult.objects.filter(experiment=experiment)
    assert target.status == "error" and target.output == ""
    assert target.error == (
        f"the endpoint answered with a redirect: HTTP {status}, a redirect to /elsewhere; "
        "redirects are not followed, so give the URL that answers"
    )
    assert app.calls == 1  # not retried, not followed (the secret stays with its URL)


# ----------------------------------------------------------------------------- echoed secrets


def forms_of_the_key() -> list[str]:
    return [*secret_forms(KEY), MASKED, base64.b64encode(f"user:{KEY}".encode()).decode()]


def test_an_error_that_echoes_the_key_masked_keeps_none_of_it(workspace, user, app, contains):
    """Fails on 7c2ac40 (errors were scrubbed by exact match); passes since the stored row's
    texts get the providers' fragment scrub (284541d), and the final message does too now."""
    experiment = run(workspace, user, app, contains, [row("masked", script="echo_masked")])
    [target] = TargetResult.objects.filter(experiment=experiment)
    assert target.status == "error" and "invalid key [redacted]" in target.error, target.error
    assert MASKED not in target.error and MASKED not in (target.raw_response or "")


OUTPUT = 'join(\' | \', [answer, trace.headers."X-Api-Key", reverse(trace.headers."X-Api-Key")])'


def test_an_echoed_key_is_scrubbed_from_the_extracted_output_in_every_form(
    workspace, user, app, contains, member, api_client_for
):
    experiment = run(
        workspace,
        user,
        app,
        contains,
        [row("echo", script="echo_forms")],
        output=OUTPUT,
        trajectory="trace",
    )
    [target] = TargetResult.objects.filter(experiment=experiment)
    assert target.status == "success", target.error
    assert target.output.count("[redacted]") >= 5, target.output  # every echo was there
    stored = json.dumps([target.output, target.trajectory, target.raw_response])
    for form in forms_of_the_key():
        assert form not in stored and form not in target.output
    viewer = api_client_for(workspace, member("vera", Membership.Role.VIEWER))
    for fmt in ("csv", "jsonl"):
        answer = viewer.get(EXPERIMENTS + f"{experiment.public_id}/export/?format={fmt}")
        assert answer.status_code == 200
        text = b"".join(answer.streaming_content).decode()
        assert "[redacted]" in text  # the output is in the export…
        for form in forms_of_the_key():
            assert form not in text, (fmt, form)  # …without the key in any form
        assert KEY not in _decoded_base64(text)


def _decoded_base64(text: str) -> str:
    """Every base64-looking word of `text`, decoded (what a reader of the export could do)."""
    import re

    decoded = []
    for word in re.findall(r"[A-Za-z0-9+/_-]{16,}={0,2}", text):
        for decode in (base64.b64decode, base64.urlsafe_b64decode):
            try:
                decoded.append(decode(word + "=" * (-len(word) % 4)).decode("latin-1"))
            except ValueError:
                pass
    return "\n".join(decoded)


def test_the_csv_export_rows_parse(workspace, user, app, contains, api):
    """The scrubbed output is an ordinary cell (a guard for the test above reading text)."""
    experiment = run(workspace, user, app, contains, [row("echo", script="echo_forms")])
    answer = api.get(EXPERIMENTS + f"{experiment.public_id}/export/?format=csv")
    rows = list(csv.DictReader(io.StringIO(b"".join(answer.streaming_content).decode())))
    assert len(rows) == 1 and "[redacted]" in rows[0]["input"]


# ----------------------------------------------------------------------------- huge answers


@pytest.mark.parametrize("script", ["stream:200000000", "endless"])
def test_a_huge_or_endless_answer_leaves_the_test_requests_memory_flat(
    workspace, user, app, api, script
):
    tried, peak = peak_growth_mb(lambda: try_row(api, workspace, user, app, script, timeout_s=60))
    print(f"{script}: peak RSS growth {peak:.1f} MB, the app wrote {app.sent[0]:,} bytes")
    assert tried["status"] == "error"
    assert tried["error"] == "the answer is larger than 4,194,304 bytes (ASSAY_TARGET_MAX_BYTES)"
    assert peak < 48, f"the process grew by {peak:.0f} MB"
    [written] = app.sent  # the client hung up: the app wrote about the cap, not 200 MB
    assert written < 16 * 1024 * 1024
