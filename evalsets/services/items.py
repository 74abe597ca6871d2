"""Draft items: bulk add, update and delete, checked row by row against the columns."""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Max
from django.utils import timezone
from django.utils.translation import gettext as _

from assay.selectors import as_uuid

from ..committing import draft_edit_check
from ..items.media import uri_checker
from ..items.problems import problem_text
from ..items.rows import RowBuilder, new_item_ids
from ..models import EvalSet, EvalSetItem, draft_filter
from .sets import ensure_live

MAX_BULK = 5000


def items_bulk(
    *,
    evalset: EvalSet,
    create: list[dict] | None = None,
    update: list[dict] | None = None,
    delete: list[str] | None = None,
    sources: list[dict | None] | None = None,
) -> dict:
    """Create, update and delete draft items in one all-or-nothing call.

    Each created item is {data: {column: value}, tags, human_verdict, label}, and may name its
    own `item_id` (a UUID no draft row has: a row that comes back keeps its id, as garak
    imports key rows by content); each update names its `item_id` and gives the fields to
    change (data replaces the row's data). Returns
    {"created": [items], "updated": [items], "deleted": count}.

    `sources`, one per created item, is where each row came from (`EvalSetItem.source`, e.g.
    the span a row was made from); services set it, the API's bodies cannot.
    """
    ensure_live(evalset)
    create, update, delete = create or [], update or [], delete or []
    if len(create) + len(update) + len(delete) > MAX_BULK:
        raise ValidationError(
            {"items": [_("At most %(max_bulk)s changes per call.") % {"max_bulk": MAX_BULK}]}
        )
    builder = _item_builder(evalset)
    errors: dict[str, list[str]] = {}
    new_rows = [_checked_row(builder, p, f"create[{i}]", errors) for i, p in enumerate(create)]
    given = _given_ids(create, errors)
    with transaction.atomic():
        draft_edit_check(evalset=evalset)
        targets = _draft_items_by_id(evalset, [u.get("item_id") for u in update] + delete, errors)
        _check_free(evalset, given, errors)
        changed = [
            _updated(builder, targets, p, f"update[{i}]", errors) for i, p in enumerate(update)
        ]
        if errors:
            raise ValidationError(errors)
        created = _insert(evalset, new_rows, given, sources)
        EvalSetItem.objects.bulk_update(
            changed, ["data", "tags", "human_verdict", "label", "search_text"]
        )
        deleted = EvalSetItem.objects.filter(pk__in=[targets[str(i)].pk for i in delete]).delete()
        EvalSet.objects.filter(pk=evalset.pk).update(draft_changed=True, updated_at=timezone.now())
    return {"created": created, "updated": changed, "deleted": deleted[0]}


def item_create(*, evalset: EvalSet, **fields) -> EvalSetItem:
    return items_bulk(evalset=evalset, create=[fields])["created"][0]


def item_update(*, evalset: EvalSet, item_id, **fields) -> EvalSetItem:
    return items_bulk(evalset=evalset, update=[{"item_id": str(item_id), **fields}])["updated"][0]


def item_delete(*, evalset: EvalSet, item_id) -> None:
    items_bulk(evalset=evalset, delete=[str(item_id)])


def _item_builder(evalset: EvalSet) -> RowBuilder:
    mapping = {name: name for name in evalset.column_names}
    mapping.update({"tags": "@tags", "human_verdict": "@human_verdict", "label": "@label"})
    return RowBuilder(evalset.columns, mapping, uri_checker(evalset.workspace))


def _record(payload, where: str, errors: dict) -> dict | None:
    if not isinstance(payload, dict):
        errors[where] = [_("Each item is an object {data, tags, human_verdict, label}.")]
        return None
    data = payload.get("data", {})
    if not isinstance(data, dict):
        errors[f"{where}.data"] = [_("data is an object {column: value}.")]
        return None
    extra = set(payload) - {"item_id", "data", "tags", "human_verdict", "label"}
    if extra:
        errors[where] = [_("Unknown field %(field)r.") % {"field": sorted(extra)[0]}]
        return None
    record = {k: v for k, v in data.items()}
    for key in ("tags", "human_verdict", "label"):
        if key in data:
            errors[f"{where}.data.{key}"] = [
                _("%(key)r is a row field, not a column.") % {"key": key}
            ]
        if key in payload:
            record[key] = payload[key]
    return record


