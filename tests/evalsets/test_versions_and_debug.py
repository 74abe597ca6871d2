"""Versions are frozen copies; the debug selector hands out turn-ready rows; demo; command."""

import pytest
from django.core.management import call_command
from django.http import Http404

from assay.bases import ImmutableVersionError
from assay.models import Workspace
from evalsets import selectors, services
from evalsets.demo import demo_load
from evalsets.models import EvalSet, EvalSetVersion

pytestmark = pytest.mark.django_db


def test_committed_rows_never_change_when_the_draft_does(evalset, user):
    first = services.item_create(evalset=evalset, data={"question": "Q1"}, tags=["a"])
    version = services.version_commit(evalset=evalset, user=user, version="1.0.0", note="n")
    assert version.item_count == 1 and version.columns == evalset.columns
    services.item_update(evalset=evalset, item_id=first.item_id, data={"question": "changed"})
    services.item_create(evalset=evalset, data={"question": "Q2"})
    services.evalset_set_columns(
        evalset=evalset, columns=[{"name": "prompt", "old_name": "question", "required": True}]
    )
    frozen = list(selectors.items_list(evalset=evalset, version=version))
    assert [(i.item_id, i.data["question"]["text"]) for i in frozen] == [(first.item_id, "Q1")]
    assert version.columns[0]["name"] == "question"
    draft = selectors.items_list(evalset=evalset)
    assert [i.data["prompt"]["text"] for i in draft] == ["changed", "Q2"]
    assert draft[0].item_id == first.item_id  # the stable id survives into the next version


def test_versions_cannot_be_changed_or_deleted(evalset, user):
    version = services.version_commit(evalset=evalset, user=user, version="1.0.0")
    with pytest.raises(ImmutableVersionError):
        version.save()
    with pytest.raises(ImmutableVersionError):
        EvalSetVersion.objects.filter(pk=version.pk).update(note="x")
    with pytest.raises(ImmutableVersionError):
        version.delete()


def test_next_version_proposal(evalset, user):
    assert services.next_version(evalset) == "1.0.0"
    services.version_commit(evalset=evalset, user=user, version="1.0.0")
    assert services.next_version(evalset) == "1.0.1"


def test_rows_for_debug_are_turn_ready_and_capped(evalset, user, workspace, stored_image):
    rows = [
        {"data": {"question": f"Q{i}", "image": stored_image}, "tags": ["t"]} for i in range(12)
    ]
    services.items_bulk(evalset=evalset, create=rows)
    version = services.version_commit(evalset=evalset, user=user, version="1.0.0")
    turns = selectors.evalset_rows_for_debug(workspace=workspace, evalset_version_or_draft=version)
    assert len(turns) == 10
    assert set(turns[0]) == {"item_id", "data", "tags"}
    assert turns[0]["data"]["question"] == {"content_type": "Text", "text": "Q0"}
    image = turns[0]["data"]["image"]["image"]
    assert image["url"] == f"/w/acme/evalsets/media/{image['uri']}"
    draft = selectors.evalset_rows_for_debug(
        workspace=workspace, evalset_version_or_draft=evalset, limit=3
    )
    assert [t["data"]["question"]["text"] for t in draft] == ["Q0", "Q1", "Q2"]
    other = Workspace.objects.create(slug="zz", name="ZZ")
    with pytest.raises(Http404):
        selectors.evalset_rows_for_debug(workspace=other, evalset_version_or_draft=version)


def test_demo_set_has_images_tags_and_a_version_and_loads_once(workspace, user):
    demo_load(workspace=workspace, user=user)
    demo_load(workspace=workspace, user=user)
    evalset = EvalSet.objects.get(workspace=workspace, name="Capitals QA")
    version = evalset.versions.get()
    assert version.version == "1.0.0" and version.item_count == 20
    rows = list(selectors.items_list(evalset=evalset, version=version))
    assert all(r.data["flag"]["image"]["uri"].endswith(".png") for r in rows)
    assert selectors.items_list(evalset=evalset, tag="africa").count() == 6


def test_import_command_with_progress(tmp_path, workspace, capsys):
    source = tmp_path / "rows.jsonl"
    source.write_text('{"question": "a", "tags": ["x"]}\n{"question": "b"}\n')
    call_command("import_evalset", str(source), workspace="acme", evalset="From CLI")
    out = capsys.readouterr()
    assert "2 rows imported into 'From CLI'" in out.out and "100%" in out.err
    evalset = EvalSet.objects.get(name="From CLI")
    assert evalset.column_names == ["question"] and selectors.draft_count(evalset) == 2


def test_import_command_reports_bad_rows_and_saves_nothing(tmp_path, evalset):
    from django.core.management.base import CommandError

    source = tmp_path / "rows.csv"
    source.write_text("question,answer\nok,1\nragged\n")
    with pytest.raises(CommandError, match="Nothing was imported"):
        call_command("import_evalset", str(source), workspace="acme", evalset="Capitals")
    assert selectors.draft_count(evalset) == 0
