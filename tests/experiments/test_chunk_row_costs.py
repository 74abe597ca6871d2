"""What a chunk does once rather than per row: each distinct tag list is parsed and encoded
once (not per result row), and a binding's mapping is read once for all of a batch's turns,
which stay exactly the turns `turn_build` gives. Counts and identities, never time."""

import json

import pytest

from evaluators.runner import RunOutcome
from evaluators.turns import turn_build
from experiments.mapping import TARGET_PREFIX, build_turn
from experiments.models import EvaluatorBinding, ExperimentChunk
from experiments.scoring import chunks, per_turn, writes
from experiments.scoring.evaluator_work import result_rows
from tests.experiments.test_chunk_path import launched

TEXT = {"content_type": "Text", "text": "Paris"}
CONVERSATION = {"content_type": "Conversation", "messages": [{"role": "user", "content": "hi"}]}


class CountedMapping(dict):
    """A binding's mapping that counts how often it is read."""

    reads = 0

    def items(self):
        self.reads += 1
        return super().items()


def reference_turn(*, mapping: dict, data: dict, target_outputs: dict | None, ext: dict) -> dict:
    """The turn as it was built per row before plans (the contract plans must keep)."""
    contents, from_target = {}, []
    for variable, source in mapping.items():
        if source.startswith(TARGET_PREFIX):
            value = (target_outputs or {}).get(source.removeprefix(TARGET_PREFIX))
            if value is None:
                continue
            text = {"content_type": "Text", "text": value}
            contents[variable] = value if isinstance(value, dict) else text
            from_target.append(variable)
        elif (content := data.get(source.removeprefix("column:"))) is not None:
            contents[variable] = content
    return turn_build(contents, from_target=from_target, ext=ext)


MAPPINGS = [
    {"input": "column:input", "output": "column:actual_output"},
    {"reference": "column:reference_output", "answer": "target:actual_output"},
    {"trajectory": "column:trajectory", "chat": "target:conversation", "q": "column:missing"},
    {"actual_output": "target:actual_output", "input": "column:input", "x": "target:absent"},
]
ROWS = [
    {"input": TEXT, "actual_output": TEXT, "reference_output": TEXT, "trajectory": TEXT},
    {"input": TEXT},
    {},
]
OUTPUTS = [None, {}, {"actual_output": "Lyon", "conversation": CONVERSATION}]


@pytest.mark.parametrize("mapping", MAPPINGS)
def test_a_planned_turn_is_exactly_the_turn_built_per_row(mapping):
    for data in ROWS:
        for outputs in OUTPUTS:
            ext = {"lang": "fr"}
            expected = reference_turn(mapping=mapping, data=data, target_outputs=outputs, ext=ext)
            built = build_turn(mapping=mapping, data=data, target_outputs=outputs, ext=ext)
            assert built == expected
            # the same keys in the same order: a turn's JSON (and so its cache key) is unchanged
            assert json.dumps(built) == json.dumps(expected)


def test_a_batch_of_turns_reads_the_mapping_once():
    mapping = CountedMapping({"input": "column:input", "output": "column:actual_output"})
    binding = EvaluatorBinding(mapping=mapping, ext={"k": "v"}, per_turn=False)
    items = [chunks.ItemRow(n, n, n, ROWS[0], []) for n in range(50)]
    cases, unscored = per_turn.binding_cases(binding=binding, items=items, outputs={})
    assert len(cases) == 50 and not unscored and mapping.reads == 1
    expected = reference_turn(mapping=mapping, data=ROWS[0], target_outputs=None, ext=binding.ext)
    assert all(case.turn == expected for case in cases)
    assert len({id(case.turn["ext"]) for case in cases}) == 50  # each turn owns its ext


@pytest.mark.django_db
def test_each_distinct_tag_list_is_parsed_and_encoded_once(workspace, user):
    experiment = launched(workspace, user, rows=10)  # tags alternate: ["even"], ["odd"]
    chunk = ExperimentChunk.objects.select_related("experiment").get(experiment=experiment, index=0)
    items = chunks._chunk_items(chunk)
    assert len({id(item.tags) for item in items}) == 2  # one list per distinct tags
    binding = experiment.bindings.get()
    cases = [per_turn.Case(item, {}) for item in items]
    outcomes = [RunOutcome(status="success") for _item in items]
    rows = result_rows(experiment, binding, cases, outcomes, 0)
    copied = list(writes._copy_rows(rows))
    texts = [values[writes.TAGS] for values in copied]
    assert len({id(text) for text in texts}) == 2  # encoded once per distinct list
    assert [json.loads(text) for text in texts] == [item.tags for item in items]
    assert texts[0] == json.dumps(["even"]) and texts[1] == json.dumps(["odd"])


def test_equal_tag_lists_that_are_not_shared_are_each_encoded_correctly():
    at = writes.COLUMNS.index
    row = [None] * len(writes.COLUMNS)
    rows = []
    for tags in (["a"], ["b", "c"], [], None, ["a"]):
        row[at("tags")] = tags
        rows.append(tuple(row))
    texts = [values[writes.TAGS] for values in writes._copy_rows(rows)]
    assert texts == ['["a"]', '["b", "c"]', "[]", "[]", '["a"]']
