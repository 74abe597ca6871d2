"""The Chinese interface is complete: catalogues fully translated, pages free of our English,
the language switch remembered per user, Accept-Language honoured on a first visit."""

from __future__ import annotations

import html
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import polib
import pytest
from django.test import Client
from django.utils import translation

from assay.models import UserPreference
from assay.templatetags.assay_tags import percent, score
from tests.conftest import PASSWORD, require_service
from tests.support.factories import make_code_version, make_evalset_version, run_inline

ROOT = Path(__file__).resolve().parent.parent
LC = ROOT / "locale" / "zh_Hans" / "LC_MESSAGES"
CATALOGUES = [LC / "django.po", LC / "djangojs.po"]
ZH = {"HTTP_ACCEPT_LANGUAGE": "zh-hans"}

# Build the .mo files from the .po files as set-up does (make setup), so a catalogue edited
# since then is what these tests see; before any test activates a language.
sys.path.insert(0, str(ROOT / "scripts"))
import i18n_update  # noqa: E402

i18n_update.compile_all()

# Words that stay English in the Chinese interface: product and format names, code words.
PROPER = {
    "Assay", "Coze Loop", "garak", "JSON", "CSV", "JSONL", "API", "HTTP", "HTTPS", "Python",
    "JavaScript", "LLM", "URL", "UUID", "SemVer", "OpenAI", "Azure", "vLLM", "Ollama",
    "DeepSeek", "McNemar", "JMESPath", "SDK", "CLI", "CI", "KB", "MB", "KiB", "USD", "Base URL",
    "Text", "Image", "Audio", "MultiPart", "Conversation", "Bearer", "Token", "Authorization",
    "GET", "POST", "Markdown", "Se", "Sp", "Cohen's", "Ctrl", "Cmd", "Enter", "Slug",
    "RestrictedPython", "quickjs", "system", "user", "assistant", "tool", "A", "B",
}  # fmt: skip
PLACEHOLDER = re.compile(r"%\((\w+)\)[-#0 +]*\d*(?:\.\d+)?[sdrfiegxXc]|%[sdrf]")


def entries():
    for path in CATALOGUES:
        for entry in polib.pofile(str(path)):
            if not entry.obsolete:
                yield path.name, entry


def test_every_message_is_translated_and_none_is_fuzzy():
    untranslated, fuzzy = [], []
    for name, entry in entries():
        if "fuzzy" in entry.flags:
            fuzzy.append((name, entry.msgid))
        forms = list(entry.msgstr_plural.values()) if entry.msgid_plural else [entry.msgstr]
        if not forms or not all(form.strip() for form in forms):
            untranslated.append((name, entry.msgid))
    assert not fuzzy, f"fuzzy entries: {fuzzy[:20]}"
    assert not untranslated, (
        f"{len(untranslated)} untranslated (run scripts/i18n_update.py): {untranslated[:20]}"
    )
    for path in CATALOGUES:
        assert not polib.pofile(str(path)).metadata_is_fuzzy, path.name


def test_translations_keep_the_placeholders():
    wrong = []
    for name, entry in entries():
        source = entry.msgid_plural or entry.msgid
        forms = list(entry.msgstr_plural.values()) if entry.msgid_plural else [entry.msgstr]
        expected = sorted(PLACEHOLDER.findall(source))
        for form in forms:
            if sorted(PLACEHOLDER.findall(form)) != expected:
                wrong.append((name, entry.msgid, form))
            # an HTML tag of the source stays a tag of the translation
            if sorted(re.findall(r"</?\w+", source)) != sorted(re.findall(r"</?\w+", form)):
                wrong.append((name, entry.msgid, form))
    assert not wrong, wrong[:10]


@pytest.mark.skipif(not shutil.which("msgfmt"), reason="gettext's msgfmt is not installed")
def test_msgfmt_check_passes():
    for path in CATALOGUES:
        done = subprocess.run(
            ["msgfmt", "--check", "-o", "/dev/null", str(path)], capture_output=True, text=True
        )
        assert done.returncode == 0, done.stderr


# ---- what the code marks ------------------------------------------------------------------


