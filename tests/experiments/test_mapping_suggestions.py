"""Suggested mappings (issue 28): a variable reads the column of its name or of a synonym
(`question` feeds `input`, `answer` feeds `reference_output`, Chinese headers too), the set's
remembered mapping wins over names while it still fits, and the new-experiment form uses both,
defaults to the set committed last and groups evaluators by whether they fit the set."""

import pytest
from django.urls import reverse

from evaluators import services as evaluator_services
from experiments import services
from experiments.mapping import suggest_mapping
from tests.support.factories import make_code_version, make_evalset_version
from tests.support.pairwise import make_pairwise_version

T = "Text"


def var(name: str, content_type: str = T, required: bool = True) -> dict:
    return {"name": name, "content_type": content_type, "required": required}


def col(name: str, content_type: str = T) -> dict:
    return {"name": name, "content_type": content_type, "required": False, "description": ""}


JUDGE = [var("input"), var("actual_output"), var("reference_output", required=False)]


def test_synonyms_map_a_teams_own_headers():
    columns = [col("question"), col("expected"), col("app_answer")]
    assert suggest_mapping(variables=JUDGE, columns=columns) == {
        "input": "column:question",
        "reference_output": "column:expected",
    }
    answers = [col("Question"), col("answer"), col("response")]
    assert suggest_mapping(variables=JUDGE, columns=answers) == {
        "input": "column:Question",
        "actual_output": "column:response",
        "reference_output": "column:answer",
    }


def test_chinese_headers_are_synonyms_too():
    columns = [col("问题"), col("参考答案"), col("回答")]
    assert suggest_mapping(variables=JUDGE, columns=columns) == {
        "input": "column:问题",
        "actual_output": "column:回答",
        "reference_output": "column:参考答案",
    }


def test_the_same_name_beats_a_synonym_and_types_must_match():
    columns = [col("question"), col("input"), col("expected", "Image")]
    mapping = suggest_mapping(variables=JUDGE, columns=columns)
    assert mapping == {"input": "column:input"}  # an Image column never feeds a Text variable


def test_the_target_output_beats_an_output_column_and_its_synonyms():
    columns = [col("question"), col("response")]
    mapping = suggest_mapping(variables=JUDGE, columns=columns, target_outputs=("actual_output",))
    assert mapping == {"input": "column:question", "actual_output": "target:actual_output"}


def test_a_remembered_mapping_wins_while_it_still_fits():
    columns = [col("question"), col("ask"), col("app_answer"), col("expected")]
    remembered = {
        "input": "column:ask",
        "actual_output": "column:app_answer",
        "reference_output": "column:gone",  # no such column any more: names decide
    }
    mapping = suggest_mapping(variables=JUDGE, columns=columns, remembered=remembered)
    assert mapping == {
        "input": "column:ask",
        "actual_output": "column:app_answer",
        "reference_output": "column:expected",
    }


def test_a_remembered_target_source_needs_a_target():
    columns = [col("question"), col("app_answer")]
    remembered = {"actual_output": "target:actual_output"}
    none = suggest_mapping(variables=JUDGE, columns=columns, remembered=remembered)
    assert "actual_output" not in none
    remembered = {"actual_output": "column:app_answer"}
    with_target = suggest_mapping(
        variables=JUDGE, columns=columns, target_outputs=("actual_output",), remembered=remembered
    )
    assert with_target["actual_output"] == "target:actual_output"  # the target's answer first


# ----------------------------------------------------------------------------- remembered


FAQ_COLUMNS = [col("question"), col("expected"), col("app_answer")]


def faq(workspace, user, name="Support FAQ", version="1.0.0"):
    rows = [{"question": f"q{i}", "expected": "Paris", "app_answer": "Paris"} for i in range(3)]
    return make_evalset_version(
        workspace=workspace, user=user, rows=rows, name=name, columns=FAQ_COLUMNS, version=version
    )


def scored(workspace, user, version, evaluator_version, mapping, name="mapped by hand"):
    return services.experiment_create(
        workspace=workspace,
        user=user,
        name=name,
        evalset_version=version,
        bindings=[{"evaluator_version": evaluator_version, "mapping": mapping}],
    )


