"""Headless Chromium: create a set → import a CSV with an image column through the worker →
edit a row → commit 1.0.0 → export it as CSV."""

import pytest
from django.core.files.base import ContentFile

from evalsets.demo import flag_png
from evalsets.items.media import media_store
from evalsets.models import EvalSet
from tests.support.fixtures import open_dialog, screenshot, sign_in, wait_until

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

FLAGS = {
    "France": [(0, 85, 164), (255, 255, 255), (239, 65, 53)],
    "Italy": [(0, 146, 70), (255, 255, 255), (206, 43, 55)],
    "Peru": [(217, 16, 35), (255, 255, 255), (217, 16, 35)],
}


def csv_with_images(workspace) -> str:
    """question,picture,tags: each picture the stored path of an uploaded flag."""
    lines = ["question,picture,tags"]
    for country, colours in FLAGS.items():
        upload = ContentFile(flag_png(colours, vertical=True), name=f"{country.lower()}.png")
        uri = media_store(workspace=workspace, upload=upload)["image"]["uri"]
        lines.append(f'Whose flag is this?,{uri},"flags, {country.lower()}"')
    return "\n".join(lines) + "\n"


def test_import_edit_commit_export(
    live_server, page, user, workspace, settings, tmp_path, celery_worker_inproc
):
    settings.MEDIA_ROOT = tmp_path / "media"
    source = tmp_path / "flags.csv"
    source.write_text(csv_with_images(workspace))

    sign_in(page, live_server)
    page.click("nav.mainnav >> text=Evalsets")
    page.click("#new-evalset")
    page.fill("#id_name", "Flags")
    page.click("#create-evalset")
    page.wait_for_selector("#import-form")

    page.set_input_files("#id_file", str(source))
    page.click("#upload-file")
    page.wait_for_selector("#mapping-table")
    assert page.input_value("#id_map_1") == "__new__"
    page.select_option("#id_type_1", "Image")  # picture: a new Image column
    page.select_option("#id_map_2", "@tags")
    page.click("#start-import")
    page.wait_for_selector("#import-progress[data-status='completed']", timeout=60_000)
    assert "3 rows imported" in page.inner_text("#import-progress")
    screenshot(page, "evalset-import")

    page.click("#see-rows")
    page.wait_for_selector("#rows-table")
    thumbs = page.locator("#rows-table img.thumb")
    assert thumbs.count() == 3
    wait_until(
        page, "[...document.querySelectorAll('img.thumb')].every(i => i.naturalWidth === 48)"
    )
    page.locator(".edit-row").nth(1).click()
    page.fill("#id_col_question", "Which country flies this flag?")
    page.click("#save-row")
    page.wait_for_selector("text=Row saved")
    assert "Which country flies this flag?" in page.inner_text("#rows-table")
    screenshot(page, "evalset-rows")

    page.click("nav.tabs >> text=Versions")
    page.wait_for_url("**/versions/")
    open_dialog(page, "#open-commit", "#commit-dialog")
    assert page.input_value("#commit-dialog #id_version") == "1.0.0"
    page.fill("#commit-dialog #id_note", "three flags")
    page.click("#confirm-commit")
    page.wait_for_selector("text=Version 1.0.0 committed with 3 rows")
    screenshot(page, "evalset-versions")

    with page.expect_download() as info:
        page.click("#versions-table .export-csv")
    exported = tmp_path / "export.csv"
    info.value.save_as(exported)
    lines = exported.read_text().splitlines()
    assert lines[0] == "item_id,question,picture,tags,human_verdict,label"
    assert len(lines) == 4 and "Which country flies this flag?" in lines[2]
    assert "/image/" in lines[1] and "flags, france" in lines[1]

    evalset = EvalSet.objects.get(name="Flags")
    assert [(c["name"], c["content_type"]) for c in evalset.columns] == [
        ("question", "Text"),
        ("picture", "Image"),
    ]
    assert evalset.versions.get().item_count == 3
    assert page.console_errors == []
