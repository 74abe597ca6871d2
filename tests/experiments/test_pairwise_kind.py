"""The pairwise judge kind: its answer format and parser, the order swap through the real kind
against the local scripted server (the request bodies show A then B, then B then A), position
bias counted from the two answers, the debug panel and API in both orders, the preset."""

import json

import pytest

from assay import services as platform
from evaluators import services as evaluator_services
from evaluators.config import submit_problems
from evaluators.kinds import kind_get
from evaluators.llm.choice import choice_schema, parse_choice
from evaluators.llm.parse import AnswerError
from evaluators.pairing import pair_verdict, swapped_turn
from experiments.stats.pairwise import position_bias
from tests.support.pairwise import FIRST, SECOND, make_pairwise_evaluator, pair_turn

pytestmark = pytest.mark.django_db
URL = "/api/v1/evaluators/"


@pytest.fixture
def provider(workspace, llm_server):
    return platform.provider_create(
        workspace=workspace,
        name="Local",
        base_url=llm_server.base_url,
        default_model="judge-model",
        api_key="sk-test-assay-0123456789",
        structured_mode="json_schema",
        max_retries=1,
    )


@pytest.fixture
def judge(workspace, user, provider):
    return make_pairwise_evaluator(workspace=workspace, user=user, provider=provider)


# --- reading an answer -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "verdict", "method"),
    [
        ('{"reason": "B is right.", "verdict": "B"}', "B", "json"),
        ('```json\n{"reason": "same", "verdict": "TIE"}\n```', "tie", "fenced"),
        ('My answer:\n{"reason": "A cites it", "verdict": "a"}\nThanks.', "A", "embedded"),
        ("{'reason': 'single quotes', 'verdict': 'B',}", "B", "repaired"),
        ("Both are close. Verdict: B. A misses the date.", "B", "pattern"),
        ('"A"', "A", "bare"),
        ("**tie**", "tie", "bare"),
    ],
)
def test_the_parser_reads_a_verdict_however_it_is_wrapped(raw, verdict, method):
    parsed = parse_choice(raw)
    assert (parsed.verdict, parsed.method) == (verdict, method)


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ('{"reason": "both", "verdict": "C"}', 'verdict must be "A", "B" or "tie", got "C"'),
        ('{"reason": "I forgot"}', "the answer has no verdict field"),
        ("I cannot decide between them.", "no verdict found in the answer"),
        ("", "the model returned an empty answer"),
    ],
)
def test_an_unreadable_verdict_is_an_error_never_a_guess(raw, message):
    with pytest.raises(AnswerError) as raised:
        parse_choice(raw)
    assert message in raised.value.message and raised.value.raw == raw


def test_the_schema_lists_the_verdicts_as_an_enum_with_the_reason_first():
    schema = choice_schema()
    assert list(schema["properties"]) == ["reason", "verdict"]
    assert schema["properties"]["verdict"]["enum"] == ["A", "B", "tie"]


def test_the_swapped_turn_trades_the_outputs_and_keeps_the_rest():
    turn = pair_turn("q", "first", "second")
    swapped = swapped_turn(turn)
    outputs = swapped["evaluate_target_output_fields"]
    assert (outputs["output_a"]["text"], outputs["output_b"]["text"]) == ("second", "first")
    assert swapped["evaluate_dataset_fields"] == turn["evaluate_dataset_fields"]
    assert turn["evaluate_target_output_fields"]["output_a"]["text"] == "first"  # not mutated


# --- the config ------------------------------------------------------------------------------


def test_a_pairwise_judge_must_show_both_outputs(judge):
    config = json.loads(json.dumps(judge.draft_config))
    config["input_variables"] = [v for v in config["input_variables"] if v["name"] != "output_b"]
    config["messages"][1]["content"] = "{{input}} / {{output_a}}"
    problems = submit_problems("pairwise", config, model_configured=True)
    assert "A pairwise judge needs a Text variable 'output_b'." in problems["input_variables"]
    assert "Use {{output_b}} in a message: the judge must see it." in problems["messages"]
    assert submit_problems("pairwise", judge.draft_config, model_configured=True) == {}


def test_the_kind_is_registered_and_marked_pairwise():
    spec = kind_get("pairwise")
    assert spec.pairwise and spec.queue == "llm" and not kind_get("llm").pairwise


# --- both orders, over real HTTP -----------------------------------------------------------------


def debug(api, judge, turns):
    response = api.post(f"{URL}{judge.public_id}/debug/", {"turns": turns}, format="json")
    assert response.status_code == 200, response.content[:400]
    return response.json()["results"]


def test_each_pair_is_asked_in_both_orders(api, judge, llm_server):
    [result] = debug(api, judge, [pair_turn("Capital?", f"Paris {FIRST}", f"Lyon {SECOND}")])
    calls = result["extra"]["calls"]
    received = [r.body for r in llm_server.chat_requests()]  # both orders go out at once
    first, second = (call["rendered_request"] for call in calls)
    assert len(received) == 2 and first in received and second in received
    shown = [r["messages"][-1]["content"] for r in (first, second)]
    assert shown[0].index("Paris") < shown[0].index("Lyon")  # A then B
    assert shown[1].index("Lyon") < shown[1].index("Paris")  # B then A
    assert first["response_format"]["json_schema"]["schema"] == choice_schema()
    assert [c["order"] for c in calls] == ["A, B", "B, A"]
    assert [c["verdict"] for c in calls] == ["A", "B"]  # as said: the first slot, then the second
    assert result["extra"]["outcome"] == "A" and not result["extra"]["position_inconsistent"]
    assert result["score"] == 0.0  # B's share: the baseline won
    assert calls[1]["raw_answer"] == '{"reason": "Answer B is better.", "verdict": "B"}'


