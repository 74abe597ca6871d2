"""Content objects, row building, tags, ids and media sniffing: the pure layer."""

import uuid

import pytest

from evalsets.demo import png_bytes
from evalsets.items.cells import TEXT_CELL_CAP, CellError
from evalsets.items.content import (
    content_cell,
    content_from_value,
    content_text,
)
from evalsets.items.media import sniff_media
from evalsets.items.rows import (
    RowBuilder,
    column_name_problem,
    default_mapping,
    new_item_ids,
    parse_tags,
)


def no_files(uri, kind):
    raise CellError(f"no uploaded file at {uri!r}")


def test_text_and_numbers_become_text_content():
    assert content_from_value("hi", "Text", no_files) == {"content_type": "Text", "text": "hi"}
    assert content_from_value(42, "Text", no_files)["text"] == "42"


def test_text_over_the_cap_is_refused_with_its_size():
    with pytest.raises(CellError, match="limit is 65,536 bytes"):
        content_from_value("é" * TEXT_CELL_CAP, "Text", no_files)


def test_image_url_is_kept_and_name_derived():
    content = content_from_value("https://img.test/a/cat.png?x=1", "Image", no_files)
    assert content["image"] == {
        "url": "https://img.test/a/cat.png?x=1",
        "uri": "",
        "name": "cat.png",
    }


@pytest.mark.parametrize(
    "value, problem",
    [
        ("hello there", "expected an image URL"),
        ("javascript:alert(1)", "expected an image URL"),
        ("ftp://x.test/a.png", r"not a valid http\(s\) URL"),
        ({"content_type": "Text", "text": "x"}, "wrong content type Text: this column holds Image"),
        ({"content_type": "Image", "image": {}}, "needs image.url or image.uri"),
        ({"content_type": "Video"}, "content_type must be one of"),
        (True, "expected Image content"),
    ],
)
def test_bad_image_values_say_why(value, problem):
    with pytest.raises(CellError, match=problem):
        content_from_value(value, "Image", no_files)


def test_stored_uri_is_checked_by_the_callback():
    with pytest.raises(CellError, match="no uploaded file"):
        content_from_value("evalsets/abc/image/x/a.png", "Image", no_files)
    seen = []
    content = content_from_value(
        "evalsets/abc/audio/x/a.mp3", "Audio", lambda uri, kind: seen.append((uri, kind))
    )
    assert seen == [("evalsets/abc/audio/x/a.mp3", "audio")]
    assert content["audio"]["format"] == "mp3"


def test_multipart_from_json_text_and_nested_checks():
    value = (
        '[{"content_type": "Text", "text": "look"}, {"content_type": "Image", '
        '"image": {"url": "https://img.test/x.png"}}]'
    )
    content = content_from_value(value, "MultiPart", no_files)
    assert [p["content_type"] for p in content["multi_part"]] == ["Text", "Image"]
    assert content_text(content) == "look x.png"
    assert content_cell(content).startswith('{"content_type": "MultiPart"')
    with pytest.raises(CellError, match="not valid JSON"):
        content_from_value("[{oops", "MultiPart", no_files)
    with pytest.raises(CellError, match="part 1 must be"):
        content_from_value([{"content_type": "MultiPart", "multi_part": []}], "MultiPart", no_files)


COLUMNS = [
    {"name": "q", "content_type": "Text", "required": True},
    {"name": "img", "content_type": "Image"},
]


def test_row_builder_collects_every_problem_of_a_record():
    builder = RowBuilder(COLUMNS, {"q": "q", "img": "img", "tags": "@tags"}, no_files)
    row, problems = builder.build({"q": "", "img": "not a url", "extra": "x", "tags": "a"})
    assert row is None
    by_column = dict(problems)
    assert "unknown column 'extra'" in by_column["extra"]
    assert "expected an image URL" in by_column["img"]
    assert "required" in by_column["q"]


def test_row_builder_builds_data_tags_and_search_text():
    mapping = {"question": "q", "t": "@tags", "v": "@human_verdict", "l": "@label", "id": ""}
    builder = RowBuilder(COLUMNS, mapping, no_files)
    row, problems = builder.build(
        {"question": "Capital of France?", "t": "geo; easy", "v": "PASS", "l": "ok", "id": "x"}
    )
    assert problems == []
    assert row.data == {"q": {"content_type": "Text", "text": "Capital of France?"}}
    assert row.tags == ["easy", "geo"] and row.human_verdict == "pass" and row.label == "ok"
    assert "France" in row.search_text


def test_tags_and_names_rules():
    assert parse_tags('["b", "a", "a"]') == ["a", "b"]
    with pytest.raises(CellError, match="at most 20 tags"):
        parse_tags([f"t{i}" for i in range(21)])
    assert column_name_problem("question") is None
    assert "reserved" in column_name_problem("tags")
    assert "not a valid column name" in column_name_problem("1st col")


def test_default_mapping_ignores_item_id_and_leaves_unknown_fields_unmapped():
    mapping = default_mapping(["item_id", "q", "tags", "other"], ["q"])
    assert mapping == {"item_id": "", "q": "q", "tags": "@tags"}


def test_item_ids_are_unique_time_ordered_uuids():
    ids = new_item_ids(1000)
    assert len(set(ids)) == 1000 and ids == sorted(ids)
    assert all(isinstance(i, uuid.UUID) and i.version == 7 for i in ids)


def test_media_sniffing_by_magic_bytes():
    assert sniff_media(png_bytes(2, 2, lambda x, y: (0, 0, 0))) == ("image", "image/png")
    assert sniff_media(b"RIFF\x00\x00\x00\x00WAVEfmt ") == ("audio", "audio/wav")
    assert sniff_media(b"ID3\x04\x00") == ("audio", "audio/mpeg")
    assert sniff_media(b"<svg xmlns='http://www.w3.org/2000/svg'>") is None
    assert sniff_media(b"just some text") is None
