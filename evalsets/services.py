"""Business logic for evaluation sets: create and edit sets, columns, draft items, versions.

Imports live in `evalsets.importing`; reads in `evalsets.selectors`.
"""

from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser
from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Max
from django.utils import timezone
from django.utils.translation import gettext as _

from assay import semver
from assay.models import Workspace
from assay.selectors import as_uuid
from assay.vocabulary import CONTENT_TYPES

from .committing import commit_enqueue, commit_quiet_check, draft_copy_all, draft_edit_check
from .committing import inline_rows as commit_inline_rows
from .items.media import uri_checker
from .items.problems import problem_text
from .items.rows import MAX_TAG_LEN, MAX_TAGS, RowBuilder, column_name_problem, new_item_ids
from .models import EvalSet, EvalSetItem, EvalSetVersion, VersionStatus, draft_filter

MAX_NAME = 120
MAX_COLUMNS = 50
MAX_BULK = 5000
DESCRIPTION_CAP = 2000


# ----------------------------------------------------------------------------- sets


def evalset_create(
    *,
    workspace: Workspace,
    user: AbstractBaseUser | None,
    name: str,
    description: str = "",
    columns: list[dict] | None = None,
    tags: list[str] | None = None,
) -> EvalSet:
    """A new, empty evaluation set; every field is checked before anything is saved."""
    errors: dict[str, list[str]] = {}
    evalset = EvalSet(workspace=workspace, created_by=user)
    evalset.name = _clean_name(name, errors)
    evalset.description = (description or "").strip()
    evalset.tags = _clean_tags(tags or [], errors)
    evalset.columns = _checked_columns(columns or [], errors)
    if errors:
        raise ValidationError(errors)
    return _save(evalset)


def evalset_update(
    *,
    evalset: EvalSet,
    name: str | None = None,
    description: str | None = None,
    tags: list[str] | None = None,
    columns: list[dict] | None = None,
) -> EvalSet:
    """Change the set's metadata and, through `evalset_set_columns`, its columns."""
    _ensure_live(evalset)
    errors: dict[str, list[str]] = {}
    if name is not None:
        evalset.name = _clean_name(name, errors)
    if tags is not None:
        evalset.tags = _clean_tags(tags, errors)
    if errors:
        raise ValidationError(errors)
    if description is not None:
        evalset.description = description.strip()
    with transaction.atomic():
        if columns is not None:
            evalset_set_columns(evalset=evalset, columns=columns)
        _save(evalset)
    return evalset


def evalset_delete(*, evalset: EvalSet) -> EvalSet:
    """Soft delete: the set leaves the list; experiments that pinned its versions keep them."""
    if evalset.mark_deleted(deleted=True):
        evalset.save(update_fields=["deleted_at", "updated_at"])
    return evalset


def _save(evalset: EvalSet) -> EvalSet:
    evalset.save_named(
        taken=_("An evaluation set named %(name)r already exists here.") % {"name": evalset.name}
    )
    return evalset


def _clean_name(name, errors: dict) -> str:
    name = (name or "").strip()
    if not name:
        errors["name"] = [_("An evaluation set needs a name.")]
    elif len(name) > MAX_NAME:
        errors["name"] = [_("Names are at most %(max_name)s characters.") % {"max_name": MAX_NAME}]
    return name


def _clean_tags(tags, errors: dict) -> list[str]:
    if not isinstance(tags, list) or not all(isinstance(t, str) for t in tags):
        errors["tags"] = [_("Tags must be a list of strings.")]
        return []
    cleaned = sorted({t.strip() for t in tags if t.strip()})
    if len(cleaned) > MAX_TAGS or any(len(t) > MAX_TAG_LEN for t in cleaned):
        errors["tags"] = [
            _("At most %(max_tags)s tags of at most %(max_tag_len)s characters.")
            % {"max_tags": MAX_TAGS, "max_tag_len": MAX_TAG_LEN}
        ]
    return cleaned


def _ensure_live(evalset: EvalSet) -> None:
    if evalset.deleted_at is not None:
        raise ValidationError({"evalset": _("This evaluation set is deleted.")})


# ----------------------------------------------------------------------------- columns


def clean_columns(columns) -> list[dict]:
    """Checked column definitions, or ValidationError naming each bad one."""
    errors: dict[str, list[str]] = {}
    cleaned = _checked_columns(columns, errors)
    if errors:
        raise ValidationError(errors)
    return cleaned


def _checked_columns(columns, errors: dict) -> list[dict]:
    if not isinstance(columns, list):
        errors["columns"] = [_("Columns must be a list.")]
        return []
    if len(columns) > MAX_COLUMNS:
        errors["columns"] = [
            _("A set has at most %(max_columns)s columns.") % {"max_columns": MAX_COLUMNS}
        ]
        return []
    cleaned, seen = [], set()
    for index, column in enumerate(columns):
        problem, clean = _checked_column(column)
        if problem is None and clean["name"] in seen:
            problem = f"column {clean['name']!r} appears twice"
        if problem:
            errors.setdefault(f"columns[{index}]", []).append(problem)
            continue
        seen.add(clean["name"])
        cleaned.append(clean)
    return cleaned