def _checked_row(builder: RowBuilder, payload, where: str, errors: dict):
    record = _record(payload, where, errors)
    if record is None:
        return None
    row, problems = builder.build(record)
    for column, problem in problems:
        errors.setdefault(f"{where}.data.{column}", []).append(problem_text(problem))
    return row


def _draft_items_by_id(evalset: EvalSet, ids: list, errors: dict) -> dict:
    wanted = [str(i) for i in ids if i]
    found = {}
    if wanted:
        rows = EvalSetItem.objects.select_for_update(of=("self",))
        rows = rows.filter(draft_filter(), evalset=evalset)
        for chunk_start in range(0, len(wanted), 500):
            chunk = [i for i in wanted[chunk_start : chunk_start + 500] if as_uuid(i)]
            found.update({str(it.item_id): it for it in rows.filter(item_id__in=chunk)})
    missing = [i for i in wanted if i not in found] + ["(none)" for i in ids if not i]
    if missing:
        errors["item_id"] = [_("No draft item %(missing)r in this set.") % {"missing": missing[0]}]
    return found


def _updated(builder: RowBuilder, targets: dict, payload, where: str, errors: dict):
    item = targets.get(str(payload.get("item_id"))) if isinstance(payload, dict) else None
    if item is None:
        return None
    merged = {
        "data": payload.get("data", item.data),
        "tags": payload.get("tags", item.tags),
        "human_verdict": payload.get("human_verdict", item.human_verdict),
        "label": payload.get("label", item.label),
    }
    row = _checked_row(builder, {**merged, "item_id": payload["item_id"]}, where, errors)
    if row is not None:
        item.data, item.tags, item.human_verdict = row.data, row.tags, row.human_verdict
        item.label, item.search_text = row.label, row.search_text
    return item


def _given_ids(create: list, errors: dict) -> list:
    """The item ids created rows name (None where a row names none)."""
    given = []
    for i, payload in enumerate(create):
        value = payload.get("item_id") if isinstance(payload, dict) else None
        if value is not None and as_uuid(value) is None:
            errors[f"create[{i}].item_id"] = [_("An item id is a UUID.")]
        given.append(as_uuid(value) if value is not None else None)
    if len({g for g in given if g}) < sum(1 for g in given if g):
        errors["item_id"] = [_("Two new items name the same item id.")]
    return given


def _check_free(evalset: EvalSet, given: list, errors: dict) -> None:
    wanted = [g for g in given if g]
    for start in range(0, len(wanted), 500):
        taken = evalset.items.filter(draft_filter(), item_id__in=wanted[start : start + 500])
        if first := taken.values_list("item_id", flat=True).first():
            errors["item_id"] = [
                _("A draft item already has the id %(item_id)s.") % {"item_id": first}
            ]
            return


def _insert(evalset: EvalSet, rows: list, given: list | None = None, sources=None) -> list:
    if not rows:
        return []
    fresh = iter(new_item_ids(len(rows)))
    ids = [g or next(fresh) for g in given or [None] * len(rows)]
    sources = sources or [None] * len(rows)
    start = next_position(evalset)
    items = [
        EvalSetItem(
            evalset=evalset,
            item_id=item_id,
            position=start + offset,
            data=row.data,
            tags=row.tags,
            human_verdict=row.human_verdict,
            label=row.label,
            search_text=row.search_text,
            source=source,
        )
        for offset, (row, item_id, source) in enumerate(zip(rows, ids, sources, strict=True))
    ]
    return EvalSetItem.objects.bulk_create(items, batch_size=1000)


def next_position(evalset: EvalSet) -> int:
    """After every draft row, including rows an import is still staging."""
    top = EvalSetItem.objects.filter(evalset=evalset, version__isnull=True).aggregate(
        m=Max("position")
    )["m"]
    return 0 if top is None else top + 1
