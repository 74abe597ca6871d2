"""Business logic for evaluators: create, edit the draft, submit versions, copy, delete, restore."""

from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils.translation import get_language
from django.utils.translation import gettext as _

from assay import semver
from assay.models import Workspace
from assay.vocabulary import ScoreMeaning

from .. import config as config_schema
from ..kinds import kind_get
from ..models import Evaluator, EvaluatorTemplate, EvaluatorVersion
from ..policies import validate_policy
from ..presets import PROMPT_LOCALES

MAX_NAME = 120
MAX_TAGS = 20


def evaluator_create(
    *,
    workspace: Workspace,
    user: AbstractBaseUser,
    name: str,
    kind: str,
    description: str = "",
    tags: list[str] | None = None,
    score_meaning: str = "quality",
    default_policy: dict | None = None,
    config: dict | None = None,
    language: str | None = None,
    template: EvaluatorTemplate | None = None,
) -> Evaluator:
    """Create an evaluator; without a config it starts from the kind's blank starter."""
    try:
        kind_get(kind)
    except ValueError as exc:
        raise ValidationError({"kind": str(exc)}) from None
    if config is None:
        config = _starter(kind=kind, language=language)
    evaluator = Evaluator(
        workspace=workspace, kind=kind, template=template, created_by=user, updated_by=user
    )
    _assign(
        evaluator,
        name=name,
        description=description,
        tags=tags or [],
        score_meaning=score_meaning,
        default_policy=default_policy,
        config=config,
    )
    return _save(evaluator)


def _starter(*, kind: str, language: str | None) -> dict:
    try:
        return config_schema.default_config(kind, language)
    except ValueError as exc:
        raise ValidationError({"language": str(exc)}) from None


def evaluator_create_from_template(
    *,
    workspace: Workspace,
    user: AbstractBaseUser,
    template: EvaluatorTemplate,
    name: str | None = None,
    language: str | None = None,
    prompt_locale: str | None = None,
) -> Evaluator:
    """Start an evaluator from a preset, in the chosen language when the kind has several (a
    judge's model is pointed at the workspace's first provider). `prompt_locale` picks the
    judge's prompt and the name and description copied (default: the interface language)."""
    locale = prompt_locale_resolve(prompt_locale=prompt_locale)
    try:
        config = kind_get(template.kind).from_template(
            template, workspace=workspace, language=language, prompt_locale=locale
        )
    except ValueError as exc:
        raise ValidationError({"language": str(exc)}) from None
    return evaluator_create(
        workspace=workspace,
        user=user,
        name=name or template.localized("name", locale),
        kind=template.kind,
        description=template.localized("description", locale),
        tags=list(template.tags),
        score_meaning=template.score_meaning,
        default_policy=template.default_policy,
        config=config,
        template=template,
    )


def prompt_locale_resolve(*, prompt_locale: str | None) -> str:
    """The prompt language asked for, or the interface's when none is (English unless it is
    Chinese); an unknown value is the field's error, raised before anything is written."""
    if not prompt_locale:
        return "zh-hans" if (get_language() or "").lower().startswith("zh") else "en"
    if prompt_locale not in PROMPT_LOCALES:
        message = _("Unknown prompt language %(value)r: use one of %(choices)s.") % {
            "value": prompt_locale,
            "choices": ", ".join(PROMPT_LOCALES),
        }
        raise ValidationError({"prompt_locale": message})
    return prompt_locale


def evaluator_create_from_choice(
    *,
    workspace: Workspace,
    user: AbstractBaseUser,
    template: str | None = None,
    kind: str | None = None,
    name: str | None = None,
    language: str | None = None,
    prompt_locale: str | None = None,
    **fields,
) -> Evaluator:
    """What the new-evaluator page and the API both do: start from the preset `template`
    (a slug) when one is given, else from the blank starter (or `config`) of `kind`."""
    prompt_locale_resolve(prompt_locale=prompt_locale)  # a bad value is an error either way
    if template:
        from ..selectors import template_list

        found = template_list().filter(slug=template).first()
        if found is None:
            raise ValidationError({"template": f"No template {template!r}."})
        return evaluator_create_from_template(
            workspace=workspace,
            user=user,
            template=found,
            name=name,
            language=language,
            prompt_locale=prompt_locale,
        )
    return evaluator_create(
        workspace=workspace,
        user=user,
        name=name or "",
        kind=kind or "",
        language=language,
        **fields,
    )


