"""The demo workspace loaded by `make run`, so a newcomer sees the product working at once.

Each capability adds its part here; loading is idempotent (safe on every start).
"""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.db import transaction

from . import services
from .models import Membership, ModelProvider, Workspace

DEMO_USERNAME = "demo"
DEMO_PASSWORD = "assay-demo"
DEMO_WORKSPACE = "demo"

User = get_user_model()


@transaction.atomic
def demo_load() -> Workspace:
    """Create (or keep) the demo user, workspace and provider."""
    user = User.objects.filter(username=DEMO_USERNAME).first()
    if user is None:
        user = services.user_create(username=DEMO_USERNAME, password=DEMO_PASSWORD)
    workspace = Workspace.objects.filter(slug=DEMO_WORKSPACE).first()
    if workspace is None:
        workspace = services.workspace_create(name="Demo", slug=DEMO_WORKSPACE, owner=user)
    Membership.objects.get_or_create(
        workspace=workspace, user=user, defaults={"role": Membership.Role.OWNER}
    )
    if not ModelProvider.objects.filter(workspace=workspace).exists():
        services.provider_create(
            workspace=workspace,
            name="Local Ollama",
            base_url="http://127.0.0.1:11434/v1",
            default_model="qwen2.5:7b",
            structured_mode=ModelProvider.StructuredMode.JSON_OBJECT,
        )
    for loader in _extra_loaders():
        loader(workspace=workspace, user=user)
    return workspace


def demo_existing(model, workspace, name: str):
    """The demo's object of that name, when an earlier start made it (loading runs each start):
    the apps' demo loaders find what they made this way."""
    return model.objects.filter(workspace=workspace, name=name).first()


def _extra_loaders():
    """Apps contribute demo data through a `demo_load(workspace, user)` in their demo module."""
    from importlib import import_module

    loaders = []
    apps = ("evaluators", "evalsets", "experiments", "traces", "online", "schedules", "annotation")
    for app in apps:
        try:
            module = import_module(f"{app}.demo")
        except ModuleNotFoundError as exc:
            if exc.name != f"{app}.demo":
                raise
            continue
        loaders.append(module.demo_load)
    return loaders
