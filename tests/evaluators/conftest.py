"""Fixtures for evaluator tests."""

import pytest

from assay import services as platform
from evaluators import services
from evaluators.models import EvaluatorTemplate


@pytest.fixture
def provider(workspace):
    return platform.provider_create(
        workspace=workspace,
        name="Judge host",
        base_url="https://llm.test/v1",
        default_model="judge-1",
        api_key="sk-test-000000000000",
    )


@pytest.fixture
def code_evaluator(workspace, user):
    return services.evaluator_create(
        workspace=workspace, user=user, name="Exact match", kind="code", language="python"
    )


@pytest.fixture
def templates(db):
    from evaluators.presets.sync import templates_sync

    templates_sync()
    return EvaluatorTemplate.objects.all()
