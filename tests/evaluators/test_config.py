"""Evaluator config schema: validation errors name the field, submit checks, hash and diff."""

import copy

import pytest

from evaluators.config import (
    ConfigError,
    config_hash,
    default_config,
    diff_configs,
    submit_problems,
    validate_config,
)
from evaluators.kinds.code import MAX_SOURCE_BYTES
from evaluators.kinds.llm import placeholders


def llm_config(**overrides):
    config = {
        "input_variables": [
            {"name": "input", "content_type": "Text"},
            {"name": "output", "content_type": "Text", "required": True, "description": "answer"},
        ],
        "messages": [
            {"role": "system", "content": "You judge answers."},
            {"role": "user", "content": "Q: {{input}}\nA: {{ output }}"},
        ],
        "model": {"provider_id": "prov-1", "model": "judge-model", "temperature": 0},
    }
    config.update(overrides)
    return config


def code_config(**overrides):
    config = {
        "input_variables": [{"name": "actual_output", "content_type": "Text"}],
        "language": "python",
        "source": "def exec_evaluation(turn):\n    return EvalOutput(score=1.0, reason='ok')\n",
    }
    config.update(overrides)
    return config


def errors_of(kind, config):
    with pytest.raises(ConfigError) as info:
        validate_config(kind, config)
    return info.value.errors


# --- validation -------------------------------------------------------------------------------


def test_valid_llm_config_is_normalised_with_defaults():
    result = validate_config("llm", llm_config())
    assert result["input_variables"][0] == {
        "name": "input",
        "content_type": "Text",
        "required": True,
        "description": "",
    }
    assert result["model"] == {
        "provider_id": "prov-1",
        "model": "judge-model",
        "temperature": 0.0,
        "max_tokens": 1024,
    }
    assert isinstance(result["model"]["temperature"], float)


def test_valid_code_config_gets_limit_defaults():
    result = validate_config("code", code_config())
    assert result["timeout_s"] == 5.0
    assert result["memory_mb"] == 256
    assert result["language"] == "python"


def test_bad_content_type_names_the_field():
    config = llm_config()
    config["input_variables"][1]["content_type"] = "Video"
    errors = errors_of("llm", config)
    assert list(errors) == ["input_variables[1].content_type"]
    assert "Video" in errors["input_variables[1].content_type"][0]


def test_duplicate_variable_name():
    config = llm_config()
    config["input_variables"][1]["name"] = "input"
    errors = errors_of("llm", config)
    assert "Duplicate" in errors["input_variables[1].name"][0]


@pytest.mark.parametrize("name", ["1abc", "has space", "a" * 65, "", None, "{{x}}"])
def test_variable_names_must_be_identifiers(name):
    config = llm_config()
    config["input_variables"][0]["name"] = name
    assert "input_variables[0].name" in errors_of("llm", config)


def test_unknown_keys_are_rejected_by_name_at_every_level():
    config = llm_config(extra=1)
    config["input_variables"][0]["colour"] = "red"
    config["messages"][0]["name"] = "bob"
    config["model"]["seed"] = 3
    errors = errors_of("llm", config)
    assert errors["extra"] == ["Unknown field 'extra'."]
    assert errors["input_variables[0].colour"] == ["Unknown field 'colour'."]
    assert errors["messages[0].name"] == ["Unknown field 'name'."]
    assert errors["model.seed"] == ["Unknown field 'seed'."]


def test_code_keys_are_unknown_for_llm_and_vice_versa():
    assert "source" in errors_of("llm", llm_config(source="x"))
    assert "messages" in errors_of("code", code_config(messages=[]))


def test_oversized_source():
    source = "def exec_evaluation(turn):\n    pass\n" + "#" * MAX_SOURCE_BYTES
    errors = errors_of("code", code_config(source=source))
    assert "64 KiB" in errors["source"][0]


def test_source_size_counts_utf8_bytes():
    # 30k three-byte characters are under 64k characters but over 64 KiB.
    errors = errors_of("code", code_config(source="# " + "€" * 30000))
    assert "source" in errors


@pytest.mark.parametrize("temperature", [-0.1, 2.5, "hot", True, float("nan")])
def test_bad_temperature(temperature):
    config = llm_config()
    config["model"]["temperature"] = temperature
    assert "model.temperature" in errors_of("llm", config)


@pytest.mark.parametrize(
    ("field", "value"),
    [("max_tokens", 0), ("max_tokens", 40000), ("max_tokens", 12.5), ("top_p", 0), ("top_p", 1.2)],
)
def test_bad_model_numbers(field, value):
    config = llm_config()
    config["model"][field] = value
    assert f"model.{field}" in errors_of("llm", config)


def test_top_p_kept_when_given_and_omitted_when_null():
    config = llm_config()
    config["model"]["top_p"] = 1
    assert validate_config("llm", config)["model"]["top_p"] == 1.0
    config["model"]["top_p"] = None
    assert "top_p" not in validate_config("llm", config)["model"]


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("timeout_s", 0.05),
        ("timeout_s", 61),
        ("memory_mb", 8),
        ("memory_mb", 2048),
        ("memory_mb", 64.0),
    ],
)
def test_bad_code_limits(field, value):
    assert field in errors_of("code", code_config(**{field: value}))


