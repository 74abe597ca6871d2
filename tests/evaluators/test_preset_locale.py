"""Presets in Chinese: every preset has a complete zh-hans entry, every judge a Chinese prompt
with the same variables and output contract; the new-evaluator page shows the Chinese names in
Chinese; creating picks the prompt by `prompt_locale` (default: the interface language)."""

import html
import json
import re

import pytest
from django.urls import reverse

from evaluators.models import Evaluator
from evaluators.presets import PRESETS_DIR, load_presets

PRESETS = load_presets()
JUDGES = [p for p in PRESETS if p["kind"] in ("llm", "pairwise")]
ZH = {"HTTP_ACCEPT_LANGUAGE": "zh-hans"}
API_URL = "/api/v1/evaluators/"
HAN = re.compile(r"[\u4e00-\u9fff]")


def variables_of(config: dict) -> set[str]:
    """Every {{name}} a config's messages use, and every multi_part_variable part's name."""
    found = set()
    for message in config["messages"]:
        content = message["content"]
        parts = [{"type": "text", "text": content}] if isinstance(content, str) else content
        for part in parts:
            found |= set(re.findall(r"\{\{\s*(\w+)\s*\}\}", part.get("text", "")))
            if part.get("type") == "multi_part_variable":
                found.add(part["variable"])
    return found


@pytest.mark.parametrize("preset", PRESETS, ids=lambda p: p["slug"])
def test_every_preset_has_a_complete_chinese_entry(preset):
    entry = preset["locale"].get("zh-hans", {})
    for field in ("name", "description", "inputs"):
        assert HAN.search(entry.get(field, "")), f"{preset['slug']}: no Chinese {field}"
        assert ": " not in entry[field], f"{preset['slug']}: ASCII colon in Chinese {field}"


@pytest.mark.parametrize("preset", JUDGES, ids=lambda p: p["slug"])
def test_every_judge_has_a_chinese_prompt_with_the_same_variables(preset):
    english, chinese = preset["config"], preset["locale"]["zh-hans"].get("config")
    assert chinese, f"{preset['slug']}: no Chinese prompt (locale.zh-hans.messages)"
    assert variables_of(chinese) == variables_of(english)
    assert [m["role"] for m in chinese["messages"]] == [m["role"] for m in english["messages"]]
    # The user messages may be only tags around variables; the instructions are Chinese.
    assert HAN.search(chinese["messages"][0]["content"])
    assert {k: v for k, v in chinese.items() if k not in ("messages", "input_variables")} == {
        k: v for k, v in english.items() if k not in ("messages", "input_variables")
    }
    names = [v["name"] for v in chinese["input_variables"]]
    assert names == [v["name"] for v in english["input_variables"]]


@pytest.mark.parametrize("preset", JUDGES, ids=lambda p: p["slug"])
def test_chinese_prompt_keeps_the_output_contract(preset):
    system = preset["locale"]["zh-hans"]["config"]["messages"][0]["content"]
    keys = ('"reason"', '"verdict"') if preset["kind"] == "pairwise" else ('"reason"', '"score"')
    assert all(key in system for key in keys), preset["slug"]
    if preset["kind"] == "pairwise":
        assert all(f'"{v}"' in system for v in ("A", "B", "tie"))


def test_english_prompts_are_the_data_files_own():
    """The Chinese entry adds a key; the English config is read from the file untouched."""
    for preset in JUDGES:
        path = PRESETS_DIR / preset["kind"] / f"{preset['slug']}.json"
        data = json.loads(path.read_text(encoding="utf-8"))
        assert preset["config"]["messages"] == data["config"]["messages"]


def new_url(workspace):
    return reverse("evaluators:new", kwargs={"ws": workspace.slug})


@pytest.mark.django_db
def test_new_page_in_chinese_shows_the_chinese_templates(web, workspace, templates):
    page = html.unescape(web.get(new_url(workspace), **ZH).content.decode())
    for preset in PRESETS:
        zh = preset["locale"]["zh-hans"]
        assert f'data-name="{zh["name"]}"' in page, preset["slug"]
        assert zh["description"][:60] in page, preset["slug"]
    assert "Correctness vs reference" not in page
    assert '<option value="zh-hans" lang="zh-hans" selected>' in page
    english = html.unescape(web.get(new_url(workspace)).content.decode())
    assert "Correctness vs reference" in english and "对照参考答案的正确性" not in english
    assert '<option value="en" lang="en" selected>' in english


@pytest.mark.django_db
def test_new_page_creates_with_the_chosen_prompt_language(web, workspace, templates):
    chinese = templates.get(slug="correctness").locale["zh-hans"]["config"]["messages"]
    form = {"name": "中文判官", "source": "template:correctness", "prompt_locale": "zh-hans"}
    assert web.post(new_url(workspace), form).status_code == 302
    assert Evaluator.objects.get(name="中文判官").draft_config["messages"] == chinese
    web.post(new_url(workspace), {"name": "Default", "source": "template:correctness"}, **ZH)
    assert Evaluator.objects.get(name="Default").draft_config["messages"] == chinese


@pytest.mark.django_db
def test_api_prompt_locale_picks_the_prompt(api, templates):
    template = templates.get(slug="which-is-better")
    zh = api.post(
        API_URL, {"template": "which-is-better", "prompt_locale": "zh-hans"}, format="json"
    )
    assert zh.status_code == 201, zh.content
    body = zh.json()
    assert body["config"]["messages"] == template.locale["zh-hans"]["config"]["messages"]
    assert body["name"] == "哪个回答更好（成对）"
    en = api.post(API_URL, {"template": "relevance"}, format="json").json()
    assert en["config"]["messages"] == templates.get(slug="relevance").configs["llm"]["messages"]
    assert en["name"] == "Relevance"
    in_zh = api.post(API_URL, {"template": "helpfulness"}, format="json", **ZH).json()
    assert in_zh["name"] == "有用性" and HAN.search(in_zh["config"]["messages"][0]["content"])


@pytest.mark.django_db
def test_api_unknown_prompt_locale_is_a_400_naming_the_field(api, templates):
    response = api.post(API_URL, {"template": "relevance", "prompt_locale": "fr"}, format="json")
    assert response.status_code == 400
    error = response.json()["error"]
    assert "prompt_locale" in error["details"] and "fr" in json.dumps(error["details"])
    assert not Evaluator.objects.exists()