def _checked_column(column) -> tuple[str | None, dict]:
    if not isinstance(column, dict):
        return _("each column is an object {name, content_type, description, required}"), {}
    name = column.get("name")
    problem = column_name_problem(name)
    if problem:
        return problem_text(problem), {}
    content_type = column.get("content_type", "Text")
    if content_type not in CONTENT_TYPES:
        return _("content_type must be one of %(content_types)s, got %(content_type)r") % {
            "content_types": ", ".join(CONTENT_TYPES),
            "content_type": content_type,
        }, {}
    description = column.get("description") or ""
    if not isinstance(description, str) or len(description) > DESCRIPTION_CAP:
        return _("description is text of at most %(description_cap)s characters") % {
            "description_cap": DESCRIPTION_CAP
        }, {}
    return None, {
        "name": name,
        "content_type": content_type,
        "description": description.strip(),
        "required": bool(column.get("required", False)),
    }


def evalset_set_columns(*, evalset: EvalSet, columns: list[dict]) -> EvalSet:
    """Replace the column list. A column may carry `old_name` to rename one; draft rows follow.

    Removing a column removes its cells from the draft; changing a type or making a column
    required is refused while draft rows disagree. Versions keep their own column snapshot.
    """
    _ensure_live(evalset)
    renames = {
        c["old_name"]: c["name"] for c in columns if isinstance(c, dict) and c.get("old_name")
    }
    cleaned = clean_columns(columns)
    old = {c["name"]: c for c in evalset.columns}
    unknown = [n for n in renames if n not in old]
    if unknown:
        raise ValidationError({"columns": [f"No column {unknown[0]!r} to rename."]})
    kept = set(renames) | {c["name"] for c in cleaned if c["name"] in old}
    dropped = [n for n in old if n not in kept]
    with transaction.atomic():
        draft_edit_check(evalset=evalset)
        _check_compatible(evalset, old, cleaned, renames)
        if renames or dropped:
            _rewrite_draft_keys(evalset, renames=renames, dropped=dropped)
        evalset.columns = cleaned
        evalset.draft_changed = True
        evalset.save(update_fields=["columns", "draft_changed", "updated_at"])
    return evalset


def _check_compatible(evalset, old: dict, cleaned: list[dict], renames: dict) -> None:
    sources = {new: old_name for old_name, new in renames.items()}
    draft = EvalSetItem.objects.filter(draft_filter(), evalset=evalset)
    for column in cleaned:
        source = sources.get(column["name"], column["name"] if column["name"] in old else None)
        if source is None:
            if column["required"] and draft.exists():
                raise ValidationError(
                    {
                        "columns": [
                            _(
                                "New column %(name)r cannot be required: existing rows have "
                                "no value for it."
                            )
                            % {"name": column["name"]}
                        ]
                    }
                )
            continue
        before = old[source]
        holding = draft.filter(data__has_key=source)
        if before["content_type"] != column["content_type"] and holding.exists():
            raise ValidationError(
                {
                    "columns": [
                        _(
                            "Column %(source)r holds %(content_type)s values in %(count)s "
                            "rows; clear them before changing its type."
                        )
                        % {
                            "source": source,
                            "content_type": before["content_type"],
                            "count": holding.count(),
                        }
                    ]
                }
            )
        if column["required"] and draft.exclude(data__has_key=source).exists():
            raise ValidationError(
                {
                    "columns": [
                        _(
                            "Column %(name)r is empty in some rows; fill them before making "
                            "it required."
                        )
                        % {"name": column["name"]}
                    ]
                }
            )


def _rewrite_draft_keys(evalset: EvalSet, *, renames: dict, dropped: list[str]) -> None:
    """Rename or drop keys in every draft row's data, a batch at a time."""
    names = list(renames) + dropped
    rows = EvalSetItem.objects.filter(draft_filter(), evalset=evalset)
    batch = []
    for item in rows.only("pk", "data").iterator(chunk_size=2000):
        if not any(n in item.data for n in names):
            continue
        item.data = {renames.get(k, k): v for k, v in item.data.items() if k not in dropped}
        batch.append(item)
        if len(batch) >= 2000:
            EvalSetItem.objects.bulk_update(batch, ["data"])
            batch = []
    if batch:
        EvalSetItem.objects.bulk_update(batch, ["data"])


# ----------------------------------------------------------------------------- items


