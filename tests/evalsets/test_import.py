"""File imports through the service the worker runs: good files, and every kind of bad one.

Each bad file must end in a clear problem naming the line and column, with nothing saved.
"""

import json

import pytest
from django.core.exceptions import ValidationError

from evalsets import selectors
from evalsets.export import errors_csv
from evalsets.importing import import_configure, import_create
from evalsets.models import EvalSetItem
from tests.evalsets.conftest import jsonl, run_now, upload

pytestmark = pytest.mark.django_db


def imported(evalset, name, body, **options):
    job = import_create(evalset=evalset, user=None, upload=upload(name, body), **options)
    return run_now(job)


def draft(evalset):
    return list(selectors.items_list(evalset=evalset))


def assert_nothing_saved(evalset):
    assert draft(evalset) == []
    assert EvalSetItem.objects.count() == 0  # staged rows of the failed job are gone too


def problems(job):
    return [(e["line"], e["column"], e["problem"]) for e in job.errors]


def test_csv_import_with_image_urls_tags_and_verdicts(evalset):
    body = (
        "question,image,answer,tags,human_verdict\n"
        'What is shown?,https://img.test/cat.png,A cat,"animals, easy",pass\n'
        '"Multi\nline",,"Say ""hi""",,\n'
    )
    job = imported(evalset, "rows.csv", body)
    assert job.status == "completed", job.message
    assert (job.rows_done, job.rows_total, job.rows_imported) == (2, 2, 2)
    first, second = draft(evalset)
    assert first.data["image"]["image"]["url"] == "https://img.test/cat.png"
    assert first.tags == ["animals", "easy"] and first.human_verdict == "pass"
    assert second.data["question"]["text"] == "Multi\nline"
    assert second.data["answer"]["text"] == 'Say "hi"' and "image" not in second.data


def test_jsonl_import_accepts_content_objects_and_stored_media(evalset, stored_image):
    body = jsonl(
        [
            {"question": "q1", "image": stored_image, "tags": ["a"]},
            {"question": "q2", "image": stored_image["image"]["uri"], "label": "gold"},
        ]
    )
    job = imported(evalset, "rows.jsonl", body)
    assert job.status == "completed", job.errors
    rows = draft(evalset)
    assert [r.data["image"]["image"]["uri"] for r in rows] == [stored_image["image"]["uri"]] * 2
    assert rows[1].label == "gold"


def test_new_set_gets_columns_from_the_file(workspace):
    from evalsets.services import evalset_create

    empty = evalset_create(workspace=workspace, user=None, name="Fresh")
    body = jsonl(
        [
            {
                "prompt": "hi",
                "picture": {"content_type": "Image", "image": {"url": "https://i.test/a.png"}},
            }
        ]
    )
    job = imported(empty, "rows.jsonl", body)
    assert job.status == "completed", job.errors
    empty.refresh_from_db()
    assert [(c["name"], c["content_type"]) for c in empty.columns] == [
        ("prompt", "Text"),
        ("picture", "Image"),
    ]


def test_bad_quoting_names_the_line(evalset):
    body = 'question,answer\nfine,row\n"broken" quote,x\nok,ok\n'
    job = imported(evalset, "bad.csv", body)
    assert job.status == "failed"
    assert problems(job)[0][0] == 3 and "malformed CSV" in problems(job)[0][2]
    assert "Nothing was imported" in job.message
    assert_nothing_saved(evalset)


def test_unclosed_quote_is_reported(evalset):
    job = imported(evalset, "bad.csv", 'question,answer\nok,ok\n"never closed,x\nmore,rows\n')
    assert job.status == "failed"
    assert problems(job) == [
        (3, "", "malformed CSV: a quoted cell is never closed (unexpected end of data)")
    ]
    assert_nothing_saved(evalset)


def test_a_file_in_another_encoding_gets_one_file_level_message(evalset):
    body = "question,answer\nok,ok\ncaf\xe9,x\n".encode("latin-1")
    with pytest.raises(ValidationError) as caught:
        import_create(evalset=evalset, user=None, upload=upload("latin1.csv", body))
    (message,) = caught.value.message_dict["file"]
    assert "The file is not UTF-8 text" in message and "GB18030" in message  # the choices
    assert evalset.imports.count() == 0
    job = imported(evalset, "latin1.csv", body, encoding="latin-1")
    assert job.status == "completed"
    assert [i.data["question"]["text"] for i in draft(evalset)] == ["ok", "café"]


