"""Column names for a file's fields: matching by name and synonym, readable ASCII names for
Chinese headers, and the refusal of an import that would store no column (issue 28)."""

import json

import pytest
from django.core.exceptions import ValidationError

from evalsets import selectors, services
from evalsets.importing import evalset_version_from_rows, import_create, proposed_mapping
from evalsets.importing.naming import column_suggestion, matched_targets, suggested_names
from evalsets.models import EvalSet, EvalSetImport, EvalSetItem
from tests.evalsets.conftest import run_now, upload

pytestmark = pytest.mark.django_db

CHINESE = (
    "问题,参考答案,回答,标签,用户满意度\n"
    '法国的首都？,巴黎,巴黎,"地理, 简单",高\n'
    "1+1=?,2,3,数学,低\n"
)


@pytest.fixture
def fresh(workspace, user):
    """A set without columns, as "New evaluation set" makes it."""
    return services.evalset_create(workspace=workspace, user=user, name="客服 FAQ")


def cells(item) -> dict:
    return {name: content["text"] for name, content in item.data.items()}


def test_synonyms_match_fields_to_columns_and_tags():
    fields = ["问题", "Expected", "tag", "回答", "Other"]
    mapping = matched_targets(fields, ["question", "reference_output"])
    assert mapping == {"问题": "question", "Expected": "reference_output", "tag": "@tags"}
    # the same name wins over a synonym; each column is filled once
    both = matched_targets(["answer", "reference_output"], ["reference_output"])
    assert both == {"reference_output": "reference_output"}
    assert matched_targets(["Question", "标签", "item_id"], ["question"]) == {
        "Question": "question",
        "标签": "@tags",
        "item_id": "",
    }


def test_new_column_names_are_valid_readable_and_unique():
    assert column_suggestion("question") == "question"  # a valid name stays as it is
    assert column_suggestion("问题") == "input"
    assert column_suggestion("Expected Output") == "reference_output"
    assert column_suggestion("用户满意度") == "yong_hu_man_yi_du"
    assert column_suggestion("得分（0-10）") == "de_fen_0_10"
    assert column_suggestion("2nd try") == "c_2nd_try"
    assert column_suggestion("Prénom") == "prenom"
    names = suggested_names(["问题", "input", "label", "！！", "质量"], taken=["zhi_liang"])
    assert names == {
        "问题": "input",
        "input": "input_2",
        "label": "label_2",  # reserved for the row field
        "！！": "column_4",
        "质量": "zhi_liang_2",
    }


def test_chinese_headers_import_into_named_columns(fresh):
    job = import_create(evalset=fresh, user=None, upload=upload("faq.csv", CHINESE))
    job = run_now(job)
    assert job.status == "completed", job.message
    fresh.refresh_from_db()
    assert [(c["name"], c["description"]) for c in fresh.columns] == [
        ("input", "问题"),
        ("reference_output", "参考答案"),
        ("actual_output", "回答"),
        ("yong_hu_man_yi_du", "用户满意度"),
    ]
    first, second = selectors.items_list(evalset=fresh)
    assert cells(first) == {
        "input": "法国的首都？",
        "reference_output": "巴黎",
        "actual_output": "巴黎",
        "yong_hu_man_yi_du": "高",
    }
    assert first.tags == ["地理", "简单"] and second.tags == ["数学"]


def test_chinese_headers_fill_the_columns_of_an_existing_set(evalset):
    body = "问题,答案,标签\n法国的首都？,巴黎,地理\n"
    job = run_now(import_create(evalset=evalset, user=None, upload=upload("faq.csv", body)))
    assert job.status == "completed", job.message
    assert job.mapping == {"问题": "question", "答案": "answer", "标签": "@tags"}
    (item,) = selectors.items_list(evalset=evalset)
    assert cells(item) == {"question": "法国的首都？", "answer": "巴黎"} and item.tags == ["地理"]


def test_a_mapping_may_name_new_columns_and_keep_the_header_as_description(fresh):
    job = import_create(
        evalset=fresh,
        user=None,
        upload=upload("faq.csv", "问题,回答\nq,a\n"),
        mapping={"问题": "wen_ti", "回答": ""},
        new_columns=[{"name": "wen_ti", "content_type": "Text", "description": "问题"}],
    )
    assert run_now(job).status == "completed"
    fresh.refresh_from_db()
    assert fresh.columns == [
        {"name": "wen_ti", "content_type": "Text", "description": "问题", "required": False}
    ]


def test_an_import_that_would_store_no_column_is_refused(fresh):
    ignored = {"问题": "", "参考答案": "", "回答": "", "标签": "@tags", "用户满意度": ""}
    with pytest.raises(ValidationError) as refused:
        import_create(evalset=fresh, user=None, upload=upload("faq.csv", CHINESE), mapping=ignored)
    message = " ".join(refused.value.messages)
    assert "no field of the file goes to a column" in message
    assert "every imported row would be empty" in message
    assert not EvalSetImport.objects.exists() and not EvalSetItem.objects.exists()
    fresh.refresh_from_db()
    assert fresh.columns == []


def test_a_file_of_row_fields_only_is_refused_by_default(fresh):
    with pytest.raises(ValidationError) as refused:
        import_create(evalset=fresh, user=None, upload=upload("t.csv", "item_id,tags\n1,a\n"))
    assert "no field of the file goes to a column" in " ".join(refused.value.messages)
    assert not EvalSetItem.objects.exists()


