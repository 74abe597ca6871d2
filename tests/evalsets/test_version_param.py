"""The `version` query parameter of an evalset's items and export: the draft, a version, 404 for
a version that does not exist, and a 400 naming the parameter for a value that is no version
(`?version=%00` was a 500 on PostgreSQL, which refuses a NUL in a query)."""

import pytest
from django.urls import reverse

from tests.support.factories import make_evalset_version, qa_rows

pytestmark = pytest.mark.django_db

BAD = ["%00", "1.0.0%00", "..%2F..", "1.0", "x" * 300]


@pytest.fixture
def evalset(workspace, user):
    return make_evalset_version(workspace=workspace, user=user, rows=qa_rows(2)).evalset


def urls(evalset) -> list[str]:
    base = f"/api/v1/evalsets/{evalset.public_id}"
    item = evalset.items.order_by("position").first()
    return [f"{base}/items/", f"{base}/export/", f"{base}/items/{item.item_id}/"]


@pytest.mark.parametrize("bad", BAD)
def test_a_value_that_is_no_version_is_a_400_naming_the_parameter(api, evalset, bad):
    for url in urls(evalset):
        response = api.get(f"{url}?version={bad}")
        assert response.status_code == 400, (url, response.content)
        assert list(response.json()["error"]["details"]) == ["version"], url


def test_the_draft_a_version_and_a_missing_version(api, evalset):
    for url in urls(evalset):
        for ref, expected in (("", 200), ("draft", 200), ("1.0.0", 200), ("9.9.9", 404)):
            response = api.get(f"{url}?version={ref}")
            assert response.status_code == expected, (url, ref, response.content)


@pytest.mark.parametrize("bad", BAD)
def test_the_pages_answer_404_for_a_value_that_is_no_version(web, evalset, bad):
    for name in ("evalsets:detail", "evalsets:export"):
        url = reverse(name, kwargs={"ws": "acme", "id": evalset.public_id})
        assert web.get(f"{url}?version={bad}").status_code == 404, name
