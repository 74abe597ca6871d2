"""The demo has a template with a paused nightly schedule, made once."""

import pytest
from django.test import Client

from assay.demo import DEMO_USERNAME
from assay.demo import demo_load as platform_demo_load
from schedules.demo import TEMPLATE
from schedules.models import ExperimentTemplate

pytestmark = pytest.mark.django_db


def test_the_demo_has_a_template_with_a_paused_nightly_schedule_made_once():
    workspace = platform_demo_load()
    platform_demo_load()
    template = ExperimentTemplate.objects.get(workspace=workspace, name=TEMPLATE)
    assert ExperimentTemplate.objects.filter(workspace=workspace, name=TEMPLATE).count() == 1
    assert template.evalset_version_id is None  # follows the latest committed version
    [schedule] = template.schedules.all()
    assert (schedule.cron, schedule.timezone, schedule.paused) == (
        "0 2 * * *",
        "Asia/Shanghai",
        True,
    )
    owner = Client()
    owner.force_login(workspace.memberships.get(user__username=DEMO_USERNAME).user)
    page = owner.get(f"/w/{workspace.slug}/templates/{template.public_id}/").content.decode()
    assert TEMPLATE in page and "0 2 * * *" in page
