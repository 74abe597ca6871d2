"""Which column a file's field fills, and the name a new column gets.

Column names stay ASCII identifiers (`[A-Za-z_][A-Za-z0-9_]{0,63}`): they are template
variables (`{{input}}` in a judge's prompt), JMESPath paths and `column:<name>` in experiment
mappings, keys in code evaluators and CSV headers scripts read. So a header that cannot be a
name gets a readable one instead: its usual name when it is a synonym (`问题` → `input`,
`Expected Output` → `reference_output`, `assay.vocabulary.FIELD_SYNONYMS`), else its pinyin
(`用户满意度` → `yong_hu_man_yi_du`); the header itself is kept as the column's description.
"""

from __future__ import annotations

import re
import unicodedata

from assay.vocabulary import field_synonym

from ..items.rows import RESERVED_NAMES, TAGS, column_name_problem

NOT_NAME = re.compile(r"[^A-Za-z0-9]+")
MAX_NAME = 64
CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")


def _key(name: str) -> str:
    return name.strip().lower().replace(" ", "_").replace("-", "_")


def matched_targets(fields: list[str], column_names: list[str]) -> dict[str, str]:
    """{field: target} for the fields that match a column or a row field: by the same name,
    the same name in another case, then by synonym (`question` fills `input`, `答案` fills
    `reference_output`, `tag`/`标签` the row's tags). Each target is taken once, exact names
    first; `item_id` (in every export) is ignored."""
    mapping: dict[str, str] = {}
    free = list(column_names)
    passes = (lambda f, c: f == c, lambda f, c: _key(f) == _key(c), _same_synonym)
    for same in passes:
        for field in fields:
            if field in mapping:
                continue
            found = next((c for c in free if same(field, c)), None)
            if found is not None:
                mapping[field] = found
                free.remove(found)
    for field in fields:
        if field not in mapping:
            mapping.update(_row_field(field, set(mapping.values())))
    return mapping


def _same_synonym(field: str, column: str) -> bool:
    usual = field_synonym(field)
    return usual is not None and usual != "tags" and usual == field_synonym(column)


def _row_field(field: str, taken: set[str]) -> dict[str, str]:
    """`item_id` ignored, `tags`/`human_verdict`/`label` (and the synonyms of tags) to their
    row field; {} for any other field."""
    if field == "item_id":
        return {field: ""}
    if field in RESERVED_NAMES:
        return {field: "@" + field}
    if field_synonym(field) == "tags" and TAGS not in taken:
        return {field: TAGS}
    return {}


def suggested_names(fields: list[str], taken: list[str]) -> dict[str, str]:
    """A free, valid column name for each field, as a new column would be called; names in
    `taken` (the set's columns) and earlier suggestions are not reused."""
    used = set(taken) | RESERVED_NAMES
    names = {}
    for index, field in enumerate(fields, start=1):
        name = _unique(column_suggestion(field) or f"column_{index}", used)
        used.add(name)
        names[field] = name
    return names


def column_suggestion(field: str) -> str:
    """The field itself when it is a valid name; else its usual name (a synonym), else an
    ASCII slug of it (Chinese as pinyin); '' when nothing readable is left."""
    if column_name_problem(field) is None:
        return field
    usual = field_synonym(field)
    if usual and usual != "tags":
        return usual
    slug = NOT_NAME.sub("_", _ascii(field)).strip("_").lower()
    if slug and slug[0].isdigit():
        slug = "c_" + slug
    return slug[:MAX_NAME].rstrip("_")


def _ascii(text: str) -> str:
    """Chinese characters as pinyin syllables, accents dropped, other letters left out."""
    if CJK.search(text):
        from pypinyin import lazy_pinyin  # its dictionaries cost ~50 MB: only when needed

        text = " ".join(lazy_pinyin(text))
    folded = unicodedata.normalize("NFKD", text)
    return folded.encode("ascii", "ignore").decode("ascii")


def _unique(name: str, used: set[str]) -> str:
    if name not in used:
        return name
    for number in range(2, 10_000):
        candidate = f"{name[: MAX_NAME - 6]}_{number}"
        if candidate not in used:
            return candidate
    raise ValueError(f"no free name for {name!r}")
