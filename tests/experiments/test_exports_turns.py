"""The exports rebuild each result's turn from its stored parts (the row's data, the target's
output, the binding's mapping) read beside the result as text, parsed once per row and not
walked for caps when short: what they write must still be exactly what each evaluator was
given. The run mixes what could go wrong: a target, two bindings mapping the same columns
differently, repetitions, a binding scored per assistant turn, rows skipped (the target gave
nothing; no assistant turn) and a cell longer than the display cap."""

import csv
import io
import json

import pytest

from evalsets import services as evalset_services
from evaluators import services as evaluator_services
from evaluators.turns import turn_output
from experiments import scoring as engine
from experiments import services
from experiments.models import Result
from experiments.results import exports
from experiments.results.garak import RowCounts, hit_at_k
from experiments.results.streaming import dumps
from experiments.scoring.turns import json_loads, result_turns
from tests.support.app_server import ScriptedApp
from tests.support.factories import ECHO_TURN, make_code_version

pytestmark = pytest.mark.django_db

COLUMNS = [
    {"name": name, "content_type": "Text", "required": False, "description": ""}
    for name in ("question", "reply", "reference_output", "context", "script", "long")
] + [{"name": "dialogue", "content_type": "Conversation", "required": False, "description": ""}]
LONG = "é" * 20_000  # 40,000 bytes: past the 16 KB display cap


def chat(*replies):
    messages = []
    for i, reply in enumerate(replies):
        messages += [{"role": "user", "content": f"q{i}"}, {"role": "assistant", "content": reply}]
    return messages


def rows() -> list[dict]:
    """Six rows: row 4's target answers only its second repetition, row 5 has no assistant
    turn, row 2 holds a cell past the cap, row 3 has no conversation at all."""
    found = []
    for i in range(6):
        row = {"question": f"q{i}", "reply": f"answer {i}", "reference_output": f"ref {i}"}
        # row 4: the first repetition's request is refused, the second's answered
        row |= {"context": f"c{i}", "script": "400,ok" if i == 4 else "ok"}
        row["long"] = LONG if i == 2 else "short"
        found.append(row)
    return found


@pytest.fixture
def app():
    with ScriptedApp() as server:
        yield server


def echo_version(workspace, user, name, variables=None):
    if variables is None:
        return make_code_version(workspace=workspace, user=user, name=name, source=ECHO_TURN)
    evaluator = evaluator_services.evaluator_create(
        workspace=workspace, user=user, name=name, kind="code", language="python"
    )
    config = {**evaluator.draft_config, "input_variables": variables, "source": ECHO_TURN}
    evaluator_services.evaluator_update_draft(evaluator=evaluator, user=user, config=config)
    return evaluator_services.evaluator_submit_version(
        evaluator=evaluator, user=user, version="1.0.0"
    )


def bindings(workspace, user) -> list[dict]:
    dialogue = [{"name": "dialogue", "content_type": "Conversation", "required": True}]
    return [
        {
            "evaluator_version": echo_version(workspace, user, "Echo target"),
            "mapping": {
                "actual_output": "target:actual_output",
                "reference_output": "column:reference_output",
            },
        },
        {
            "evaluator_version": echo_version(workspace, user, "Echo columns"),
            "mapping": {"actual_output": "column:context", "reference_output": "column:question"},
            "ext": {"note": "kept in the turn"},
        },
        {
            "evaluator_version": echo_version(workspace, user, "Echo turns", dialogue),
            "mapping": {"dialogue": "column:dialogue"},
            "per_turn": True,
            "turn_aggregate": "all_pass",
        },
        {  # fails every row: its hits carry the long cell, capped
            "evaluator_version": make_code_version(workspace=workspace, user=user),
            "mapping": {"actual_output": "column:long", "reference_output": "column:question"},
        },
    ]


@pytest.fixture
def finished(workspace, user, app):
    data = rows()
    data[0]["dialogue"], data[1]["dialogue"] = chat("a0", "a1", "a2"), chat("only")
    data[2]["dialogue"], data[4]["dialogue"] = chat("x", "y"), chat("z")
    data[5]["dialogue"] = [{"role": "user", "content": "no reply yet"}]
    version = _with_rows(workspace, user, data)
    experiment = services.experiment_create(
        workspace=workspace,
        user=user,
        name="mixed",
        evalset_version=version,
        bindings=bindings(workspace, user),
        target={
            "kind": "http",
            "url": app.url,
            "body": {"question": "{{question}}", "reply": "{{reply}}", "script": "{{script}}"},
            "output": "answer",
        },
        repetitions=2,
        launch=True,
    )
    return engine.experiment_run_inline(experiment_id=experiment.pk)


def _with_rows(workspace, user, data):
    """A version of `data` (texts, and message lists for the conversation column)."""
    evalset = evalset_services.evalset_create(
        workspace=workspace, user=user, name="Mixed", columns=COLUMNS
    )
    for row in data:
        evalset_services.item_create(evalset=evalset, data=row)
    return evalset_services.version_commit(evalset=evalset, user=user, version="1.0.0")


def key(uid, evaluator: str, repeat: int, turn: int) -> tuple:
    return (str(uid), evaluator, int(repeat), int(turn))


