"""Versions: committing the draft into an immutable version (inline or in the background)."""

from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from assay import semver

from ..committing import commit_enqueue, commit_quiet_check, draft_copy_all
from ..committing import inline_rows as commit_inline_rows
from ..models import EvalSet, EvalSetItem, EvalSetVersion, VersionStatus, draft_filter
from .sets import ensure_live


def version_commit(
    *,
    evalset: EvalSet,
    user: AbstractBaseUser | None,
    version: str,
    note: str = "",
    inline: bool | None = None,
    content_hash: str = "",
) -> EvalSetVersion:
    """Freeze the draft as `version` (SemVer, greater than the latest): columns and rows.

    Up to `ASSAY_COMMIT_INLINE_ROWS` rows (or with `inline=True`, for callers that pin the
    version at once) the rows are copied here; a larger draft returns the version
    `committing` and a background job copies them (`evalsets.committing`). `content_hash`
    marks a version made from a rows file (`evalset_version_from_rows` finds it by that).
    """
    ensure_live(evalset)
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
        created = _version_create(
            locked, user, version, note, count, background=background, content_hash=content_hash
        )
        if background:
            commit_enqueue(version=created)
        else:
            _copy_draft(locked, created)
        EvalSet.objects.filter(pk=locked.pk).update(draft_changed=False, updated_at=timezone.now())
    evalset.draft_changed = False
    return created


def _version_create(
    evalset, user, version: str, note: str, count: int, *, background: bool, content_hash: str
):
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
        content_hash=content_hash,
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
    return semver.next_patch(max(existing, key=semver.sort_key) if existing else None)