def _tree_copy(into: Path) -> Path:
    """The files makemessages reads (and the settings it imports), without the catalogues: the
    places scripts/i18n_update.py ignores, git's and the runtime's files stay behind."""
    skipped = {*i18n_update.IGNORE, "var"}

    def ignore(folder: str, names: list[str]) -> list[str]:
        where = Path(folder).relative_to(ROOT)
        return [
            n
            for n in names
            if n.startswith(".") or n == "__pycache__" or (where / n).as_posix() in skipped
        ]

    return Path(shutil.copytree(ROOT, into / "tree", ignore=ignore))


@pytest.fixture(scope="module")
def extracted(tmp_path_factory) -> dict[str, polib.POFile]:
    """Every marked string by domain, extracted as `make i18n` does (scripts/i18n_update.py:
    Django's makemessages, xgettext underneath) from a copy of the tree, so the repository's
    catalogues stay as they are."""
    require_service("xgettext", bool(shutil.which("xgettext")), "apt-get install gettext")
    copy = _tree_copy(tmp_path_factory.mktemp("i18n"))
    i18n_update.extract("zh_Hans", root=copy)
    out = copy / "locale" / "zh_Hans" / "LC_MESSAGES"
    return {path.stem: polib.pofile(str(out / path.name)) for path in CATALOGUES}


def not_in_catalogue(marked: polib.POFile, catalogue: Path) -> list[str]:
    """The marked msgids the catalogue has no translation of: missing, empty or fuzzy."""
    done = {
        (e.msgctxt, e.msgid)
        for e in polib.pofile(str(catalogue))
        if not e.obsolete and "fuzzy" not in e.flags and i18n_update.translated(e)
    }
    return [e.msgid for e in marked if (e.msgctxt, e.msgid) not in done]


def test_every_marked_string_is_in_the_catalogue(extracted):
    """A string marked for translation but missing from the catalogue shows in English in the
    Chinese interface, and none of the catalogue's own checks notices."""
    assert len(extracted["django"]) > 1000 and len(extracted["djangojs"]) > 10
    missing = {path.name: not_in_catalogue(extracted[path.stem], path) for path in CATALOGUES}
    missing = {name: left for name, left in missing.items() if left}
    assert not missing, f"not translated (run scripts/i18n_update.py): {missing}"


def test_a_deleted_or_fuzzy_entry_is_named(extracted, tmp_path):
    po = polib.pofile(str(LC / "django.po"))
    deleted = po.find("%(n)s unknown not counted")
    po.remove(deleted)
    guessed = po.find("Decided rows: pass and fail, unknown not counted")
    guessed.flags.append("fuzzy")
    po.save(str(tmp_path / "django.po"))
    left = not_in_catalogue(extracted["django"], tmp_path / "django.po")
    assert {deleted.msgid, guessed.msgid} <= set(left)


def test_numbers_keep_ascii_digits_and_a_decimal_point_in_chinese():
    with translation.override("zh-hans"):
        assert percent(0.4567) == "45.7%"
        assert score(0.5) == "0.50"


# ---- pages --------------------------------------------------------------------------------


def english_fragments() -> set[str]:
    """Runs of two or more English words inside our own msgids (placeholders and markup out)."""
    fragments = set()
    for _, entry in entries():
        for source in filter(None, [entry.msgid, entry.msgid_plural]):
            text = PLACEHOLDER.sub("\x00", re.sub(r"<[^>]+>", "\x00", source))
            text = html.unescape(text)
            for run in re.findall(r"[A-Za-z][A-Za-z'’]*(?: [A-Za-z][A-Za-z'’]*)+", text):
                fragments.add(run)
    return fragments