def stored(experiment) -> dict[tuple, tuple[Result, dict]]:
    """Every result with the turn the result pages rebuild for it (`result_turns`)."""
    results = list(
        Result.objects.filter(experiment=experiment).select_related(
            "binding__evaluator_version__evaluator", "item"
        )
    )
    turns = result_turns(results=results)
    return {
        key(r.item.item_id, r.binding.evaluator_version.evaluator.name, r.repeat, r.turn): (
            r,
            turns[r.pk],
        )
        for r in results
    }


def jsonl(experiment) -> list[dict]:
    return [json.loads(x) for x in "".join(exports.export_stream(experiment, "jsonl")).splitlines()]


def test_every_exported_turn_is_the_one_its_evaluator_received(finished):
    exported, results = jsonl(finished), stored(finished)
    assert len(exported) == len(results)
    by_key = {key(r["item_id"], r["evaluator"], r["repeat"], r["turn"]): r for r in exported}
    assert by_key.keys() == results.keys()
    for found, (result, turn) in results.items():
        row = by_key[found]
        assert row["input"] == turn and row["status"] == result.status
        if result.status == "skipped":
            assert row["input"] == {}  # a skipped row was given nothing
        elif result.binding.evaluator_version.evaluator.name.startswith("Echo"):
            assert row["input"] == json.loads(result.reason)  # what the evaluator said it got


def test_the_run_has_what_the_exports_must_get_right(finished):
    rows = jsonl(finished)
    skipped = {
        (r["evaluator"], r["position"], r["repeat"]) for r in rows if r["status"] == "skipped"
    }
    # the target gave row 4 nothing the first time; rows 3 and 5 have no assistant turn
    no_turn = {("Echo turns", p, repeat) for p in (3, 5) for repeat in (0, 1)}
    assert skipped == {("Echo target", 4, 0), *no_turn}
    turns = {r["turn"] for r in rows if r["evaluator"] == "Echo turns" and r["position"] == 0}
    assert turns == {0, 1, 2} and {r["repeat"] for r in rows} == {0, 1}
    columns = next(r for r in rows if r["evaluator"] == "Echo columns" and r["position"] == 1)
    fields = columns["input"]["evaluate_target_output_fields"]
    assert fields["actual_output"]["text"] == "c1" and columns["input"]["ext"]["note"]
    target = next(r for r in rows if r["evaluator"] == "Echo target" and r["position"] == 1)
    assert target["input"]["evaluate_target_output_fields"]["actual_output"]["text"] == "answer 1"
    last = next(r for r in rows if r["evaluator"] == "Echo turns" and r["turn"] == 2)
    assert last["input"]["evaluate_dataset_fields"]["dialogue"]["messages"][-1]["content"] == "a2"


def test_a_cell_past_the_cap_is_capped_as_the_pages_show_it(finished):
    rows = jsonl(finished)
    long = next(r for r in rows if r["evaluator"] == "Contains" and r["position"] == 2)
    text = long["input"]["evaluate_target_output_fields"]["actual_output"]["text"]
    assert text.endswith("bytes") and "truncated" in text and len(text.encode()) < 17_000
    # the other bindings on that row read only short cells: theirs are whole
    echo = next(r for r in rows if r["evaluator"] == "Echo columns" and r["position"] == 2)
    assert echo["input"] == json.loads(echo["reason"])


def test_the_csv_has_the_same_rows_and_turns(finished):
    table = list(csv.DictReader(io.StringIO("".join(exports.export_stream(finished, "csv")))))
    rows = jsonl(finished)
    assert len(table) == len(rows)
    for cells, row in zip(table, rows, strict=True):
        assert cells["item_id"] == row["item_id"] and cells["evaluator"] == row["evaluator"]
        assert json.loads(cells["input"]) == row["input"]
        assert cells["tags"] == ",".join(row["tags"]) and cells["status"] == row["status"]


def test_each_hit_carries_the_output_its_detector_judged(finished):
    hits = [json.loads(x) for x in "".join(exports.export_stream(finished, "hitlog")).splitlines()]
    results = stored(finished)
    failing = [(r, t) for r, t in results.values() if r.final_verdict == "fail"]
    assert len(hits) == len(failing) == 12  # Contains fails each row, twice
    for hit in hits:
        result, turn = next(
            (r, t)
            for r, t in failing
            if r.position == hit["attempt_seq"] and r.repeat == hit["attempt_idx"]
        )
        assert hit["output"]["text"] == turn_output(turn) and hit["tags"] == result.tags
        assert hit["attempt_id"] == str(result.item.item_id) and hit["score"] == result.score


def test_json_is_read_and_written_as_json_does_where_orjson_differs():
    for text in ('{"n": 123456789012345678901234567890}', '{"x": NaN}', '"\\ud800"', "1e400"):
        assert repr(json_loads(text)) == repr(json.loads(text))
    assert json.loads(dumps({"n": 10**30, "s": "\ud800"})) == {"n": 10**30, "s": "\ud800"}
    assert dumps({"a": [1, 2.5, None, "é"]}) == '{"a":[1,2.5,null,"é"]}'.encode()


def test_row_counts_keep_attempts_in_first_seen_order():
    counts = RowCounts()
    for attempt, decided, failing in [("a", 1, 1), (0, 1, 0), ("a", 1, 0), (1, 0, 0), (1, 1, 1)]:
        counts.add(attempt, bool(decided), bool(failing))
    assert list(counts) == [(2, 1), (1, 0), (1, 1)] and len(counts) == 3
    assert hit_at_k(counts, (1,)) == hit_at_k(list(counts), (1,))