def test_bad_language():
    assert "language" in errors_of("code", code_config(language="ruby"))


def test_messages_need_a_user_message_and_known_roles():
    errors = errors_of("llm", llm_config(messages=[{"role": "system", "content": "hi"}]))
    assert "messages" in errors
    errors = errors_of("llm", llm_config(messages=[{"role": "assistant", "content": "hi"}]))
    assert "messages[0].role" in errors


def test_message_parts_are_checked():
    content = [
        {"type": "text", "text": 5},
        {"type": "image_url", "url": "x"},
        {"type": "multi_part_variable", "variable": "not valid"},
    ]
    errors = errors_of("llm", llm_config(messages=[{"role": "user", "content": content}]))
    assert set(errors) == {
        "messages[0].content[0].text",
        "messages[0].content[1].type",
        "messages[0].content[2].variable",
    }


def test_empty_message_content():
    errors = errors_of("llm", llm_config(messages=[{"role": "user", "content": "  "}]))
    assert "messages[0].content" in errors


def test_every_problem_is_reported_at_once():
    config = llm_config(extra=1)
    config["input_variables"][0]["content_type"] = "Video"
    config["model"]["temperature"] = 9
    errors = errors_of("llm", config)
    assert {"extra", "input_variables[0].content_type", "model.temperature"} <= set(errors)


def test_unknown_kind_and_non_dict_config():
    assert "kind" in errors_of("agent", {})
    assert "config" in errors_of("llm", ["not", "a", "dict"])


def test_config_error_message_summarises_the_fields():
    with pytest.raises(ConfigError, match=r"model\.temperature"):
        validate_config("llm", llm_config(model={"model": "m", "temperature": 5}))


# --- placeholders and submit checks ------------------------------------------------------------


def test_placeholders_include_spaced_braces_and_multi_part_variables():
    config = llm_config()
    config["messages"].append(
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "See {{  context }} and {{bad name}}"},
                {"type": "multi_part_variable", "variable": "image"},
            ],
        }
    )
    assert placeholders(config) == {"input", "output", "context", "image"}


def test_valid_llm_config_has_no_submit_problems():
    assert submit_problems("llm", llm_config(), model_configured=True) == {}


def test_undeclared_placeholder_is_reported_where_used():
    config = llm_config()
    config["messages"][1]["content"] += "\nRef: {{reference_output}}"
    problems = submit_problems("llm", config, model_configured=True)
    assert list(problems) == ["messages[1].content"]
    assert "reference_output" in problems["messages[1].content"][0]


def test_unused_required_variable():
    config = llm_config()
    config["input_variables"].append({"name": "context", "content_type": "Text"})
    problems = submit_problems("llm", config, model_configured=True)
    assert "context" in problems["input_variables[2].name"][0]


def test_unused_optional_variable_is_fine():
    config = llm_config()
    config["input_variables"].append({"name": "context", "content_type": "Text", "required": False})
    assert submit_problems("llm", config, model_configured=True) == {}


def test_media_variable_in_text_placeholder_is_an_error():
    config = llm_config()
    config["input_variables"][0]["content_type"] = "Image"
    problems = submit_problems("llm", config, model_configured=True)
    assert "Image" in problems["messages[1].content"][0]


def test_multi_part_variable_must_be_media():
    config = llm_config()
    config["input_variables"].append({"name": "image", "content_type": "Image"})
    config["messages"][1]["content"] = [
        {"type": "text", "text": "{{input}} {{output}}"},
        {"type": "multi_part_variable", "variable": "image"},
    ]
    assert submit_problems("llm", config, model_configured=True) == {}
    config["input_variables"][2]["content_type"] = "Text"
    problems = submit_problems("llm", config, model_configured=True)
    assert "messages[1].content[1].variable" in problems
    config["messages"][1]["content"][1]["variable"] = "missing"
    problems = submit_problems("llm", config, model_configured=True)
    assert "not declared" in problems["messages[1].content[1].variable"][0]


def test_model_must_be_configured():
    config = llm_config(model={"provider_id": None, "model": ""})
    problems = submit_problems("llm", config, model_configured=False)
    assert "model.model" in problems
    assert "model.provider_id" in problems
    assert "model.model" not in submit_problems("llm", llm_config(), model_configured=False)


def test_submit_returns_schema_errors_for_an_invalid_config():
    problems = submit_problems("llm", llm_config(extra=True), model_configured=True)
    assert problems == {"extra": ["Unknown field 'extra'."]}


def test_python_syntax_error_reports_the_line():
    source = "def exec_evaluation(turn):\n    return (\n"
    problems = submit_problems("code", code_config(source=source), model_configured=False)
    assert "line" in problems["source"][0]


