"""Rendering judge prompts: variables, multimodal parts, answer modes, missing inputs."""

from __future__ import annotations

import base64
from typing import Any

import pytest

from evaluators.llm import (
    RenderError,
    answer_instruction,
    build_request,
    render_messages,
    run_llm_batch,
    template_variables,
)
from tests.support import llm_fixtures

llm_server_factory = llm_fixtures.llm_server_factory
llm_server = llm_fixtures.llm_server
llm_settings = llm_fixtures.llm_settings


def text(value: str) -> dict[str, Any]:
    return {"content_type": "Text", "text": value}


def image(url: str = "", uri: str = "") -> dict[str, Any]:
    return {"content_type": "Image", "image": {"url": url, "uri": uri, "name": "pic.png"}}


def variable(name: str, content_type: str = "Text", required: bool = True) -> dict[str, Any]:
    return {"name": name, "content_type": content_type, "required": required, "description": ""}


def make_config(messages: list[dict[str, Any]], *variables: dict[str, Any]) -> dict[str, Any]:
    model = {"provider_id": None, "model": "judge-model", "temperature": 0.0, "max_tokens": 300}
    return {"input_variables": list(variables), "messages": messages, "model": model}


def make_turn(dataset: dict[str, Any] | None = None, output: dict[str, Any] | None = None):
    return {
        "evaluate_dataset_fields": dataset or {},
        "evaluate_target_output_fields": output or {},
        "ext": {},
    }


QA_CONFIG = make_config(
    [
        {"role": "system", "content": "You are a strict grader."},
        {"role": "user", "content": "Q: {{question}}\nA: {{ answer }}\nRef: {{reference}}"},
    ],
    variable("question"),
    variable("answer"),
    variable("reference", required=False),
)


def test_text_variables_are_substituted_with_or_without_spaces() -> None:
    turn = make_turn({"question": text("2+2?"), "reference": text("4")}, {"answer": text("four")})
    messages = render_messages(QA_CONFIG, turn, structured_mode="json_schema")
    assert messages == [
        {"role": "system", "content": "You are a strict grader."},
        {"role": "user", "content": "Q: 2+2?\nA: four\nRef: 4"},
    ]


def test_target_output_wins_over_dataset_field_of_the_same_name() -> None:
    turn = make_turn({"question": text("q"), "answer": text("from dataset")})
    turn["evaluate_target_output_fields"] = {"answer": text("from target")}
    user = render_messages(QA_CONFIG, turn)[1]["content"]
    assert "A: from target" in user and "from dataset" not in user


def test_missing_optional_variable_renders_empty() -> None:
    turn = make_turn({"question": text("q")}, {"answer": text("a")})
    assert render_messages(QA_CONFIG, turn)[1]["content"].endswith("Ref: ")


@pytest.mark.parametrize(
    "turn",
    [
        make_turn({"question": text("q")}),
        make_turn({"question": text("q")}, {"answer": {"content_type": "Text", "text": None}}),
        make_turn({"question": text("q")}, {"answer": None}),
    ],
)
def test_missing_required_variable_raises_naming_it(turn: dict[str, Any]) -> None:
    with pytest.raises(RenderError, match="'answer'") as caught:
        render_messages(QA_CONFIG, turn)
    assert caught.value.variable == "answer"


def test_empty_text_is_a_value_not_a_missing_variable() -> None:
    turn = make_turn({"question": text("q")}, {"answer": text("")})
    assert "A: \nRef: " in render_messages(QA_CONFIG, turn)[1]["content"]


def test_undeclared_placeholder_without_value_is_an_error() -> None:
    config = make_config([{"role": "user", "content": "{{ mystery }}"}])
    with pytest.raises(RenderError, match="mystery"):
        render_messages(config, make_turn())


def test_json_braces_in_prompt_text_are_left_alone() -> None:
    config = make_config([{"role": "user", "content": 'Example: {{"score": 1}} for {{x}}'}])
    rendered = render_messages(config, make_turn({"x": text("X")}))
    assert rendered[0]["content"] == 'Example: {{"score": 1}} for X'


IMAGE_CONFIG = make_config(
    [
        {"role": "system", "content": "Judge the caption."},
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "Caption: {{caption}}"},
                {"type": "multi_part_variable", "variable": "photo"},
            ],
        },
    ],
    variable("caption"),
    variable("photo", "Image"),
)


