"""A runaway evaluator in the debug runner stops at its limit, and the web process keeps
answering other requests meanwhile (a real threaded server, real HTTP)."""

import json
import threading
import time
import urllib.request

import pytest

from assay import services as platform
from evaluators import services

pytestmark = pytest.mark.django_db(transaction=True)


def test_web_answers_while_a_runaway_evaluator_runs(live_server, user, workspace):
    evaluator = services.evaluator_create(
        workspace=workspace, user=user, name="Spin", kind="code", language="python"
    )
    config = {
        **evaluator.draft_config,
        "timeout_s": 2.0,
        "source": "def exec_evaluation(turn):\n    while True:\n        pass\n",
    }
    key = platform.token_issue(workspace=workspace, user=user, name="t").key
    turn = {
        "evaluate_dataset_fields": {"reference_output": {"content_type": "Text", "text": "a"}},
        "evaluate_target_output_fields": {"actual_output": {"content_type": "Text", "text": "b"}},
    }
    body = json.dumps({"turns": [turn], "config": config}).encode()
    events: dict[str, float] = {}
    result: dict = {}

    def debug_call():
        request = urllib.request.Request(
            f"{live_server.url}/api/v1/evaluators/{evaluator.public_id}/debug/",
            data=body,
            headers={"Authorization": f"Token {key}", "Content-Type": "application/json"},
        )
        events["debug_started"] = time.monotonic()
        with urllib.request.urlopen(request, timeout=30) as response:
            result.update(json.loads(response.read()))
        events["debug_done"] = time.monotonic()

    worker = threading.Thread(target=debug_call)
    worker.start()
    time.sleep(0.3)  # let the runaway start
    with urllib.request.urlopen(f"{live_server.url}/healthz?sandbox=0", timeout=10) as response:
        assert response.status == 200
    events["health_done"] = time.monotonic()
    worker.join(timeout=30)
    assert result["results"][0]["status"] == "timeout"
    # the health check was answered while the runaway was still running
    assert events["health_done"] < events["debug_done"]
