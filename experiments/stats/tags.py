"""Per-tag numbers from rows grouped by their tag set: the counts of the card's tag table and,
with repetitions, each tag's fails and decided rows per item for its clustered interval.

Rows arrive grouped (a group is rows with one tag set, e.g. a database GROUP BY, or single
rows), so the work is proportional to the groups: a row's tags are named once per distinct
set, never once per row. A tag set is a list of tags (a bare string is one tag); a tag listed
twice in one row counts once.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Sequence

import numpy as np

from .columns import first_seen_index


def tag_set(value) -> tuple[str, ...]:
    """A row's tags as distinct strings in their order: None or empty gives none, a bare
    string is one tag (not a list of characters)."""
    if not value:
        return ()
    if isinstance(value, str):
        return (value,)
    if not isinstance(value, Iterable):
        return ()
    return tuple(dict.fromkeys(str(tag) for tag in value))


def tag_sets(
    values: Iterable, *, parse: Callable[[Hashable], object] | None = None
) -> tuple[np.ndarray, list[tuple[str, ...]]]:
    """Each value's index among the distinct values, and their tag sets: `values` are rows'
    tags (lists, strings, None) or, with `parse`, what it reads them from (e.g. JSON text);
    each distinct value is read once."""
    index: dict = {}
    codes = [index.setdefault(_hashable(value), len(index)) for value in values]
    read = parse or (lambda key: key)
    return np.asarray(codes, dtype=np.int32), [tag_set(read(key)) for key in index]


def _hashable(value):
    """A list's tags as a tuple of strings (what `tag_set` makes of them anyway)."""
    return tuple(str(tag) for tag in value) if isinstance(value, list | tuple) else value


def tag_pairs(
    set_index: np.ndarray, sets: Sequence[tuple[str, ...]]
) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """(group, tag) pairs of groups whose tag set is `sets[set_index[group]]`, ordered by tag
    then group: the group of each pair, its tag's index, and the tag names (sorted)."""
    names = sorted({tag for tags in sets for tag in tags})
    lookup = {name: i for i, name in enumerate(names)}
    order = np.argsort(set_index, kind="stable")
    bounds = np.searchsorted(set_index[order], np.arange(len(sets) + 1))
    groups, tags = [np.zeros(0, dtype=np.intp)], [np.zeros(0, dtype=np.intp)]
    for number, names_of_set in enumerate(sets):
        members = order[bounds[number] : bounds[number + 1]]
        for tag in names_of_set:
            groups.append(members)
            tags.append(np.full(members.size, lookup[tag], dtype=np.intp))
    group, tag = np.concatenate(groups), np.concatenate(tags)
    by_tag = np.lexsort((group, tag))
    return group[by_tag], tag[by_tag], names


def tag_breakdown(
    set_index: np.ndarray, sets: Sequence[tuple[str, ...]], codes: np.ndarray, rows: np.ndarray
) -> dict[str, dict[str, int]]:
    """Per-tag counts (garak's `intents`), sorted by tag, of groups of `rows[g]` rows with the
    tag set `sets[set_index[g]]` and the verdict code `codes[g]` (0 pass, 1 fail, 2 unknown)."""
    group, tag, names = tag_pairs(set_index, sets)
    if not names:
        return {}
    # One weighted bincount over (verdict, tag) cells gives the table: table[verdict, tag].
    cells = np.asarray(codes, dtype=np.intp)[group] * len(names) + tag
    weights = np.asarray(rows, dtype=np.float64)[group]
    table = np.bincount(cells, weights=weights, minlength=3 * len(names)).reshape(3, len(names))
    return {name: _tag_counts(*(int(n) for n in table[:, i])) for i, name in enumerate(names)}


def _tag_counts(passed: int, fails: int, nones: int) -> dict[str, int]:
    return {"passed": passed, "fails": fails, "total_evaluated": passed + fails, "nones": nones}


def tag_item_cells(
    items: np.ndarray,
    set_index: np.ndarray,
    sets: Sequence[tuple[str, ...]],
    fails: np.ndarray,
    decided: np.ndarray,
) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Each tag's (fails, decided) per item, items in first-seen order, from groups in row
    order (item `items[g]`, tag set, `fails[g]` of `decided[g]` decided rows); a tag without a
    decided row is left out. Sorted by tag."""
    group, tag, names = tag_pairs(set_index, sets)
    bounds = np.searchsorted(tag, np.arange(len(names) + 1))
    fails, decided = np.asarray(fails, dtype=np.int64), np.asarray(decided, dtype=np.int64)
    cells = {}
    for number, name in enumerate(names):
        members = group[bounds[number] : bounds[number + 1]]
        members = members[decided[members] > 0]
        if members.size:
            cells[name] = _per_item(np.asarray(items)[members], fails[members], decided[members])
    return cells


def _per_item(items: np.ndarray, fails: np.ndarray, decided: np.ndarray):
    """Groups of one tag summed per item (an item's rows may carry different tag sets)."""
    index, distinct = first_seen_index(items)
    count = len(distinct)
    return (
        np.bincount(index, weights=fails, minlength=count).astype(np.int64),
        np.bincount(index, weights=decided, minlength=count).astype(np.int64),
    )


def row_tag_cells(
    items: np.ndarray, set_index: np.ndarray, sets: Sequence[tuple[str, ...]], codes: np.ndarray
) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """`tag_item_cells` of rows given one by one in row order (each row's item index, tag set
    index and verdict code): the decided rows are first grouped by (item, tag set) in numpy."""
    count = max(len(sets), 1)
    decided = codes != 2
    cell, keys = first_seen_index(items[decided].astype(np.int64) * count + set_index[decided])
    fails = np.bincount(cell, weights=codes[decided] == 1, minlength=len(keys))
    rows = np.bincount(cell, minlength=len(keys))
    return tag_item_cells(keys // count, keys % count, sets, fails, rows)