def evaluator_copy(*, evaluator: Evaluator, user: AbstractBaseUser) -> Evaluator:
    """Copy the draft into a new evaluator named '<name> (copy)' (numbered if taken)."""
    return evaluator_create(
        workspace=evaluator.workspace,
        user=user,
        name=_copy_name(evaluator),
        kind=evaluator.kind,
        description=evaluator.description,
        tags=list(evaluator.tags),
        score_meaning=evaluator.score_meaning,
        default_policy=evaluator.default_policy,
        config=evaluator.draft_config,
        template=evaluator.template,
    )


def _copy_name(evaluator: Evaluator) -> str:
    live = Evaluator.objects.filter(workspace=evaluator.workspace, deleted_at__isnull=True)
    taken = set(live.values_list("name", flat=True))
    base = f"{evaluator.name} (copy)"
    candidate, n = base, 2
    while candidate in taken:
        candidate, n = f"{evaluator.name} (copy {n})", n + 1
    return candidate[:MAX_NAME]


DRAFT_FIELDS = {"name", "description", "tags", "score_meaning", "default_policy", "config"}


def evaluator_update_draft(*, evaluator: Evaluator, user: AbstractBaseUser, **fields) -> Evaluator:
    """Change the draft (and metadata). Nothing is saved unless every field is valid."""
    unknown = set(fields) - DRAFT_FIELDS
    if unknown:
        raise ValidationError({name: _("Unknown or read-only field.") for name in sorted(unknown)})
    _ensure_live(evaluator)
    current = {
        "name": evaluator.name,
        "description": evaluator.description,
        "tags": evaluator.tags,
        "score_meaning": evaluator.score_meaning,
        "default_policy": evaluator.default_policy,
        "config": evaluator.draft_config,
    }
    _assign(evaluator, **{**current, **fields})
    evaluator.updated_by = user
    evaluator.draft_changed = _differs_from_latest(evaluator)
    return _save(evaluator)


def evaluator_submit_version(
    *,
    evaluator: Evaluator,
    user: AbstractBaseUser,
    version: str,
    change_note: str = "",
    test_result: dict | None = None,
) -> EvaluatorVersion:
    """Freeze the draft as `version` after the kind's checks; SemVer must exceed the latest."""
    evaluator_submit_precheck(evaluator=evaluator, version=version)
    with transaction.atomic():
        locked = Evaluator.objects.select_for_update().get(pk=evaluator.pk)
        _check_greater(locked, version)
        created = EvaluatorVersion.objects.create(
            evaluator=locked,
            version=version,
            change_note=change_note.strip(),
            kind=locked.kind,
            score_meaning=locked.score_meaning,
            default_policy=locked.default_policy,
            config=locked.draft_config,
            config_hash=config_schema.config_hash(locked.draft_config),
            test_result=test_result,
            created_by=user,
        )
        Evaluator.objects.filter(pk=locked.pk).update(draft_changed=False)
    evaluator.draft_changed = False
    return created


def evaluator_submit_precheck(*, evaluator: Evaluator, version: str) -> None:
    """Everything that would refuse the submit, checked without writing anything."""
    _ensure_live(evaluator)
    _check_semver(version)
    _check_greater(evaluator, version)
    problems = submit_problems(evaluator=evaluator)
    if problems:
        raise ValidationError({f"config.{path}": msgs for path, msgs in problems.items()})


def submit_problems(*, evaluator: Evaluator) -> dict[str, list[str]]:
    """What stops the draft from being submitted: the schema, the kind's checks, then (only when
    those pass) the kind's deep checks, such as the code kind's sandbox check."""
    kind, config = kind_get(evaluator.kind), evaluator.draft_config
    problems = config_schema.submit_problems(
        evaluator.kind,
        config,
        model_configured=kind.model_configured(config, workspace=evaluator.workspace),
    )
    return problems or kind.deep_problems(config_schema.validate_config(evaluator.kind, config))


def evaluator_delete(*, evaluator: Evaluator, user: AbstractBaseUser) -> Evaluator:
    """Soft delete: hidden from the library, still readable where experiments pin it."""
    if evaluator.mark_deleted(deleted=True):
        evaluator.updated_by = user
        evaluator.save(update_fields=["deleted_at", "updated_by", "updated_at"])
    return evaluator


