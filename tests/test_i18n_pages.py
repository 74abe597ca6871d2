"""The Chinese interface with the demo loaded, as a Coze Loop user reads it (issue 28): every
main page in zh-hans shows none of the English the second UX walk found in our own words, and
none of the words the glossary rejects (docs/i18n.md); the catalogue uses none of them either.

tests/test_i18n.py checks that every message is translated and that no run of English words of
our catalogue is left on a page; this file checks the words that were never in the catalogue
(raw codes, keys and labels shown as they are) and the choice of words itself.
"""

from __future__ import annotations

import html
import re
from pathlib import Path

import polib
import pytest
from django.core.exceptions import ValidationError
from django.utils import translation

from assay.demo import DEMO_WORKSPACE, demo_load
from experiments.demo import GARAK_RUN, PUSHED
from tests.test_i18n import CATALOGUES, ZH

ROOT = Path(__file__).resolve().parent.parent

# English the walk found on Chinese pages (issue 28), as patterns over what a reader sees.
# The demo's data is English on purpose (README), so each pattern names our words only.
ENGLISH = {
    "row-field options": r"\(row field\)",
    "encoding label": r"UTF-8 with BOM",
    "rate limit unit": r"\breq/min\b",
    "status counts": r"\b(?:success|error|timeout|skipped)\s*(?:<[^>]+>\s*)*\d",
    "leaderboard header": r"P\(best\)",
    "compare filter chips": r">\s*(?:all|regressions|improvements|unknown|changed)\s*<",
    "target config keys": r"\b(?:method|url|headers|body|output|trajectory|tokens_in|tokens_out"
    r"|cost|timeout_s|max_retries|rpm_limit|seed|model|max_turns|provider_id|stop_phrase"
    r"|system_prompt|app|persona|goal|opening)\s*</dt>",
    "column type names": r"<option\b[^>]*>\s*(?:Text|Image|Audio|MultiPart|Conversation)\s*<",
    "row counts and kinds in choices": r"\d rows?\s*</option>|@ [\w.]+ \((?:Code|LLM judge)\)",
    "the draft by its code": r">\s*draft\s*</(?:option|th)>",
    "column type after a name": r"\((?:Text|Image|Audio|MultiPart|Conversation)[,)]",
    "language named in Chinese": r"英语",
    "relative time": r"\d+\s分钟\s前|(?<!\d)0\s分钟",
    "model tokens": r"\btok\b",
}

# The same on the text alone (markup out): full-width punctuation, no space after it.
PROSE = {
    "space after a full-width colon": r"：[ \xa0]",
    "ASCII full stop after Chinese": r"[\u4e00-\u9fff]\.(?:\s|$)",
    "ASCII brackets around Chinese": r"\([^()\n]*[\u4e00-\u9fff][^()\n]*\)",
}


def rejected_words() -> list[str]:
    """The glossary's rejected words: the "not" column of docs/i18n.md's glossary."""
    text = (ROOT / "docs" / "i18n.md").read_text(encoding="utf-8")
    table = text.split("## Glossary", 1)[1]
    header = next(line for line in table.splitlines() if line.startswith("| English"))
    column = [cell.strip() for cell in header.strip("|").split("|")].index("not")
    words = []
    for line in table.splitlines():
        if not line.startswith("|") or line.startswith(("| English", "| ---")):
            continue
        cell = [c.strip() for c in line.strip("|").split("|")][column]
        words += [w.strip() for w in cell.split("，") if w.strip()]
    return words


def seen(page: str) -> str:
    """What a reader sees: markup kept (the patterns look at <dt> and <option>), scripts, code
    and user-typed boxes out, and the visible attributes added."""
    # what is left out stays a mark (code after "：" is not a space after it)
    page = re.sub(r"(?is)<(script|style|pre|code|textarea|template)\b.*?</\1>", "·", page)
    attrs = " ".join(
        m.group(2)
        for m in re.finditer(r'\b(title|aria-label|placeholder|alt|data-confirm)="([^"]*)"', page)
    )
    return html.unescape(page + " " + attrs)


