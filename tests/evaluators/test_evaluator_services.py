"""Services: immutability, template loading, soft delete semantics."""

import pytest
from django.core.exceptions import ValidationError

from assay.bases import ImmutableVersionError
from evaluators import services
from evaluators.models import EvaluatorTemplate, EvaluatorVersion
from evaluators.presets import load_presets
from evaluators.presets.sync import templates_sync

pytestmark = pytest.mark.django_db


def test_versions_are_immutable_on_every_path(code_evaluator, user):
    version = services.evaluator_submit_version(
        evaluator=code_evaluator, user=user, version="0.0.1"
    )
    version.change_note = "rewritten"
    with pytest.raises(ImmutableVersionError):
        version.save()
    with pytest.raises(ImmutableVersionError):
        EvaluatorVersion.objects.filter(pk=version.pk).update(change_note="rewritten")
    with pytest.raises(ImmutableVersionError):
        version.delete()
    with pytest.raises(ImmutableVersionError):
        EvaluatorVersion.objects.all().delete()
    fresh = EvaluatorVersion.objects.get(pk=version.pk)
    assert fresh.change_note == "" and fresh.config == code_evaluator.draft_config


def test_version_admin_is_read_only(admin_client, code_evaluator, user):
    from django.contrib.admin.sites import site

    services.evaluator_submit_version(evaluator=code_evaluator, user=user, version="0.0.1")
    admin = site._registry[EvaluatorVersion]
    assert admin.has_change_permission(None) is False
    assert admin.has_delete_permission(None) is False
    assert admin.has_add_permission(None) is False


def test_editing_the_draft_never_touches_versions(code_evaluator, user):
    version = services.evaluator_submit_version(
        evaluator=code_evaluator, user=user, version="0.0.1"
    )
    frozen_hash = version.config_hash
    config = {**code_evaluator.draft_config, "timeout_s": 2.0}
    services.evaluator_update_draft(evaluator=code_evaluator, user=user, config=config)
    assert code_evaluator.draft_changed is True
    assert EvaluatorVersion.objects.get(pk=version.pk).config_hash == frozen_hash
    # changing it back matches the latest version again
    config["timeout_s"] = 5.0
    services.evaluator_update_draft(evaluator=code_evaluator, user=user, config=config)
    assert code_evaluator.draft_changed is False


def test_version_order_is_semver_not_creation(code_evaluator, user):
    services.evaluator_submit_version(evaluator=code_evaluator, user=user, version="1.0.0-rc.1")
    services.evaluator_submit_version(evaluator=code_evaluator, user=user, version="1.0.0")
    with pytest.raises(ValidationError):
        services.evaluator_submit_version(evaluator=code_evaluator, user=user, version="1.0.0-rc.2")
    assert services.next_version(code_evaluator) == "1.0.1"


def test_template_sync_is_idempotent(db):
    EvaluatorTemplate.objects.all().delete()
    first = templates_sync()
    second = templates_sync()
    assert first[0] == len(load_presets()) and second == (0, len(load_presets()))
    assert EvaluatorTemplate.objects.count() == len(load_presets())


def test_every_template_creates_a_submittable_evaluator(templates, workspace, user, provider):
    for template in templates:
        for language in template.languages or [None]:
            evaluator = services.evaluator_create_from_template(
                workspace=workspace,
                user=user,
                template=template,
                language=language,
                name=f"{template.slug}-{language}",
            )
            assert services.submit_problems(evaluator=evaluator) == {}, template.slug


def test_deleted_name_can_be_reused_and_blocks_restore(code_evaluator, user, workspace):
    services.evaluator_delete(evaluator=code_evaluator, user=user)
    services.evaluator_create(workspace=workspace, user=user, name="Exact match", kind="code")
    with pytest.raises(ValidationError, match="rename"):
        services.evaluator_restore(evaluator=code_evaluator, user=user)
    code_evaluator.refresh_from_db()
    assert code_evaluator.deleted_at is not None


def test_deleted_evaluator_cannot_be_edited_or_submitted(code_evaluator, user):
    services.evaluator_delete(evaluator=code_evaluator, user=user)
    with pytest.raises(ValidationError):
        services.evaluator_update_draft(evaluator=code_evaluator, user=user, name="x")
    with pytest.raises(ValidationError):
        services.evaluator_submit_version(evaluator=code_evaluator, user=user, version="0.0.1")
