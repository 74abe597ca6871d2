"""Keep the catalogues complete: extract, fill known translations, report what is left.

    .venv/bin/python scripts/i18n_update.py            # makemessages + fill + report
    .venv/bin/python scripts/i18n_update.py --check    # the same, exit 1 if anything is left
    .venv/bin/python scripts/i18n_update.py --no-extract   # fill and report only
    .venv/bin/python scripts/i18n_update.py --compile  # only build the .mo files (set-up)

1. `manage.py makemessages` for the `django` and `djangojs` domains (templates, Python,
   static/js), file-only locations so a moved line does not churn the catalogue.
2. Every entry without a translation, and every fuzzy one (msgmerge's guesses are never kept),
   takes the translation of the same msgid from `locale/<lang>/translations.py` if it has one.
3. The dictionary is then rewritten from the catalogues, so it holds every translation
   (whether it was typed into the .po or into the dictionary) and stays the memory a catalogue
   can be rebuilt from.
4. It prints the counts and each message still untranslated: translate those in the .po (or add
   them to the dictionary) and run it again. `tests/test_i18n.py` fails while any is left.

Compiling uses polib, not gettext's msgfmt, so set-up needs no system package; extracting needs
xgettext (Debian's `gettext`), as Django's makemessages does.
"""

from __future__ import annotations

import argparse
import ast
import os
import pprint
import shutil
import subprocess
import sys
from pathlib import Path

import polib

ROOT = Path(__file__).resolve().parent.parent
LOCALE = ROOT / "locale"
LANGUAGES = ["zh_Hans"]
DOMAINS = ["django", "djangojs"]
IGNORE = [
    ".venv",
    "node_modules",
    "static/vendor",
    "var",
    "artifacts",
    "clients",
    "bench",
    "tests",
    "docs",
    "locale",
    "scripts",
]
HEADER = {
    "zh_Hans": {
        "Project-Id-Version": "Assay",
        "Language": "zh_Hans",
        "Language-Team": "Simplified Chinese",
        "Last-Translator": "Assay contributors",
        "Plural-Forms": "nplurals=1; plural=0;",
        "Content-Type": "text/plain; charset=UTF-8",
        "Content-Transfer-Encoding": "8bit",
    }
}


def catalogue(lang: str, domain: str) -> Path:
    return LOCALE / lang / "LC_MESSAGES" / f"{domain}.po"


def dictionary_path(lang: str) -> Path:
    return LOCALE / lang / "translations.py"


def load_dictionary(lang: str) -> dict:
    path = dictionary_path(lang)
    if not path.exists():
        return {}
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and node.targets[0].id == "TRANSLATIONS":
            return ast.literal_eval(node.value)
    return {}


def write_dictionary(lang: str, translations: dict) -> None:
    body = pprint.pformat(dict(sorted(translations.items())), width=100, sort_dicts=False)
    dictionary_path(lang).write_text(
        '"""Translations of our messages, by msgid (a list: the plural forms).\n\n'
        "scripts/i18n_update.py fills the catalogues from this and rewrites it from them;\n"
        'docs/i18n.md has the glossary. Not imported by the application."""\n\n'
        f"TRANSLATIONS = {body}\n",
        encoding="utf-8",
    )


def extract(lang: str, root: Path = ROOT) -> None:
    """makemessages for every domain into `root`/locale (`root`: the tree, or a copy of it, as
    tests/test_i18n.py extracts without touching the catalogues)."""
    if not shutil.which("xgettext"):
        sys.exit("xgettext is missing: install gettext (Debian: apt-get install gettext)")
    ignore = [arg for path in IGNORE for arg in ("-i", path)]
    for domain in DOMAINS:
        command = [sys.executable, "manage.py", "makemessages", "-l", lang, "-d", domain]
        command += ["--no-obsolete", "--add-location", "file", *ignore]
        subprocess.run(command, cwd=root, check=True, env={**os.environ, "PYTHONWARNINGS": ""})


def translated(entry: polib.POEntry) -> bool:
    if entry.msgid_plural:
        return bool(entry.msgstr_plural) and all(entry.msgstr_plural.values())
    return bool(entry.msgstr)


def fill(lang: str, domain: str, known: dict) -> polib.POFile:
    po = polib.pofile(str(catalogue(lang, domain)), wrapwidth=100)
    po.metadata.update(HEADER.get(lang, {}))
    po.metadata["PO-Revision-Date"] = po.metadata.get("POT-Creation-Date", "")
    po.metadata_is_fuzzy = False
    for entry in po:
        if "fuzzy" in entry.flags:
            entry.flags.remove("fuzzy")
            entry.previous_msgid = entry.previous_msgid_plural = None
            entry.previous_msgctxt = None
            entry.msgstr = ""
            entry.msgstr_plural = {k: "" for k in entry.msgstr_plural} if entry.msgid_plural else {}
        if translated(entry):
            continue
        value = known.get(entry.msgid)
        if value is None:
            continue
        if entry.msgid_plural:
            forms = value if isinstance(value, list) else [value]
            entry.msgstr_plural = dict(enumerate(forms))
        elif isinstance(value, str):
            entry.msgstr = value
    po.save()
    return po


def harvest(po: polib.POFile, into: dict) -> None:
    for entry in po:
        if not translated(entry):
            continue
        if entry.msgid_plural:
            into[entry.msgid] = [entry.msgstr_plural[k] for k in sorted(entry.msgstr_plural)]
        else:
            into[entry.msgid] = entry.msgstr


def compile_all() -> int:
    """Build every .mo from its .po (polib: no system gettext needed)."""
    built = 0
    for po_path in sorted(LOCALE.glob("*/LC_MESSAGES/*.po")):
        po = polib.pofile(str(po_path))
        po.save_as_mofile(str(po_path.with_suffix(".mo")))
        built += 1
    return built


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="exit 1 when a message is left")
    parser.add_argument("--no-extract", action="store_true", help="skip makemessages")
    parser.add_argument("--compile", action="store_true", help="only compile the .mo files")
    args = parser.parse_args()
    if args.compile:
        print(f"compiled {compile_all()} catalogues")
        return 0
    left = 0
    for lang in LANGUAGES:
        if not args.no_extract:
            extract(lang)
        known = load_dictionary(lang)
        memory = dict(known)
        for domain in DOMAINS:
            po = fill(lang, domain, known)
            harvest(po, memory)
            missing = [e for e in po if not translated(e)]
            fuzzy = [e for e in po if "fuzzy" in e.flags]
            print(
                f"{lang}/{domain}: {len(po)} messages, {len(po) - len(missing)} translated, "
                f"{len(missing)} untranslated, {len(fuzzy)} fuzzy"
            )
            for entry in missing:
                where = entry.occurrences[0][0] if entry.occurrences else "?"
                print(f"  untranslated ({where}): {entry.msgid!r}")
            left += len(missing) + len(fuzzy)
        write_dictionary(lang, memory)
    compile_all()
    return 1 if (args.check and left) else 0


if __name__ == "__main__":
    sys.exit(main())