def english_found(page: str) -> dict[str, list[str]]:
    text = seen(page)
    found = {}
    for name, pattern in ENGLISH.items():
        hits = sorted({m.group(0) for m in re.finditer(pattern, text)})
        if hits:
            found[name] = hits
    lines = re.sub(r"<[^>]+>", "", text)  # a line break between blocks is no space
    words = re.sub(r"\s+", " ", lines)
    rejected = [word for word in rejected_words() if word in words]
    if rejected:
        found["rejected words"] = rejected
    for name, pattern in PROSE.items():
        hits = sorted(
            {lines[max(0, m.start() - 12) : m.end() + 12] for m in re.finditer(pattern, lines)}
        )
        if hits:
            found[name] = hits
    return found


@pytest.fixture
def demo(db, client):
    from assay.models import Workspace
    from evalsets.importing import import_create
    from evalsets.models import EvalSet
    from experiments import services as experiment_services
    from experiments.models import Experiment, PairwiseRun
    from tests.evalsets.conftest import upload

    workspace = demo_load()
    assert workspace.slug == DEMO_WORKSPACE
    user = workspace.memberships.get(role="owner").user  # the demo reviewers are editors
    client.force_login(user)
    qa = EvalSet.objects.get(workspace=workspace, name="Demo QA")
    job = import_create(
        evalset=qa,
        user=user,
        upload=upload("more.csv", "input,reference_output,tag\nq,a,x\n"),
        start=False,
    )
    baseline = Experiment.objects.get(workspace=workspace, is_baseline=True)
    http = experiment_services.experiment_create(
        workspace=workspace,
        user=user,
        name="HTTP 应用",
        evalset_version=baseline.evalset_version,
        bindings=[{"evaluator_version": baseline.bindings.first().evaluator_version}],
        target={
            "kind": "http",
            "url": "http://127.0.0.1:9/answer",
            "body": {"q": "{{input}}"},
            "output": "answer",
            "timeout_s": 10,
            "max_retries": 1,
        },
    )
    return {
        "ws": Workspace.objects.get(pk=workspace.pk),
        "qa": qa,
        "job": job,
        "baseline": baseline,
        "http": http,
        "pairwise": PairwiseRun.objects.filter(workspace=workspace).first(),
        "client": client,
    }


def webhook_pages(demo) -> list[str]:
    """An endpoint's page, disabled by Assay after a failed delivery, its log with it."""
    from django.utils import timezone

    from notifications.services import endpoint_create, endpoint_disable, endpoint_test_send

    owner = demo["ws"].memberships.get(role="owner").user
    endpoint, _secret = endpoint_create(
        workspace=demo["ws"], user=owner, url="https://hooks.example.com/x", events=["alert.fired"]
    )
    endpoint_test_send(endpoint=endpoint)
    facts = {"n": 8, "last": "HTTP 500"}
    notice = "Disabled: a delivery failed 8 times (last: HTTP 500)."
    endpoint_disable(endpoint=endpoint, notice=notice, now=timezone.now(), facts=facts)
    return [f"/w/{demo['ws'].slug}/settings/webhooks/{endpoint.public_id}/"]


