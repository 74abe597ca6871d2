"""The admin shows submitted versions but never adds, changes or deletes them."""

import pytest
from django.urls import reverse

from tests.support.factories import make_code_version, make_evalset_version


@pytest.fixture
def staff(client, make_user):
    admin_user = make_user("root")
    admin_user.is_staff = admin_user.is_superuser = True
    admin_user.save(update_fields=["is_staff", "is_superuser"])
    client.force_login(admin_user)
    return client


@pytest.fixture
def versions(workspace, user):
    return {
        "evaluators_evaluatorversion": make_code_version(workspace=workspace, user=user),
        "evalsets_evalsetversion": make_evalset_version(workspace=workspace, user=user, rows=[]),
    }


@pytest.mark.parametrize("route", ["evaluators_evaluatorversion", "evalsets_evalsetversion"])
def test_versions_are_browsable_and_read_only(staff, versions, route):
    version = versions[route]
    page = staff.get(reverse(f"admin:{route}_change", args=[version.pk]))
    assert page.status_code == 200
    assert b'name="_save"' not in page.content  # no save button: nothing to change
    assert staff.get(reverse(f"admin:{route}_add")).status_code == 403
    assert (
        staff.post(reverse(f"admin:{route}_delete", args=[version.pk]), {"post": "yes"}).status_code
        == 403
    )
    assert type(version).objects.filter(pk=version.pk).exists()