def items_bulk(
    *,
    evalset: EvalSet,
    create: list[dict] | None = None,
    update: list[dict] | None = None,
    delete: list[str] | None = None,
) -> dict:
    """Create, update and delete draft items in one all-or-nothing call.

    Each created item is {data: {column: value}, tags, human_verdict, label}; each update names
    its `item_id` and gives the fields to change (data replaces the row's data). Returns
    {"created": [items], "updated": [items], "deleted": count}.
    """
    _ensure_live(evalset)
    create, update, delete = create or [], update or [], delete or []
    if len(create) + len(update) + len(delete) > MAX_BULK:
        raise ValidationError(
            {"items": [_("At most %(max_bulk)s changes per call.") % {"max_bulk": MAX_BULK}]}
        )
    builder = _item_builder(evalset)
    errors: dict[str, list[str]] = {}
    new_rows = [_checked_row(builder, p, f"create[{i}]", errors) for i, p in enumerate(create)]
    with transaction.atomic():
        draft_edit_check(evalset=evalset)
        targets = _draft_items_by_id(evalset, [u.get("item_id") for u in update] + delete, errors)
        changed = [
            _updated(builder, targets, p, f"update[{i}]", errors) for i, p in enumerate(update)
        ]
        if errors:
            raise ValidationError(errors)
        created = _insert(evalset, new_rows)
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
        errors[where] = [f"Unknown field {sorted(extra)[0]!r}."]
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


def _insert(evalset: EvalSet, rows: list) -> list[EvalSetItem]:
    if not rows:
        return []
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
        )
        for offset, (row, item_id) in enumerate(zip(rows, new_item_ids(len(rows)), strict=True))
    ]
    return EvalSetItem.objects.bulk_create(items, batch_size=1000)


def next_position(evalset: EvalSet) -> int:
    """After every draft row, including rows an import is still staging."""
    top = EvalSetItem.objects.filter(evalset=evalset, version__isnull=True).aggregate(
        m=Max("position")
    )["m"]
    return 0 if top is None else top + 1


# ----------------------------------------------------------------------------- versions


def version_commit(
    *,
    evalset: EvalSet,
    user: AbstractBaseUser | None,
    version: str,
    note: str = "",
    inline: bool | None = None,
) -> EvalSetVersion:
    """Freeze the draft as `version` (SemVer, greater than the latest): columns and rows.

    Up to `ASSAY_COMMIT_INLINE_ROWS` rows (or with `inline=True`, for callers that pin the
    version at once) the rows are copied here; a larger draft returns the version
    `committing` and a background job copies them (`evalsets.committing`).
    """
    _ensure_live(evalset)
    try:
        semver.parse_semver(version)
    except ValueError as exc:
        raise ValidationError({"version": str(exc)}) from None
    with transaction.atomic():
        locked = EvalSet.objects.select_for_update().get(pk=evalset.pk)
        _check_new_version(locked, version)
        commit_quiet_check(evalset=locked)
        count = EvalSetItem.objects.filter(draft_filter(), evalset=locked).count()
        background = not inline and count > commit_inline_rows()
        created = _version_create(locked, user, version, note, count, background=background)
        if background:
            commit_enqueue(version=created)
        else:
            _copy_draft(locked, created)
        EvalSet.objects.filter(pk=locked.pk).update(draft_changed=False, updated_at=timezone.now())
    evalset.draft_changed = False
    return created


def _version_create(evalset, user, version: str, note: str, count: int, *, background: bool):
    return EvalSetVersion.objects.create(
        evalset=evalset,
        version=version,
        note=(note or "").strip(),
        item_count=count,
        columns=evalset.columns,
        created_by=user,
        status=VersionStatus.COMMITTING if background else VersionStatus.READY,
        rows_copied=0 if background else count,
        committed_at=None if background else timezone.now(),
    )


def _check_new_version(evalset: EvalSet, version: str) -> None:
    existing = list(evalset.versions.values_list("version", flat=True))
    if version in existing:
        raise ValidationError(
            {"version": _("Version %(version)s already exists in this set.") % {"version": version}}
        )
    latest = max(existing, key=semver.sort_key) if existing else None
    if latest is not None and not semver.is_greater(version, latest):
        raise ValidationError(
            {
                "version": _("%(version)s is not greater than the latest version %(latest)s.")
                % {"version": version, "latest": latest}
            }
        )


def _copy_draft(evalset: EvalSet, version: EvalSetVersion) -> None:
    """The whole draft in one INSERT … SELECT (`committing.draft_copy_all`).

    Positions are renumbered 0…n-1 in draft order, so a version's row number (position + 1)
    is the same on the evalset, results and compare pages, with no gaps from deleted rows.
    """
    copied = draft_copy_all(evalset=evalset, version=version)
    if copied != version.item_count:  # the lock makes this impossible; refuse to pin a lie
        raise RuntimeError(f"copied {copied} rows, counted {version.item_count}")


def next_version(evalset: EvalSet) -> str:
    """The version the commit dialog proposes: 1.0.0 first, then the next patch."""
    existing = list(evalset.versions.values_list("version", flat=True))
    if not existing:
        return "1.0.0"
    return semver.next_patch(max(existing, key=semver.sort_key))
