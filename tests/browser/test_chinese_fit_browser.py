"""Headless Chromium on the demo workspace in 简体中文 (and English where the words differ): the
defects of the third UX walk stay fixed. On a phone a list's name column keeps a readable width;
short Chinese words (代码, 对比, 输出和理由, 评估器) never split across lines; a label before its
choices ends in the language's colon ("导出：", "Export:") with no space after the full-width one;
the import preview's cells are wide enough to read a Chinese question."""

import pytest

from assay.demo import DEMO_WORKSPACE, demo_load
from evalsets.models import EvalSet
from experiments.demo import BASELINE, EVALSET_NAME, PUSHED, STRICTER
from experiments.models import Experiment
from tests.browser.test_widths_browser import _pairwise_pages, sign_in_demo
from tests.support.fixtures import screenshot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PHONE, DESKTOP = 390, 1440
# Every short run of Chinese (at most six characters, e.g. a label, a kind, a link) in <main>
# that the browser laid out on more than one line, with the text of its parent for the message.
SPLIT_WORDS = """() => {
  const out = [];
  for (const el of document.querySelectorAll('main *')) {
    if (el.children.length || !el.getClientRects().length) continue;
    const text = (el.textContent || '').trim();
    if (!text || text.length > 6 || !/^[\\u4e00-\\u9fff（）：\\s\\d]+$/.test(text)) continue;
    const range = document.createRange();
    range.selectNodeContents(el);
    const lines = new Set([...range.getClientRects()].map(r => Math.round(r.top))).size;
    if (lines > 1) out.push(el.tagName.toLowerCase() + ' "' + text + '"');
  }
  return out;
}"""
# The characters of `word` inside `el` sit on one line (Range rects per character).
WORD_ON_ONE_LINE = """(el, word) => {
  const node = [...el.childNodes].find(n => n.nodeType === 3 && n.textContent.includes(word));
  const start = node.textContent.indexOf(word), tops = new Set();
  for (let i = start; i < start + word.length; i++) {
    const range = document.createRange();
    range.setStart(node, i); range.setEnd(node, i + 1);
    tops.add(Math.round(range.getBoundingClientRect().top));
  }
  return tops.size === 1;
}"""
# What a reader sees of a label: its text and the colon drawn after it, and whether a space
# separates it from the first choice that follows.
LABEL_AS_SHOWN = """(label) => {
  const el = [...document.querySelectorAll('main span')]
    .find(s => s.textContent.trim().replace(/[:：]$/, '') === label);
  if (!el) return null;
  const after = getComputedStyle(el, '::after').content;
  const colon = after && after !== 'none' ? after.replace(/^"|"$/g, '') : '';
  const next = el.nextSibling;
  const space = next && next.nodeType === 3 && /\\s/.test(next.textContent);
  return el.textContent.trim() + colon + (space ? ' ' : '');
}"""


def choose_language(page, live_server, language: str) -> None:
    page.set_viewport_size({"width": DESKTOP, "height": 900})
    page.goto(f"{live_server.url}/w/{DEMO_WORKSPACE}/evaluators/")
    page.select_option("#lang-switch", language)
    page.wait_for_function(f"document.documentElement.lang === '{language}'")


def open_page(page, live_server, path: str, ready: str) -> None:
    page.goto(f"{live_server.url}/w/{DEMO_WORKSPACE}{path}")
    page.wait_for_selector(ready)
    page.wait_for_load_state("load")


def demo_runs() -> tuple[str, str]:
    baseline = Experiment.objects.get(name=BASELINE).public_id
    return str(baseline), str(Experiment.objects.get(name=STRICTER).public_id)


def test_on_a_chinese_phone_names_stay_readable_and_short_words_never_split(live_server, page):
    demo_load()
    baseline, stricter = demo_runs()
    pairwise = next(path for name, path, _ in _pairwise_pages() if name == "pairwise-run")
    sign_in_demo(page, live_server)
    choose_language(page, live_server, "zh-hans")
    page.set_viewport_size({"width": PHONE, "height": 900})

    open_page(page, live_server, "/evaluators/", "#evaluator-table")
    name_cell = page.locator("#evaluator-table tbody tr td:first-child").first
    assert name_cell.bounding_box()["width"] >= 180, name_cell.bounding_box()
    screenshot(page, "zh-phone-evaluators-names")
    # "LLM 评估器" may wrap at its space, never inside 评估器.
    kind = page.locator("#evaluator-table td", has_text="LLM 评估器").first
    assert kind.evaluate(WORD_ON_ONE_LINE, "评估器")
    open_page(page, live_server, "/evalsets/", "#evalset-table")
    name_cell = page.locator("#evalset-table tbody tr td:first-child").first
    assert name_cell.bounding_box()["width"] >= 180, name_cell.bounding_box()

    split = {}
    for path, ready in [
        (f"/experiments/{baseline}/", "#results-table"),
        (f"/compare/?baseline={baseline}&candidates={stricter}", ".metrics-table"),
        (pairwise, "#leaderboard"),
    ]:
        open_page(page, live_server, path, ready)
        if found := page.evaluate(SPLIT_WORDS):
            split[path] = found
    screenshot(page, "zh-phone-pairwise-run-words")
    assert not split, f"Chinese words split across lines at {PHONE} px: {split}"
    assert page.console_errors == []