def test_image_part_uses_the_url() -> None:
    turn = make_turn(
        {"photo": image(url="https://cdn.example/cat.png")}, {"caption": text("a cat")}
    )
    user = render_messages(IMAGE_CONFIG, turn)[1]
    assert user == {
        "role": "user",
        "content": [
            {"type": "text", "text": "Caption: a cat"},
            {"type": "image_url", "image_url": {"url": "https://cdn.example/cat.png"}},
        ],
    }


def test_image_storage_uri_goes_through_the_media_resolver() -> None:
    turn = make_turn({"photo": image(uri="media/cat.png")}, {"caption": text("a cat")})
    seen: list[str] = []

    def resolver(uri: str) -> str:
        seen.append(uri)
        return "data:image/png;base64,AAAA"

    user = render_messages(IMAGE_CONFIG, turn, media_resolver=resolver)[1]
    assert seen == ["media/cat.png"]
    assert user["content"][1] == {
        "type": "image_url",
        "image_url": {"url": "data:image/png;base64,AAAA"},
    }


def test_missing_required_image_raises() -> None:
    with pytest.raises(RenderError, match="'photo'"):
        render_messages(IMAGE_CONFIG, make_turn(output={"caption": text("a cat")}))


def test_audio_part_is_inline_base64_with_format() -> None:
    data = base64.b64encode(b"RIFF....WAVEfmt ").decode()
    config = make_config(
        [{"role": "user", "content": [{"type": "multi_part_variable", "variable": "clip"}]}],
        variable("clip", "Audio"),
    )
    clip = {
        "content_type": "Audio",
        "audio": {"url": f"data:audio/wav;base64,{data}", "format": "wav"},
    }
    part = render_messages(config, make_turn({"clip": clip}))[0]["content"][0]
    assert part == {"type": "input_audio", "input_audio": {"data": data, "format": "wav"}}


def test_audio_format_comes_from_the_data_url_when_absent() -> None:
    config = make_config(
        [{"role": "user", "content": [{"type": "multi_part_variable", "variable": "clip"}]}],
        variable("clip", "Audio"),
    )
    clip = {"content_type": "Audio", "audio": {"url": "data:audio/mpeg;base64,SUQz"}}
    part = render_messages(config, make_turn({"clip": clip}))[0]["content"][0]
    assert part["input_audio"] == {"data": "SUQz", "format": "mp3"}


def test_audio_link_that_is_not_data_is_a_clear_error() -> None:
    config = make_config(
        [{"role": "user", "content": [{"type": "multi_part_variable", "variable": "clip"}]}],
        variable("clip", "Audio"),
    )
    clip = {"content_type": "Audio", "audio": {"url": "https://cdn.example/a.wav", "format": "wav"}}
    with pytest.raises(RenderError, match="data URL"):
        render_messages(config, make_turn({"clip": clip}))


def test_multipart_variable_expands_in_order() -> None:
    config = make_config(
        [{"role": "user", "content": [{"type": "multi_part_variable", "variable": "doc"}]}],
        variable("doc", "MultiPart"),
    )
    doc = {
        "content_type": "MultiPart",
        "multi_part": [text("first"), image(url="https://x/1.png"), text("second")],
    }
    parts = render_messages(config, make_turn({"doc": doc}))[0]["content"]
    assert parts == [
        {"type": "text", "text": "first"},
        {"type": "image_url", "image_url": {"url": "https://x/1.png"}},
        {"type": "text", "text": "second"},
    ]


def test_image_variable_in_a_text_placeholder_is_an_error() -> None:
    config = make_config(
        [{"role": "user", "content": "Look: {{photo}}"}], variable("photo", "Image")
    )
    with pytest.raises(RenderError, match="multi_part_variable"):
        render_messages(config, make_turn({"photo": image(url="https://x/1.png")}))


def test_system_message_parts_collapse_to_text() -> None:
    config = make_config(
        [{"role": "system", "content": [{"type": "text", "text": "Grade {{topic}}."}]}],
        variable("topic"),
    )
    assert render_messages(config, make_turn({"topic": text("maths")})) == [
        {"role": "system", "content": "Grade maths."}
    ]