def main_pages(demo) -> list[str]:
    from evaluators.models import Evaluator
    from experiments.models import Experiment

    ws = f"/w/{demo['ws'].slug}"
    qa, job, baseline = demo["qa"], demo["job"], demo["baseline"]
    evaluator = Evaluator.objects.filter(workspace=demo["ws"]).order_by("created_at").first()
    stricter = Experiment.objects.get(workspace=demo["ws"], name="Demo QA · stricter containment")
    simulated = Experiment.objects.filter(workspace=demo["ws"], target_kind="simulated_user")
    item = baseline.evalset_version.items.order_by("position").first()
    contains = baseline.bindings.first().evaluator_version.evaluator
    garak = Experiment.objects.get(workspace=demo["ws"], name=GARAK_RUN)
    pushed = Experiment.objects.get(workspace=demo["ws"], name=PUSHED)
    pairwise = demo["pairwise"].public_id
    pages = [
        "/",
        "/workspaces/new/",
        f"{ws}/evaluators/{contains.public_id}/versions/?old=1.0.0&new=1.1.0",
        f"{ws}/evaluators/{contains.public_id}/versions/1.0.0/",
        f"{ws}/evalsets/{qa.public_id}/columns/",
        f"{ws}/evalsets/{qa.public_id}/versions/",
        f"{ws}/evalsets/{qa.public_id}/rows/new/",
        f"{ws}/experiments/{garak.public_id}/",
        f"{ws}/experiments/{pushed.public_id}/",
        f"{ws}/experiments/{pushed.public_id}/rescore/",
        f"{ws}/pairwise/{pairwise}/rows/",
        f"{ws}/evaluators/",
        f"{ws}/evaluators/new/",
        f"{ws}/evaluators/{evaluator.public_id}/",
        f"{ws}/evaluators/{evaluator.public_id}/versions/",
        f"{ws}/evalsets/",
        f"{ws}/evalsets/{qa.public_id}/",
        f"{ws}/evalsets/{qa.public_id}/import/",
        f"{ws}/evalsets/{qa.public_id}/import/{job.public_id}/",
        f"{ws}/experiments/",
        f"{ws}/experiments/new/",
        f"{ws}/experiments/{baseline.public_id}/",
        f"{ws}/experiments/{baseline.public_id}/items/{item.item_id}/",
        f"{ws}/experiments/{baseline.public_id}/dashboard/",
        f"{ws}/experiments/{demo['http'].public_id}/",
        *[f"{ws}/experiments/{e.public_id}/" for e in simulated],
        f"{ws}/compare/?baseline={baseline.public_id}&candidates={stricter.public_id}",
        f"{ws}/pairwise/",
        f"{ws}/pairwise/new/",
        f"{ws}/pairwise/{demo['pairwise'].public_id}/",
        f"{ws}/experiments/import-garak/",
        f"{ws}/settings/providers/",
        f"{ws}/settings/providers/new/",
        f"{ws}/settings/members/",
        f"{ws}/settings/secrets/",
        f"{ws}/settings/tokens/",
        f"{ws}/settings/webhooks/",
        *webhook_pages(demo),
    ]
    return pages


def test_main_pages_in_chinese_show_none_of_the_english_the_walk_found(demo):
    client, problems = demo["client"], {}
    for url in main_pages(demo):
        response = client.get(url, follow=True, **ZH)
        assert response.status_code == 200, url
        assert response.headers["Content-Language"] == "zh-hans", url
        found = english_found(response.content.decode())
        if found:
            problems[url] = found
    assert not problems, "\n".join(f"{url}: {found}" for url, found in problems.items())


def test_pages_before_signing_in_show_none_of_it_either(demo):
    """The sign-in page and an invitation a colleague opens, in Chinese, signed out."""
    from django.test import Client

    from assay import services

    issued = services.invitation_create(
        workspace=demo["ws"], user=demo["ws"].memberships.get(role="owner").user, role="editor"
    )
    problems = {}
    for url in ("/accounts/login/", f"/invite/{issued.key}/"):
        response = Client().get(url, **ZH)
        assert response.status_code == 200, url
        if found := english_found(response.content.decode()):
            problems[url] = found
    assert not problems, problems


def test_the_language_switch_names_each_language_in_itself(demo):
    page = demo["client"].get(f"/w/{demo['ws'].slug}/evaluators/new/", **ZH).content.decode()
    switch = page[page.index('action="/i18n/setlang/"') :].split("</form>", 1)[0]
    assert ">English<" in switch and ">简体中文<" in switch
    prompt = re.search(r'(?s)<select name="prompt_locale".*?</select>', page).group(0)
    assert ">English<" in prompt and ">简体中文<" in prompt


def test_the_catalogue_uses_none_of_the_rejected_words():
    words = rejected_words()
    assert "评估对象" in words and "最大令牌" in words  # the glossary's table is read
    found = {}
    for path in CATALOGUES:
        for entry in polib.pofile(str(path)):
            forms = list(entry.msgstr_plural.values()) if entry.msgid_plural else [entry.msgstr]
            bad = [w for w in words for form in forms if w in form]
            if bad:
                found[entry.msgid] = sorted(set(bad))
    assert not found, found