@pytest.mark.django_db
def test_the_set_remembers_the_newest_mapping_of_each_variable(workspace, user):
    from experiments.selectors import mapping_remembered

    version = faq(workspace, user)
    contains = make_code_version(workspace=workspace, user=user)
    older = {"actual_output": "column:expected", "reference_output": "column:expected"}
    scored(workspace, user, version, contains, older, name="older")
    newer = {"actual_output": "column:app_answer", "reference_output": "column:expected"}
    scored(workspace, user, version, contains, newer, name="newer")
    other = faq(workspace, user, name="Another set")
    scored(workspace, user, other, contains, older, name="elsewhere")
    assert mapping_remembered(workspace=workspace, evalset=version.evalset) == newer
    assert mapping_remembered(workspace=workspace, evalset=None) == {}


# ----------------------------------------------------------------------------- the form


def url(name: str) -> str:
    return reverse(f"experiments:{name}", kwargs={"ws": "acme"})


def plan(web, version, *versions, target="none") -> str:
    data = {
        "evalset_version": str(version.public_id),
        "target_kind": target,
        "evaluator_versions": [str(v.public_id) for v in versions],
    }
    return web.post(url("new_plan"), data).content.decode()


@pytest.mark.django_db
def test_the_form_suggests_synonyms_and_then_the_sets_last_mapping(web, workspace, user):
    version = faq(workspace, user)
    contains = make_code_version(workspace=workspace, user=user)
    vid = contains.public_id
    first = plan(web, version, contains)
    assert '<option value="column:expected" selected>' in first  # expected → reference_output
    picked = first[first.index(f'name="map__{vid}__actual_output"') :].split("</select>")[0]
    assert '<option value="" selected>' in picked  # app_answer is no synonym: not guessed
    scored(
        workspace,
        user,
        version,
        contains,
        {"actual_output": "column:app_answer", "reference_output": "column:expected"},
    )
    again = plan(web, version, contains)
    picked = again[again.index(f'name="map__{vid}__actual_output"') :].split("</select>")[0]
    assert '<option value="column:app_answer" selected>' in picked


@pytest.mark.django_db
def test_the_form_defaults_to_the_set_committed_last(web, workspace, user):
    faq(workspace, user, name="Alpha QA")
    latest = faq(workspace, user, name="Zeta FAQ")
    page = web.get(url("new")).content.decode()
    assert f'<option value="{latest.public_id}" selected>' in page


@pytest.mark.django_db
def test_a_set_still_copying_its_rows_is_not_the_default(web, workspace, user, settings):
    from evalsets.models import VersionStatus

    settings.ASSAY_COMMIT_INLINE_ROWS = 1  # three rows are copied in the background
    ready = faq(workspace, user, name="Ready FAQ")
    rows = [{"question": f"q{i}"} for i in range(3)]
    copying = make_evalset_version(
        workspace=workspace, user=user, rows=rows, name="Copying", columns=FAQ_COLUMNS, inline=False
    )
    assert copying.status == VersionStatus.COMMITTING
    page = web.get(url("new")).content.decode()
    assert f'<option value="{ready.public_id}" selected>' in page


@pytest.mark.django_db
def test_the_picker_groups_evaluators_by_whether_they_fit(web, workspace, user, pw_provider):
    version = faq(workspace, user)
    contains = make_code_version(workspace=workspace, user=user)  # actual_output: no column
    judge = make_pairwise_version(workspace=workspace, user=user, provider=pw_provider)
    garak = make_code_version(workspace=workspace, user=user, name="garak: mitigation")
    evaluator_services.evaluator_update_draft(evaluator=garak.evaluator, user=user, tags=["garak"])
    page = web.get(url("new") + f"?evalset_version={version.public_id}").content.decode()

    def group_of(version_id) -> str:
        at = page.index(f'value="{version_id}"')
        return page[:at].rsplit('data-group="', 1)[1].split('"', 1)[0]

    assert group_of(contains.public_id) == "needs_mapping"
    assert group_of(garak.public_id) == "garak"
    assert f'value="{judge.public_id}"' not in page  # a pairwise judge is listed, not offered
    assert 'data-group="pairwise"' in page and "Pairwise judges" in page
    with_target = web.post(
        url("new_plan"),
        {
            "evalset_version": str(version.public_id),
            "target_kind": "prompt",
            "regroup": "1",
        },
    ).content.decode()
    oob = with_target[with_target.index('id="evaluator-choices"') :]
    assert 'hx-swap-oob="true"' in oob.split(">")[0]
    at = oob.index(f'value="{contains.public_id}"')
    assert oob[:at].rsplit('data-group="', 1)[1].startswith("fits")  # the target answers
