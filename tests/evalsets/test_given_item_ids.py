"""A created draft row may name its own item id (garak imports key rows by content, so a
prompt that comes back keeps its id); a malformed, repeated or taken id is refused."""

import uuid

import pytest
from django.core.exceptions import ValidationError

from evalsets.services import evalset_create, items_bulk

pytestmark = pytest.mark.django_db


@pytest.fixture
def evalset(workspace, user):
    column = {"name": "input", "content_type": "Text", "required": False, "description": ""}
    return evalset_create(workspace=workspace, user=user, name="ids", columns=[column])


def test_a_created_row_keeps_the_item_id_it_names(evalset):
    named = uuid.uuid5(uuid.NAMESPACE_URL, "a prompt")
    made = items_bulk(
        evalset=evalset,
        create=[{"item_id": str(named), "data": {"input": "a"}}, {"data": {"input": "b"}}],
    )["created"]
    assert made[0].item_id == named and made[1].item_id != named


@pytest.mark.parametrize(
    ("ids", "field"),
    [
        (["not-a-uuid"], "create[0].item_id"),
        ([str(uuid.UUID(int=7)), str(uuid.UUID(int=7))], "item_id"),
    ],
)
def test_bad_or_repeated_ids_are_refused(evalset, ids, field):
    with pytest.raises(ValidationError) as refused:
        items_bulk(evalset=evalset, create=[{"item_id": i, "data": {"input": "x"}} for i in ids])
    assert field in refused.value.message_dict
    assert not evalset.items.exists()


def test_an_id_a_draft_row_has_is_refused(evalset):
    (row,) = items_bulk(evalset=evalset, create=[{"data": {"input": "a"}}])["created"]
    with pytest.raises(ValidationError) as refused:
        items_bulk(evalset=evalset, create=[{"item_id": str(row.item_id), "data": {}}])
    assert str(row.item_id) in refused.value.message_dict["item_id"][0]
    assert evalset.items.count() == 1