@pytest.mark.parametrize("mode", ["text", "json_object"])
def test_text_modes_append_the_json_instruction_to_the_system_prompt(mode: str) -> None:
    turn = make_turn({"question": text("q")}, {"answer": text("a")})
    system = render_messages(QA_CONFIG, turn, structured_mode=mode)[0]["content"]
    assert system.startswith("You are a strict grader.")
    assert system.endswith(answer_instruction())
    assert "JSON" in system


def test_instruction_adds_a_system_message_when_there_is_none() -> None:
    config = make_config([{"role": "user", "content": "Rate {{x}}"}], variable("x"))
    messages = render_messages(config, make_turn({"x": text("it")}), structured_mode="text")
    assert messages[0] == {"role": "system", "content": answer_instruction()}
    assert messages[1] == {"role": "user", "content": "Rate it"}


def test_structured_modes_do_not_touch_the_prompt() -> None:
    turn = make_turn({"question": text("q")}, {"answer": text("a")})
    for mode in ("json_schema", "tool"):
        assert render_messages(QA_CONFIG, turn, structured_mode=mode)[0]["content"] == (
            "You are a strict grader."
        )


def test_request_body_per_answer_mode() -> None:
    turn = make_turn({"question": text("q")}, {"answer": text("a")})
    schema_body = build_request(QA_CONFIG, turn, structured_mode="json_schema")
    assert schema_body["model"] == "judge-model"
    assert schema_body["temperature"] == 0.0 and schema_body["max_tokens"] == 300
    assert "top_p" not in schema_body
    json_schema = schema_body["response_format"]["json_schema"]
    assert schema_body["response_format"]["type"] == "json_schema"
    assert json_schema["schema"]["required"] == ["reason", "score"]
    assert json_schema["schema"]["properties"]["score"]["type"] == "number"

    tool_body = build_request(QA_CONFIG, turn, structured_mode="tool")
    assert tool_body["tools"][0]["function"]["name"] == "eval"
    assert tool_body["tool_choice"] == {"type": "function", "function": {"name": "eval"}}
    assert "response_format" not in tool_body

    assert build_request(QA_CONFIG, turn, structured_mode="json_object")["response_format"] == {
        "type": "json_object"
    }
    text_body = build_request(QA_CONFIG, turn, structured_mode="text")
    assert "response_format" not in text_body and "tools" not in text_body


def test_model_falls_back_to_the_provider_default_and_must_exist() -> None:
    config = {
        **QA_CONFIG,
        "model": {"model": "", "temperature": 0.5, "max_tokens": 10, "top_p": 0.7},
    }
    turn = make_turn({"question": text("q")}, {"answer": text("a")})
    body = build_request(config, turn, default_model="provider-default")
    assert body["model"] == "provider-default" and body["top_p"] == 0.7
    with pytest.raises(ValueError, match="no model"):
        build_request(config, turn)


def test_unknown_answer_mode_is_rejected() -> None:
    turn = make_turn({"question": text("q")}, {"answer": text("a")})
    with pytest.raises(ValueError, match="structured_mode"):
        build_request(QA_CONFIG, turn, structured_mode="telepathy")


def test_template_variables_lists_placeholders_and_media_parts() -> None:
    assert template_variables(QA_CONFIG) == {"question", "answer", "reference"}
    assert template_variables(IMAGE_CONFIG) == {"caption", "photo"}


def test_missing_required_variable_is_skipped_without_calling_the_model(
    llm_server, llm_settings
) -> None:
    turns = [
        make_turn({"question": text("q1")}, {"answer": text("a1")}),
        make_turn({"question": text("q2")}),
    ]
    first, second = run_llm_batch(QA_CONFIG, turns, llm_settings)
    assert first.status == "success" and first.score == 0.8
    assert second.status == "skipped"
    assert second.score is None
    assert "'answer'" in second.error
    assert second.rendered_request is None
    assert len(llm_server.chat_requests()) == 1


def test_image_reaches_the_server_as_an_image_url_part(llm_server, llm_settings) -> None:
    turn = make_turn({"photo": image(uri="media/cat.png")}, {"caption": text("a cat")})
    [outcome] = run_llm_batch(
        IMAGE_CONFIG, [turn], llm_settings, media_resolver=lambda uri: f"https://signed/{uri}"
    )
    assert outcome.status == "success"
    sent = llm_server.chat_requests()[0].body["messages"][1]["content"]
    assert sent[1] == {"type": "image_url", "image_url": {"url": "https://signed/media/cat.png"}}