def test_a_chinese_windows_file_is_recognised_and_imports_in_its_encoding(evalset):
    body = "question,answer\n首都是哪里,巴黎\n".encode("gb18030")
    with pytest.raises(ValidationError) as caught:
        import_create(evalset=evalset, user=None, upload=upload("zh.csv", body))
    assert "It looks like GB18030" in caught.value.message_dict["file"][0]
    job = imported(evalset, "zh.csv", body, encoding="gb18030")
    assert job.status == "completed"
    assert draft(evalset)[0].data["answer"]["text"] == "巴黎"


def test_a_bad_byte_past_the_sniffed_start_still_names_its_line(evalset):
    good = "question,answer\n" + "ok,ok\n" * 20000  # > 64 KB of UTF-8
    body = good.encode() + "caf\xe9,x\n".encode("latin-1")
    job = imported(evalset, "late.csv", body)
    assert job.status == "failed"
    line, _column, problem = problems(job)[0]
    assert line == 20002 and "not UTF-8 text: byte 0xe9 at character 4" in problem
    assert_nothing_saved(evalset)


def test_non_utf8_header_is_refused_at_upload(evalset):
    with pytest.raises(ValidationError) as caught:
        import_create(
            evalset=evalset, user=None, upload=upload("u16.csv", "question\n".encode("utf-16"))
        )
    assert "The file is not UTF-8 text" in str(caught.value)
    assert evalset.imports.count() == 0


def test_ragged_rows_name_the_line(evalset):
    body = "question,answer\na,b\nonly one\nc,d,e\n"
    job = imported(evalset, "ragged.csv", body)
    assert problems(job) == [
        (3, "", "this row has 1 cells but the header has 2; check commas and quoting"),
        (4, "", "this row has 3 cells but the header has 2; check commas and quoting"),
    ]
    assert_nothing_saved(evalset)


def test_jsonl_bad_line_and_non_object(evalset):
    body = '{"question": "ok"}\n{"question": "missing brace"\n\n[1, 2]\n'
    job = imported(evalset, "bad.jsonl", body)
    assert job.status == "failed"
    found = problems(job)
    assert found[0][0] == 2 and found[0][2].startswith("not valid JSON")
    assert found[1] == (4, "", "each line must be a JSON object, got a list")
    assert_nothing_saved(evalset)


def test_unknown_csv_column_is_refused_before_import(evalset):
    with pytest.raises(ValidationError) as caught:
        import_create(
            evalset=evalset, user=None, upload=upload("x.csv", "question,colour\nq,red\n")
        )
    message = caught.value.message_dict["mapping"][0]
    assert "line 1, column 'colour': unknown column 'colour'" in message
    assert evalset.imports.count() == 0 and EvalSetItem.objects.count() == 0


def test_unknown_jsonl_key_on_a_later_line(evalset):
    records = [{"question": f"q{i}"} for i in range(300)] + [{"question": "x", "colour": "red"}]
    job = imported(evalset, "late.jsonl", jsonl(records))
    assert job.status == "failed"
    assert problems(job) == [
        (301, "colour", "unknown column 'colour': map it to a column of the set, or ignore it")
    ]
    assert_nothing_saved(evalset)


def test_wrong_content_types(evalset):
    records = [
        {"question": {"content_type": "Image", "image": {"url": "https://i.test/a.png"}}},
        {"question": "fine", "image": "a cat, not a link"},
        {
            "question": "fine",
            "image": {"content_type": "Audio", "audio": {"url": "https://a.test/x.mp3"}},
        },
    ]
    job = imported(evalset, "types.jsonl", jsonl(records))
    found = problems(job)
    assert found[0] == (1, "question", "wrong content type Image: this column holds Text")
    assert found[1][:2] == (2, "image") and "expected an image URL" in found[1][2]
    assert found[2] == (3, "image", "wrong content type Audio: this column holds Image")
    assert_nothing_saved(evalset)