def test_a_judge_that_always_picks_the_first_slot_is_position_inconsistent(api, judge, llm_server):
    turns = [
        pair_turn("q1", f"one {FIRST}", f"two {FIRST}"),  # always the first slot: biased
        pair_turn("q2", f"one {SECOND}", f"two {FIRST}"),  # B both times: consistent
        pair_turn("q3", f"one {FIRST}", f"two {FIRST}"),
    ]
    results = debug(api, judge, turns)
    outcomes = [(r["extra"]["outcome"], r["extra"]["position_inconsistent"]) for r in results]
    assert outcomes == [("tie", True), ("B", False), ("tie", True)]
    answers = [tuple(c["verdict"] for c in r["extra"]["calls"]) for r in results]
    assert answers == [("A", "A"), ("B", "A"), ("A", "A")]
    assert [pair_verdict(*a) for a in answers] == [(o, i) for o, i in outcomes]
    bias = position_bias(answers)
    assert (bias.judged, bias.inconsistent, bias.leaning_first) == (3, 2, 2)
    assert bias.first_position_share == 1.0 and len(llm_server.chat_requests()) == 6


def test_an_unreadable_answer_makes_the_pair_unknown_and_keeps_the_raw_answer(api, judge):
    [result] = debug(api, judge, [pair_turn("q", "x [[script:verdict:maybe]]", "y")])
    assert result["status"] == "error" and result["extra"]["outcome"] == "unknown"
    assert 'verdict must be "A", "B" or "tie", got "maybe"' in result["error"]
    assert result["score"] is None and "maybe" in result["extra"]["calls"][0]["raw_answer"]


@pytest.mark.parametrize("mode", ["text", "tool"])
def test_without_json_schema_the_instruction_or_the_tool_asks_for_a_verdict(
    api, judge, provider, llm_server, mode
):
    provider.structured_mode = mode
    provider.save(update_fields=["structured_mode"])
    marker = "[[script:verdict_prose:B]]" if mode == "text" else SECOND
    [result] = debug(api, judge, [pair_turn("q", f"x {marker}", f"y {marker}")])
    body = llm_server.chat_requests()[0].body
    if mode == "text":
        assert '"verdict": "A" or "B" or "tie"' in body["messages"][0]["content"]
        assert result["extra"]["calls"][0]["verdict"] == "B"  # read from a sentence
    else:
        assert body["tools"][0]["function"]["parameters"] == choice_schema()
    assert result["extra"]["outcome"] == "tie" and result["extra"]["position_inconsistent"]


def test_the_debug_panel_shows_both_orders(web, judge, workspace):
    turn = pair_turn("Capital?", f"Paris {FIRST}", f"Lyon {SECOND}")
    url = f"/w/{workspace.slug}/evaluators/{judge.public_id}/debug/"
    response = web.post(url, {"turns": json.dumps([turn])})
    assert response.status_code == 200
    html = response.content.decode()
    assert 'data-outcome="A"' in html and "A better" in html
    assert html.count('class="pairwise-order"') == 2 and "Shown B, A" in html
    assert html.count("Rendered prompt") == 2 and html.count("Raw model answer") == 2


def test_the_preset_starts_a_pairwise_judge(workspace, user, provider):
    from evaluators.models import EvaluatorTemplate
    from evaluators.presets.sync import templates_sync

    templates_sync()
    template = EvaluatorTemplate.objects.get(slug="which-is-better")
    assert template.name == "Which answer is better (pairwise)" and template.kind == "pairwise"
    evaluator = evaluator_services.evaluator_create_from_template(
        workspace=workspace, user=user, template=template
    )
    assert evaluator.draft_config["model"]["provider_id"] == str(provider.public_id)
    assert submit_problems("pairwise", evaluator.draft_config, model_configured=True) == {}


def test_an_experiment_scoring_one_output_refuses_a_pairwise_judge(workspace, user, provider):
    from django.core.exceptions import ValidationError

    from experiments import services
    from tests.support.pairwise import make_pairwise_version, qa_version

    version = qa_version(workspace=workspace, user=user, n=2)
    judge = make_pairwise_version(workspace=workspace, user=user, provider=provider)
    with pytest.raises(ValidationError) as raised:
        services.experiment_create(
            workspace=workspace,
            user=user,
            name="x",
            evalset_version=version,
            bindings=[{"evaluator_version": judge}],
        )
    [message] = raised.value.message_dict["bindings[0].evaluator_version"]
    assert (
        message
        == "Which is better@1.0.0 judges two outputs side by side: use it in a pairwise run."
    )


def test_the_editor_shows_the_prompt_and_the_two_outputs(web, judge, workspace, templates_synced):
    page = web.get(f"/w/{workspace.slug}/evaluators/{judge.public_id}/").content.decode()
    assert 'id="pairwise-card"' in page and 'id="prompt-card"' in page
    assert "<code>{{output_a}}</code> is the baseline" in page
    chooser = web.get(f"/w/{workspace.slug}/evaluators/new/").content.decode()
    assert "Which answer is better (pairwise)" in chooser


@pytest.fixture
def templates_synced(db):
    from evaluators.presets.sync import templates_sync

    templates_sync()