def test_python_source_must_define_exec_evaluation_at_top_level():
    nested = "class A:\n    def exec_evaluation(self, turn):\n        pass\n"
    assert "source" in submit_problems("code", code_config(source=nested), model_configured=False)
    other = "def evaluate(turn):\n    pass\n"
    assert "source" in submit_problems("code", code_config(source=other), model_configured=False)
    assert submit_problems("code", code_config(), model_configured=False) == {}


@pytest.mark.parametrize(
    ("source", "ok"),
    [
        ("function exec_evaluation(turn) { return {score: 1, reason: ''}; }", True),
        ("function execEvaluation(turn) { return 1; }", True),
        ("const exec_evaluation = (turn) => ({score: 1, reason: ''});", True),
        ("let execEvaluation = turn => 1;", True),
        ("var exec_evaluation = function (turn) { return 1; };", True),
        ("function evaluate(turn) { return 1; }", False),
        ("// exec_evaluation is missing\n", False),
    ],
)
def test_javascript_entry_point(source, ok):
    config = code_config(language="javascript", source=source)
    problems = submit_problems("code", config, model_configured=False)
    assert (problems == {}) is ok


# --- hash ------------------------------------------------------------------------------------


def test_hash_ignores_key_order_and_is_a_sha256_hex():
    a = validate_config("llm", llm_config())
    b = dict(reversed(list(copy.deepcopy(a).items())))
    assert config_hash(a) == config_hash(b)
    assert len(config_hash(a)) == 64
    assert int(config_hash(a), 16) >= 0


def test_hash_is_stable_across_runs():
    # A fixed value: changing the canonical form would silently break stored version hashes.
    assert config_hash({"b": 1, "a": [1, "é"]}) == (
        "8717ac25ea6b88548fae92fcf938c6f0764f85913ba025812e1859bf0166f5d8"
    )


def test_hash_changes_with_content_and_normalisation_removes_default_noise():
    a = validate_config("llm", llm_config())
    changed = copy.deepcopy(a)
    changed["model"]["temperature"] = 0.5
    assert config_hash(a) != config_hash(changed)
    explicit = llm_config()
    explicit["model"].update(max_tokens=1024, temperature=0.0)
    assert config_hash(validate_config("llm", explicit)) == config_hash(a)


# --- diff ------------------------------------------------------------------------------------


def test_diff_of_equal_configs_is_empty():
    a = validate_config("llm", llm_config())
    assert diff_configs(a, copy.deepcopy(a)) == []


def test_diff_reports_scalars_and_text_with_unified_lines():
    a = validate_config("llm", llm_config())
    b = copy.deepcopy(a)
    b["model"]["temperature"] = 0.7
    b["messages"][1]["content"] = "Q: {{input}}\nAnswer: {{ output }}"
    b["input_variables"].append(
        {"name": "context", "content_type": "Text", "required": False, "description": ""}
    )
    diff = diff_configs(a, b)
    paths = [entry["path"] for entry in diff]
    assert paths == ["input_variables[2]", "messages[1].content", "model.temperature"]
    added, text, scalar = diff
    assert added["change"] == "added" and added["old"] is None
    assert added["new"]["name"] == "context"
    assert scalar == {"path": "model.temperature", "change": "changed", "old": 0.0, "new": 0.7}
    assert text["diff"][:2] == ["--- a/messages[1].content", "+++ b/messages[1].content"]
    assert "-A: {{ output }}" in text["diff"]
    assert "+Answer: {{ output }}" in text["diff"]
    assert " Q: {{input}}" in text["diff"]


def test_diff_source_and_removed_fields():
    a = validate_config("code", code_config())
    b = copy.deepcopy(a)
    b["source"] = a["source"].replace("1.0", "0.5")
    b["memory_mb"] = 512
    diff = diff_configs(a, b)
    assert [e["path"] for e in diff] == ["memory_mb", "source"]
    assert any(line.startswith("+") and "0.5" in line for line in diff[1]["diff"])
    removed = diff_configs({"a": 1, "b": 2}, {"a": 1})
    assert removed == [{"path": "b", "change": "removed", "old": 2, "new": None}]


def test_diff_is_deterministic():
    a = validate_config("llm", llm_config())
    b = validate_config("llm", llm_config(messages=[{"role": "user", "content": "{{input}}"}]))
    assert diff_configs(a, b) == diff_configs(copy.deepcopy(a), copy.deepcopy(b))


# --- starters ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kind", "language"), [("llm", None), ("code", "python"), ("code", "javascript")]
)
def test_default_configs_are_valid_and_submittable(kind, language):
    config = default_config(kind, language)
    assert validate_config(kind, config) == config
    problems = submit_problems(kind, config, model_configured=True)
    if kind == "llm":
        assert set(problems) == {"model.model"}  # the user still has to pick a model
    else:
        assert problems == {}
        assert "exec_evaluation" in config["source"]
        assert "EvalOutput" in config["source"] or "score" in config["source"]


def test_default_config_rejects_unknown_kind_and_language():
    with pytest.raises(ValueError):
        default_config("agent")
    with pytest.raises(ValueError):
        default_config("code", "ruby")