def test_oversized_cell(evalset):
    body = "question,answer\n" + "q," + "x" * 70_000 + "\n"
    job = imported(evalset, "big.csv", body)
    assert problems(job) == [(2, "answer", "text is 70,000 bytes; the limit is 65,536 bytes")]
    assert_nothing_saved(evalset)


def test_oversized_file_is_refused_at_upload(evalset, settings):
    settings.ASSAY_EVALSET_MAX_IMPORT_BYTES = 100
    with pytest.raises(ValidationError) as caught:
        import_create(evalset=evalset, user=None, upload=upload("x.csv", "question\n" + "q\n" * 60))
    assert "imports are at most 100 bytes" in caught.value.message_dict["file"][0]
    assert evalset.imports.count() == 0


def test_media_path_that_is_not_an_uploaded_image(evalset, workspace, stored_image):
    audio_like = stored_image["image"]["uri"].replace("/image/", "/audio/")
    other_workspace = "evalsets/" + "0" * 32 + "/image/x/a.png"
    records = [
        {"question": "a", "image": audio_like},
        {"question": "b", "image": other_workspace},
        {"question": "c", "image": stored_image["image"]["uri"] + ".missing"},
    ]
    job = imported(evalset, "media.jsonl", jsonl(records))
    found = problems(job)
    assert [f[:2] for f in found] == [(1, "image"), (2, "image"), (3, "image")]
    assert "not an uploaded image file of this workspace" in found[0][2]
    assert "not an uploaded image file of this workspace" in found[1][2]
    assert "no uploaded file" in found[2][2]
    assert_nothing_saved(evalset)


def test_skip_bad_rows_imports_the_good_ones_and_reports_the_rest(evalset):
    body = "question,answer\ngood,1\n,missing question\nalso good,2\n"
    job = imported(evalset, "mixed.csv", body, skip_bad_rows=True)
    assert job.status == "completed"
    assert (job.rows_imported, job.rows_failed, job.error_count) == (2, 1, 1)
    assert "1 bad row was skipped" in job.message
    assert [r.data["question"]["text"] for r in draft(evalset)] == ["good", "also good"]
    report = errors_csv(job.errors).splitlines()
    assert report == [
        "line,column,problem",
        "3,question,this column is required and the cell is empty",
    ]


def test_replace_mode_swaps_the_draft_and_append_adds(evalset):
    imported(evalset, "one.csv", "question\nold\n")
    imported(evalset, "two.csv", "question\nadded\n")
    assert [r.data["question"]["text"] for r in draft(evalset)] == ["old", "added"]
    imported(evalset, "three.csv", "question\nnew\n", replace=True)
    assert [r.data["question"]["text"] for r in draft(evalset)] == ["new"]


def test_staged_rows_are_invisible_until_the_job_completes(evalset):
    """The swap is the only moment imported rows appear: stop a real run just before it."""
    from evalsets.importing import import_claim
    from evalsets.importing.readers import read_csv
    from evalsets.importing.run import _Run
    from evalsets.importing.writer import ItemWriter
    from evalsets.items.rows import RowBuilder

    job = import_create(evalset=evalset, user=None, upload=upload("a.csv", "question\nx\ny\n"))
    run = _Run(import_claim(import_id=job.pk), None)
    run.writer = ItemWriter(evalset_id=evalset.pk, import_id=job.pk)
    _fields, records, run.lines = read_csv(upload("a.csv", "question\nx\ny\n"))
    run.scan(records, RowBuilder(evalset.columns, {"question": "question"}, None), 0)
    assert EvalSetItem.objects.count() == 2 and draft(evalset) == []
    run.complete()
    assert len(draft(evalset)) == 2


def test_required_column_must_be_mapped_and_targets_must_exist(evalset):
    job = import_create(
        evalset=evalset, user=None, upload=upload("a.csv", "answer,q\nx,y\n"), start=False
    )
    with pytest.raises(ValidationError) as caught:
        import_configure(job=job, mapping={"answer": "answer", "q": "nope"})
    messages = caught.value.message_dict["mapping"]
    assert "field 'q' maps to 'nope', which is not a column of the set" in messages
    assert "column 'question' is required but no field maps to it" in messages
    import_configure(job=job, mapping={"answer": "answer", "q": "question"})
    assert run_now(job).status == "completed"
    assert draft(evalset)[0].data["question"]["text"] == "y"