def visible_text(page: str, user_data: list[str]) -> str:
    """What a reader sees of our words: no scripts, styles, code or user data."""
    page = re.sub(r"(?is)<(script|style|pre|code|textarea|template)\b.*?</\1>", " ", page)
    page = re.sub(r"(?is)<option\b[^>]*>.*?</option>", " ", page)  # lists of user objects
    # the preset catalogue's cards: product data localised on its own, not by the catalogue
    page = re.sub(r"(?is)<label class=\"card choice\" data-template=.*?</label>", " ", page)
    attrs = " ".join(
        m.group(2)
        for m in re.finditer(r'\b(title|aria-label|placeholder|alt|data-confirm)="([^"]*)"', page)
    )
    text = html.unescape(re.sub(r"<[^>]+>", " ", page) + " " + attrs)
    for value in sorted(set(user_data), key=len, reverse=True):
        text = re.sub(rf"(?<![A-Za-z]){re.escape(value)}(?![A-Za-z])", " · ", text)
    for noun in sorted(PROPER, key=len, reverse=True):
        text = re.sub(rf"(?<![A-Za-z]){re.escape(noun)}(?![A-Za-z])", " · ", text)
    return re.sub(r"\s+", " ", text)


# Runs made only of these words are ordinary English, not a sentence of ours.
STOPWORDS = {"a", "an", "and", "as", "at", "by", "for", "in", "is", "it", "of", "on", "or", "the"}


def preset_texts() -> list[str]:
    """The preset catalogue's names, descriptions and input notes: product data with its own
    localisation (not in the message catalogue)."""
    from evaluators.presets import load_presets

    texts = []
    for preset in load_presets():
        texts += [preset["name"], preset["description"], *preset.get("tags", [])]
        for variable in preset.get("inputs", []):
            if isinstance(variable, dict):
                texts += [str(v) for v in variable.values() if isinstance(v, str)]
            else:
                texts.append(str(variable))
    return [t for t in texts if t]


def english_left(page: str, user_data: list[str], fragments: set[str]) -> list[str]:
    text = visible_text(page, user_data)
    data = " ".join(user_data)  # a truncated piece of user data is still user data
    found = set()
    for run in re.findall(r"[A-Za-z][A-Za-z'’]*(?: [A-Za-z][A-Za-z'’]*)+", text):
        if set(run.lower().split()) <= STOPWORDS:
            continue
        if re.search(rf"(?<![A-Za-z]){re.escape(run)}(?![A-Za-z])", data):
            continue
        if any(re.search(rf"(?<![A-Za-z]){re.escape(run)}(?![A-Za-z])", f) for f in fragments):
            found.add(run)
    return sorted(found)


@pytest.fixture
def chinese_workspace(workspace, user):
    """A workspace whose objects have Chinese names, so what is English on a page is ours."""
    from evaluators import services as evaluator_services
    from experiments import services as experiment_services

    rows = [
        {
            "input": f"问题 {i}",
            "actual_output": "首都是巴黎" if i % 2 == 0 else "首都是里昂",
            "reference_output": "巴黎",
            "tags": ["偶数" if i % 2 == 0 else "奇数"],
        }
        for i in range(40)
    ]
    version = make_evalset_version(workspace=workspace, user=user, rows=rows, name="问答集")
    check = make_code_version(workspace=workspace, user=user, name="包含参考答案")
    baseline = run_inline(
        workspace=workspace, user=user, version=version, evaluator_version=check, name="基线"
    )
    stricter = evaluator_services.evaluator_submit_version(
        evaluator=check.evaluator, user=user, version="1.1.0"
    )
    candidate = run_inline(
        workspace=workspace, user=user, version=version, evaluator_version=stricter, name="候选"
    )
    experiment_services.experiment_mark_baseline(experiment=baseline, is_baseline=True)
    return {"evalset": version.evalset, "evaluator": check.evaluator, "runs": (baseline, candidate)}