# Full-width punctuation in Chinese text: no ASCII full stop or comma right after a Chinese
# character, no space after a full-width colon (docs/i18n.md, "Rules for Chinese text").
PUNCTUATION = re.compile(r"[\u4e00-\u9fff][.,;:?!](?:\s|$)|：\s")


def test_chinese_messages_use_full_width_punctuation():
    found = []
    for path in CATALOGUES:
        for entry in polib.pofile(str(path)):
            forms = list(entry.msgstr_plural.values()) if entry.msgid_plural else [entry.msgstr]
            # ASCII stays inside code notation ({列: 值})
            prose = [re.sub(r"\{[^{}]*\}", "X", re.sub(r"\{[^{}]*\}", "X", f)) for f in forms]
            found += [(entry.msgid, form) for form in prose if PUNCTUATION.search(form)]
    assert not found, found[:20]


def test_an_error_about_a_field_the_form_has_not_is_named_in_words(db):
    from django import forms

    from assay.web.errors import add_errors, error_lines

    class Mapping(forms.Form):
        name = forms.CharField()

    exc = ValidationError({"new_columns": ["'问题' 不行。"], "mapping": ["缺少 input。"]})
    with translation.override("zh-hans"):
        form = Mapping({"name": "x"})
        form.is_valid()
        add_errors(form, exc)
        shown = form.non_field_errors()
        assert "新列：'问题' 不行。" in shown and "映射：缺少 input。" in shown
        assert error_lines(exc) == ["新列：'问题' 不行。", "映射：缺少 input。"]


# ---- the rule Assay appends to a judge's prompt ---------------------------------------------

ZH_JUDGE = [
    {"role": "system", "content": "你是一名严格的评分员。请判断回答是否与参考答案一致。"},
    {"role": "user", "content": "问题：{{input}}\n回答：{{actual_output}}"},
]


def judge_config(messages):
    variables = [
        {"name": n, "content_type": "Text", "required": True} for n in ("input", "actual_output")
    ]
    return {"messages": messages, "input_variables": variables}


def judge_turn(question: str, answer: str) -> dict:
    text = lambda value: {"content_type": "Text", "text": value}  # noqa: E731
    return {
        "evaluate_dataset_fields": {"input": text(question)},
        "evaluate_target_output_fields": {"actual_output": text(answer)},
    }


@pytest.mark.parametrize("mode", ["text", "json_object"])
def test_a_chinese_judge_prompt_gets_the_answer_rule_in_chinese(mode):
    from evaluators.llm.answer import answer_instruction
    from evaluators.llm.render import render_messages

    system = render_messages(
        judge_config(ZH_JUDGE), judge_turn("法国的首都？", "巴黎"), structured_mode=mode
    )[0]["content"]
    # the prompt's own text stays byte for byte; only the rule Assay adds is Chinese
    assert system == ZH_JUDGE[0]["content"] + "\n\n" + answer_instruction("zh")
    assert "只回答一个 JSON 对象" in system and "Answer with" not in system
    assert '"reason"' in system and '"score"' in system  # the keys the parser reads

    english = [{"role": "system", "content": "You are a strict grader."}, ZH_JUDGE[1]]
    english[1] = {"role": "user", "content": "Question: {{input}}\nAnswer: {{actual_output}}"}
    # Chinese row values do not make an English prompt Chinese
    system = render_messages(
        judge_config(english), judge_turn("法国的首都？", "巴黎"), structured_mode=mode
    )[0]["content"]
    assert system.endswith(answer_instruction("en")) and "Answer with a single JSON" in system


def test_a_chinese_pairwise_judge_gets_the_choice_rule_in_chinese():
    from evaluators.llm.choice import choice_instruction
    from evaluators.llm.render import prompt_language

    assert prompt_language(judge_config(ZH_JUDGE)) == "zh"
    assert "verdict" in choice_instruction("zh") and "第一个回答" in choice_instruction("zh")
    assert choice_instruction("en").startswith("Answer with a single JSON object")