def evaluator_restore(*, evaluator: Evaluator, user: AbstractBaseUser) -> Evaluator:
    """Undo a soft delete, unless a live evaluator has taken the name meanwhile."""
    if not evaluator.mark_deleted(deleted=False):
        return evaluator
    evaluator.updated_by = user
    taken = _("An evaluator named %(name)r exists; rename it before restoring.") % {
        "name": evaluator.name
    }
    try:
        evaluator.save_named(taken=taken, update_fields=["deleted_at", "updated_by", "updated_at"])
    except ValidationError:
        evaluator.mark_deleted(deleted=True)
        raise
    return evaluator


def latest_version(evaluator: Evaluator) -> EvaluatorVersion | None:
    """The highest SemVer (not the newest row: versions order by SemVer)."""
    return evaluator.latest_version


def next_version(evaluator: Evaluator) -> str:
    latest = latest_version(evaluator)
    return semver.next_patch(latest.version if latest else None)


# ----------------------------------------------------------------------------- helpers


def _assign(
    evaluator: Evaluator, *, name, description, tags, score_meaning, default_policy, config
) -> None:
    """Validate every field, collecting all problems, then assign."""
    errors: dict[str, list[str]] = {}
    name = (name or "").strip()
    if not name:
        errors["name"] = [_("An evaluator needs a name.")]
    elif len(name) > MAX_NAME:
        errors["name"] = [_("Names are at most %(max_name)s characters.") % {"max_name": MAX_NAME}]
    tags = _clean_tags(tags, errors)
    if score_meaning not in ScoreMeaning.values:
        errors["score_meaning"] = [
            _("Unknown score meaning %(score_meaning)r; use quality or risk.")
            % {"score_meaning": score_meaning}
        ]
    policy = _clean_policy(default_policy, errors)
    config = _clean_config(evaluator.kind, config, errors)
    if errors:
        raise ValidationError(errors)
    evaluator.name, evaluator.description, evaluator.tags = name, (description or "").strip(), tags
    evaluator.score_meaning, evaluator.default_policy = score_meaning, policy
    evaluator.draft_config = config


def _clean_tags(tags, errors: dict) -> list[str]:
    if not isinstance(tags, list) or not all(isinstance(t, str) for t in tags):
        errors["tags"] = [_("Tags must be a list of strings.")]
        return []
    cleaned = sorted({t.strip() for t in tags if t.strip()})
    if len(cleaned) > MAX_TAGS or any(len(t) > 40 for t in cleaned):
        errors["tags"] = [
            _("At most %(max_tags)s tags of at most 40 characters.") % {"max_tags": MAX_TAGS}
        ]
    return cleaned


def _clean_policy(policy, errors: dict) -> dict:
    try:
        return validate_policy(policy)
    except ValueError as exc:
        errors["default_policy"] = [str(exc)]
        return {}


def _clean_config(kind: str, config, errors: dict) -> dict:
    try:
        return config_schema.validate_config(kind, config)
    except config_schema.ConfigError as exc:
        errors.update({f"config.{path}": msgs for path, msgs in exc.errors.items()})
        return {}


def _save(evaluator: Evaluator) -> Evaluator:
    evaluator.save_named(
        taken=_("An evaluator named %(name)r already exists here.") % {"name": evaluator.name}
    )
    return evaluator


def _ensure_live(evaluator: Evaluator) -> None:
    if evaluator.deleted_at is not None:
        raise ValidationError({"evaluator": _("This evaluator is deleted; restore it first.")})


def _check_semver(version: str) -> None:
    try:
        semver.parse_semver(version)
    except ValueError as exc:
        raise ValidationError({"version": str(exc)}) from None


def _check_greater(evaluator: Evaluator, version: str) -> None:
    latest = latest_version(evaluator)
    if latest is not None and not semver.is_greater(version, latest.version):
        raise ValidationError(
            {
                "version": _("%(version)s is not greater than the latest version %(version2)s.")
                % {"version": version, "version2": latest.version}
            }
        )


def _differs_from_latest(evaluator: Evaluator) -> bool:
    if evaluator.pk is None:
        return True
    latest = latest_version(evaluator)
    if latest is None:
        return True
    return latest.config_hash != config_schema.config_hash(evaluator.draft_config)