def test_duplicate_header_and_empty_file(evalset):
    for body, problem in [("q,q\n1,2\n", "column 'q' appears twice"), ("\n\n", "file is empty")]:
        with pytest.raises(ValidationError) as caught:
            import_create(evalset=evalset, user=None, upload=upload("x.csv", body))
        assert problem in str(caught.value)


def test_a_job_whose_worker_died_is_claimed_again_without_duplicates(evalset):
    from datetime import timedelta

    from django.utils import timezone

    from evalsets.importing import import_claim
    from evalsets.models import EvalSetImport

    job = import_create(evalset=evalset, user=None, upload=upload("a.csv", "question\nx\ny\n"))
    assert import_claim(import_id=job.pk) is not None
    assert import_claim(import_id=job.pk) is None  # running: a second delivery backs off
    # the first worker wrote a row, then died; an hour later the task is delivered again
    EvalSetItem.objects.create(evalset=evalset, import_job=job, item_id=job.public_id, data={})
    EvalSetImport.objects.filter(pk=job.pk).update(started_at=timezone.now() - timedelta(hours=1))
    from evalsets.importing import import_run

    done = import_run(job=import_claim(import_id=job.pk))
    assert done.status == "completed"
    assert [r.data["question"]["text"] for r in draft(evalset)] == ["x", "y"]


def test_a_header_of_1000_fields_maps_and_imports(evalset):
    fields = ["question"] + [f"extra_{i}" for i in range(999)]
    body = ",".join(fields) + "\n" + ",".join(["q"] + ["x"] * 999) + "\n"
    mapping = {"question": "question", **{f: "" for f in fields[1:]}}
    job = imported(evalset, "wide.csv", body, mapping=mapping)
    assert job.status == "completed", job.message
    assert draft(evalset)[0].data == {"question": {"content_type": "Text", "text": "q"}}


def test_headers_over_the_limits_are_refused_at_upload(evalset):
    too_many = ",".join(f"f{i}" for i in range(1001)) + "\n"
    huge_line = "question," + "y" * 5_000_000 + "\n"
    wide_jsonl = json.dumps({f"k{i}": "v" for i in range(1001)}) + "\n"
    cases = [
        ("many.csv", too_many, "line 1: the file has 1,001 fields; a header has at most 1,000"),
        ("long.csv", huge_line, "line 1: the header line is longer than 65,536 bytes"),
        ("wide.jsonl", wide_jsonl, "line 1: the file has 1,001 fields"),
    ]
    for name, body, message in cases:
        with pytest.raises(ValidationError) as caught:
            import_create(evalset=evalset, user=None, upload=upload(name, body))
        assert message in str(caught.value), name
    assert evalset.imports.count() == 0


def test_an_import_into_a_set_deleted_before_it_runs_fails_and_writes_nothing(evalset):
    from evalsets import services

    job = import_create(evalset=evalset, user=None, upload=upload("a.csv", "question\nx\n"))
    services.evalset_delete(evalset=evalset)
    done = run_now(job)
    assert done.status == "failed" and "deleted during the import" in done.message
    assert EvalSetItem.objects.count() == 0


def test_an_import_stops_when_its_set_is_deleted_between_batches(evalset):
    from evalsets import services
    from evalsets.importing import import_claim, import_run

    body = "question\n" + "".join(f"q{i}\n" for i in range(12_000))  # three write batches
    job = import_create(evalset=evalset, user=None, upload=upload("big.csv", body))
    batches = []

    def delete_after_the_first_batch(progress):
        batches.append(progress.rows_done)
        if len(batches) == 1:
            services.evalset_delete(evalset=evalset)

    done = import_run(job=import_claim(import_id=job.pk), on_progress=delete_after_the_first_batch)
    assert done.status == "failed" and "deleted during the import" in done.message
    assert len(batches) == 1  # the second batch was refused
    assert EvalSetItem.objects.count() == 0