@pytest.mark.parametrize(
    "language, export, candidate, evaluator",
    [("en", "Export:", "Candidate:", "Evaluator:"), ("zh-hans", "导出：", "候选：", "评估器：")],
)
def test_labels_end_in_the_colon_of_the_language(
    live_server, page, language, export, candidate, evaluator
):
    demo_load()
    baseline, stricter = demo_runs()
    sign_in_demo(page, live_server)
    choose_language(page, live_server, language)
    open_page(page, live_server, f"/experiments/{baseline}/", "#results-table")
    shown = page.evaluate(LABEL_AS_SHOWN, export.rstrip(":："))
    # No space typed after the colon ("导出：results.csv"); English gets its gap from CSS.
    assert shown == export
    pushed = Experiment.objects.get(name=PUSHED).public_id
    path = f"/compare/?baseline={baseline}&candidates={stricter}&candidates={pushed}"
    open_page(page, live_server, path, ".metrics-table")
    assert page.evaluate(LABEL_AS_SHOWN, candidate.rstrip(":：")).rstrip() == candidate
    assert page.evaluate(LABEL_AS_SHOWN, evaluator.rstrip(":：")).rstrip() == evaluator
    screenshot(page, f"{language}-compare-labels")
    assert page.console_errors == []


def test_the_import_preview_reads_a_chinese_question_on_a_phone(live_server, page, tmp_path):
    demo_load()
    evalset = EvalSet.objects.get(name=EVALSET_NAME).public_id
    source = tmp_path / "chinese.csv"
    source.write_text(
        "问题,参考答案,回答,标签\n法国的首都是哪里？,巴黎,巴黎,地理\n", encoding="utf-8"
    )
    sign_in_demo(page, live_server)
    choose_language(page, live_server, "zh-hans")
    page.set_viewport_size({"width": PHONE, "height": 900})
    open_page(page, live_server, f"/evalsets/{evalset}/import/", "#import-form")
    page.set_input_files("#id_file", str(source))
    page.click("#upload-file")
    page.wait_for_selector("#import-preview tbody tr")
    cell = page.locator("#import-preview tbody td", has_text="法国的首都是哪里").first
    lines = cell.evaluate(
        "el => { const r = document.createRange(); r.selectNodeContents(el);"
        " return new Set([...r.getClientRects()].map(x => Math.round(x.top))).size; }"
    )
    assert lines <= 2, f"the question takes {lines} lines in its preview cell"
    screenshot(page, "zh-phone-import-preview")
    assert page.console_errors == []


def test_the_pairwise_form_names_column_types_in_chinese(live_server, page):
    demo_load()
    sign_in_demo(page, live_server)
    choose_language(page, live_server, "zh-hans")
    open_page(page, live_server, "/pairwise/new/", "#pairwise-form table.mapping")
    types = page.locator("#pairwise-form table.mapping tbody tr td:nth-child(2)").all_inner_texts()
    assert types and all(t == "文本" for t in types), types
    for width in (DESKTOP, PHONE):
        page.set_viewport_size({"width": width, "height": 900})
        assert page.evaluate(SPLIT_WORDS) == [], width
        screenshot(page, f"zh-pairwise-new-types-{width}")
    assert page.console_errors == []


def test_compare_filter_labels_stay_beside_their_fields_on_a_phone(live_server, page):
    demo_load()
    baseline, stricter = demo_runs()
    sign_in_demo(page, live_server)
    choose_language(page, live_server, "zh-hans")
    page.set_viewport_size({"width": PHONE, "height": 900})
    open_page(page, live_server, f"/compare/?baseline={baseline}&candidates={stricter}", "#tag")
    for field in ("filter", "tag"):
        label = page.locator(f"#diff-filters label[for={field}]").bounding_box()
        box = page.locator(f"#{field}").bounding_box()
        # On one line: the label's middle lies within the field's height.
        middle = label["y"] + label["height"] / 2
        assert box["y"] <= middle <= box["y"] + box["height"], (field, label, box)
    screenshot(page, "zh-phone-compare-filters")
    assert page.console_errors == []


# A paragraph's text as drawn: its text nodes and, for each child element, the content the
# stylesheet puts before it (the gap between sentences) and its own text.
PARAGRAPH_AS_SHOWN = """(p) => [...p.childNodes].map(n => {
  if (n.nodeType === 3) return n.textContent;
  const before = getComputedStyle(n, '::before').content;
  return (before && before !== 'none' ? before.replace(/^"|"$/g, '') : '') + n.textContent;
}).join('')"""


@pytest.mark.parametrize(
    "language, policy, joint",
    [("en", "Current policy", "≥ 0.5. A missing"), ("zh-hans", "当前策略", "时通过。缺失")],
)
def test_sentences_side_by_side_follow_the_language(live_server, page, language, policy, joint):
    from evaluators.models import Evaluator

    demo_load()
    judge = Evaluator.objects.get(kind="llm").public_id
    sign_in_demo(page, live_server)
    choose_language(page, live_server, language)
    open_page(page, live_server, f"/evaluators/{judge}/", "#draft-form")
    note = page.locator("main p.muted", has_text=policy).first
    assert joint in note.evaluate(PARAGRAPH_AS_SHOWN)
    assert page.console_errors == []