def test_main_pages_have_no_english_of_ours_in_chinese(client, user, chinese_workspace):
    client.force_login(user)
    data = chinese_workspace
    evalset, evaluator = data["evalset"], data["evaluator"]
    baseline, candidate = data["runs"]
    ws = "/w/acme"
    pages = [
        f"{ws}/evaluators/",
        f"{ws}/evaluators/new/",
        f"{ws}/evaluators/{evaluator.public_id}/",
        f"{ws}/evaluators/{evaluator.public_id}/versions/",
        f"{ws}/evalsets/",
        f"{ws}/evalsets/new/",
        f"{ws}/evalsets/{evalset.public_id}/",
        f"{ws}/evalsets/{evalset.public_id}/versions/",
        f"{ws}/evalsets/{evalset.public_id}/import/",
        f"{ws}/experiments/",
        f"{ws}/experiments/new/",
        f"{ws}/experiments/{baseline.public_id}/",
        f"{ws}/compare/?baseline={baseline.public_id}&candidates={candidate.public_id}",
        f"{ws}/settings/members/",
        f"{ws}/settings/secrets/",
        f"{ws}/settings/providers/",
        f"{ws}/settings/providers/new/",
        f"{ws}/settings/tokens/",
    ]
    user_data = ["Acme", "alice", "Contains", "Paris", "Lyon", *preset_texts()]
    fragments = english_fragments()
    problems = {}
    for url in pages:
        response = client.get(url, **ZH)
        assert response.status_code == 200, url
        assert response.headers["Content-Language"] == "zh-hans", url
        page = response.content.decode()
        assert 'lang="zh-hans"' in page, url
        left = english_left(page, user_data, fragments)
        if left:
            problems[url] = left
    anonymous = Client().get("/accounts/login/", **ZH).content.decode()
    assert "登录" in anonymous
    if left := english_left(anonymous, [], fragments):
        problems["/accounts/login/"] = left
    assert not problems, problems


@pytest.mark.django_db
def test_the_javascript_catalogue_is_served_in_the_request_language(client):
    body = client.get("/i18n/js/", **ZH).content.decode("utf-8")
    assert json.dumps("运行中…")[1:-1] in body  # the catalogue is JSON with escaped characters
    page = client.get("/accounts/login/").content.decode()
    catalogue = page.index('src="/i18n/js/"')
    assert catalogue < page.index("js/assay.js")  # loaded before the app's scripts


@pytest.mark.django_db
def test_accept_language_decides_a_first_visit():
    zh = Client().get("/accounts/login/", HTTP_ACCEPT_LANGUAGE="zh-CN,zh;q=0.9,en;q=0.5")
    assert zh.headers["Content-Language"] == "zh-hans" and "登录 Assay" in zh.content.decode()
    en = Client().get("/accounts/login/", HTTP_ACCEPT_LANGUAGE="en-US,en;q=0.9")
    assert en.headers["Content-Language"] == "en" and "Sign in to Assay" in en.content.decode()


def test_the_nav_switch_sets_the_users_preference(client, user, workspace):
    client.force_login(user)
    page = client.get("/w/acme/evaluators/").content.decode()
    assert 'action="/i18n/setlang/"' in page and 'name="language"' in page
    response = client.post("/i18n/setlang/", {"language": "zh-hans", "next": "/w/acme/evaluators/"})
    assert response.status_code == 302 and response.headers["Location"] == "/w/acme/evaluators/"
    assert UserPreference.objects.get(user=user).language == "zh-hans"
    assert "评估器" in client.get("/w/acme/evaluators/").content.decode()

    # Another browser (no cookie, an English Accept-Language): the saved choice still wins,
    # from the sign-in on.
    other = Client(HTTP_ACCEPT_LANGUAGE="en")
    signed_in = other.post(
        "/accounts/login/", {"username": "alice", "password": PASSWORD}, follow=True
    )
    assert signed_in.headers["Content-Language"] == "zh-hans"
    page = other.get("/w/acme/evaluators/")
    assert page.headers["Content-Language"] == "zh-hans" and "评估器" in page.content.decode()

    # Switching back is remembered the same way.
    other.post("/i18n/setlang/", {"language": "en", "next": "/w/acme/evaluators/"})
    assert UserPreference.objects.get(user=user).language == "en"
    assert client.get("/w/acme/evaluators/").headers["Content-Language"] == "en"


def test_api_errors_follow_accept_language(api):
    body = api.post("/api/v1/evaluators/", {}, format="json", **ZH).json()
    assert "message" in body["error"]
    english = api.post("/api/v1/evaluators/", {}, format="json").json()
    assert (
        body["error"]["message"] != english["error"]["message"]
        or body["error"]["details"] != (english["error"]["details"])
    )
