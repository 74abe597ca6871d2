"""`assay traces to-evalset` against a live server: spans sent by the OpenTelemetry SDK's
exporter become rows of a set's draft; the report counts duplicates; errors are one line."""

from __future__ import annotations

import json

import pytest
from assay_client.cli import main
from click.testing import CliRunner

from evalsets.services import evalset_create
from tests.traces.test_to_evalset import COLUMNS, draft, send_turns

pytestmark = pytest.mark.django_db(transaction=True)


def assay(*args: str):
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


@pytest.fixture
def evalset(workspace, user):
    return evalset_create(workspace=workspace, user=user, name="from prod", columns=COLUMNS)


def test_traces_to_evalset_by_name_with_a_mapping_and_sessions(
    assay_env, live_server, workspace, evalset
):
    traces = send_turns(live_server, workspace)
    args = [f"--trace={t}" for t in traces]
    done = assay("traces", "to-evalset", "--evalset", "from prod", *args, "--map", "question=input")
    assert done.exit_code == 0, done.output
    assert done.output.splitlines() == [
        "3 rows added to the draft of from prod, 1 duplicates skipped",
        "mapping: question <- input",
    ]
    assert [r.data["question"]["text"] for r in draft(evalset)][:1] == ["Where is order 1042?"]
    assert {r.source["trace_id"] for r in draft(evalset)} == set(traces[:3])
    again = assay(
        "traces", "to-evalset", "--evalset", str(evalset.public_id), "--session", "s-2", "--json"
    )
    report = json.loads(again.output)
    assert (report["added"], report["skipped_duplicates"]) == (1, 0)
    assert report["mapping"]["conversation"] == "messages"  # the server's default by column


def test_errors_are_one_line(assay_env, evalset):
    unknown = assay("traces", "to-evalset", "--evalset", "nope", "--session", "s-1")
    assert unknown.exit_code == 2 and "No evaluation set is named 'nope'" in unknown.output
    both = assay("traces", "to-evalset", "--evalset", "from prod")
    assert both.exit_code == 2 and "Give --trace, --span, --session or --filter" in both.output
    bad = assay(
        "traces", "to-evalset", "--evalset", "from prod", "--filter", "service=x", "--map", "q=x"
    )
    assert bad.exit_code == 2 and "mapping" in bad.output