def test_the_wizard_proposes_named_new_columns_for_a_new_set(fresh):
    job = import_create(evalset=fresh, user=None, upload=upload("faq.csv", CHINESE), start=False)
    mapping, new_columns = proposed_mapping(job)
    assert mapping == {
        "问题": "input",
        "参考答案": "reference_output",
        "回答": "actual_output",
        "标签": "@tags",
        "用户满意度": "yong_hu_man_yi_du",
    }
    assert [c["name"] for c in new_columns] == [
        "input",
        "reference_output",
        "actual_output",
        "yong_hu_man_yi_du",
    ]


def test_a_rows_file_with_chinese_or_spaced_headers_makes_named_columns(workspace, user):
    body = "问题,my input\n法国的首都？,x\n"
    version, created = evalset_version_from_rows(
        workspace=workspace, user=user, upload=upload("faq.csv", body)
    )
    assert created
    assert [c["name"] for c in version.columns] == ["input", "my_input"]


def test_the_api_imports_chinese_headers_and_refuses_a_no_column_mapping(api, workspace, user):
    created = api.post("/api/v1/evalsets/", {"name": "中文"}, format="json").json()
    url = f"/api/v1/evalsets/{created['id']}/imports/"
    response = api.post(url, {"file": upload("faq.csv", CHINESE)}, format="multipart")
    assert response.status_code == 202, response.content
    assert response.json()["mapping"]["问题"] == "input"
    run_now(EvalSetImport.objects.get(public_id=response.json()["id"]))
    columns = api.get(f"/api/v1/evalsets/{created['id']}/").json()["columns"]
    assert [c["name"] for c in columns][:3] == ["input", "reference_output", "actual_output"]
    other = api.post("/api/v1/evalsets/", {"name": "空"}, format="json").json()
    refused = api.post(
        f"/api/v1/evalsets/{other['id']}/imports/",
        {"file": upload("faq.csv", "问题\nq\n"), "mapping": json.dumps({"问题": ""})},
        format="multipart",
    )
    assert refused.status_code == 400
    error = refused.json()["error"]
    assert "no field of the file goes to a column" in error["message"]
    assert EvalSetImport.objects.filter(evalset__public_id=other["id"]).count() == 0


def test_the_command_names_chinese_columns_and_refuses_a_file_with_no_column(tmp_path, workspace):
    from django.core.management import call_command
    from django.core.management.base import CommandError

    source = tmp_path / "faq.csv"
    source.write_text(CHINESE, encoding="utf-8")
    call_command("import_evalset", str(source), workspace="acme", evalset="命令行")
    created = EvalSet.objects.get(name="命令行")
    assert created.column_names == [
        "input",
        "reference_output",
        "actual_output",
        "yong_hu_man_yi_du",
    ]
    only_tags = tmp_path / "tags.csv"
    only_tags.write_text("标签\n地理\n", encoding="utf-8")
    with pytest.raises(CommandError, match="no field of the file goes to a column"):
        call_command("import_evalset", str(only_tags), workspace="acme", evalset="空的")
    assert not EvalSetItem.objects.filter(evalset__name="空的").exists()


def test_a_rows_file_that_would_store_no_column_is_refused(workspace, user):
    with pytest.raises(ValidationError) as refused:
        evalset_version_from_rows(
            workspace=workspace, user=user, upload=upload("tags.csv", "tag\nx\n")
        )
    assert "no field of the file goes to a column" in " ".join(refused.value.messages)
    assert not EvalSetItem.objects.exists() and not EvalSet.objects.filter(name="tags").exists()


def test_the_api_adds_columns_for_unmatched_fields_when_asked(api, workspace, user):
    """`add_columns` (what `assay evalset push` sends): fields match the set's columns by
    synonym and each other field becomes a new column named as the map step suggests."""
    created = api.post("/api/v1/evalsets/", {"name": "有列"}, format="json").json()
    url = f"/api/v1/evalsets/{created['id']}/imports/"
    first = api.post(url, {"file": upload("a.csv", "input,reference_output\nq,a\n")})
    run_now(EvalSetImport.objects.get(public_id=first.json()["id"]))
    response = api.post(url, {"file": upload("faq.csv", CHINESE), "add_columns": "true"})
    assert response.status_code == 202, response.content
    assert response.json()["mapping"] == {
        "问题": "input",
        "参考答案": "reference_output",
        "回答": "actual_output",
        "标签": "@tags",
        "用户满意度": "yong_hu_man_yi_du",
    }
    run_now(EvalSetImport.objects.get(public_id=response.json()["id"]))
    columns = api.get(f"/api/v1/evalsets/{created['id']}/").json()["columns"]
    assert [c["name"] for c in columns] == [
        "input",
        "reference_output",
        "actual_output",
        "yong_hu_man_yi_du",
    ]
    with_mapping = api.post(
        url,
        {
            "file": upload("faq.csv", CHINESE),
            "mapping": json.dumps({"问题": "input"}),
            "add_columns": "true",
        },
    )
    assert with_mapping.status_code == 400
    assert "add_columns" in with_mapping.json()["error"]["details"]
