"""Evaluation sets and their columns: create, edit, delete; the column schema."""

from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils.translation import gettext as _

from assay.models import Workspace
from assay.vocabulary import CONTENT_TYPES

from ..committing import draft_edit_check
from ..items.problems import problem_text
from ..items.rows import MAX_TAG_LEN, MAX_TAGS, column_name_problem
from ..models import EvalSet, EvalSetItem, draft_filter

MAX_NAME = 120
MAX_COLUMNS = 50
DESCRIPTION_CAP = 2000


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
    ensure_live(evalset)
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


def ensure_live(evalset: EvalSet) -> None:
    if evalset.deleted_at is not None:
        raise ValidationError({"evalset": _("This evaluation set is deleted.")})


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
    ensure_live(evalset)
    renames = {
        c["old_name"]: c["name"] for c in columns if isinstance(c, dict) and c.get("old_name")
    }
    cleaned = clean_columns(columns)
    old = {c["name"]: c for c in evalset.columns}
    unknown = [n for n in renames if n not in old]
    if unknown:
        raise ValidationError(
            {"columns": [_("No column %(name)r to rename.") % {"name": unknown[0]}]}
        )
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
