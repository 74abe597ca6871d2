"""A pairwise run's validation messages follow the request's language: a client sending
`Accept-Language: zh-hans` reads them in Chinese (the field names stay as they are), on
create, on the run list's status filter and on the pairs' filters."""

import sys
from pathlib import Path

import pytest

from experiments.models import PairwiseRun

pytestmark = pytest.mark.django_db
R = "/api/v1/pairwise-runs/"
ZH = {"HTTP_ACCEPT_LANGUAGE": "zh-hans"}


@pytest.fixture(scope="module", autouse=True)
def catalogues():
    """The .mo files built from the .po files (as set-up does), so the catalogue edited since
    is what these tests read."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))
    import i18n_update

    i18n_update.compile_all()


def details(response) -> dict:
    assert response.status_code == 400, response.content[:400]
    return response.json()["error"]["details"]


def test_create_refusals_are_in_chinese(api):
    body = {"name": " ", "experiments": [], "evaluator_version": "nobody@1.0.0"}
    refused = details(api.post(R, body, format="json", **ZH))
    assert refused == {
        "name": ["成对运行需要名称。"],
        "experiments": ["请至少选择两个实验进行相互评判。"],
        "evaluator_version": ["此工作空间中没有这个评估器版本。"],
    }
    english = details(api.post(R, body, format="json"))
    assert english["name"] == ["A pairwise run needs a name."]
    assert PairwiseRun.objects.count() == 0


def test_the_list_status_filter_refuses_in_chinese(api):
    assert details(api.get(R, {"status": "bogus"}, **ZH)) == {"status": ["未知状态 'bogus'。"]}


def test_the_pairs_filters_refuse_in_chinese(api, workspace, user, pw_apps, pw_judge):
    from experiments.pairwise.services import pairwise_run_create

    run = pairwise_run_create(
        workspace=workspace,
        user=user,
        name="filters",
        experiments=pw_apps("X", "Y"),
        evaluator_version=pw_judge,
        chunk_size=10,
    )
    query = {"inconsistent": "maybe", "outcome": "C", "status": "bogus", "pair": "x:y"}
    refused = details(api.get(f"{R}{run.public_id}/results/", query, **ZH))
    assert refused == {
        "inconsistent": ["请使用 true 或 false。"],
        "outcome": ["未知的评判结果 'C'；请使用 A, B, tie, unknown 之一。"],
        "status": ["未知状态 'bogus'；请使用 success, error, timeout, skipped 之一。"],
        "pair": ["请以 <A 的 ID>:<B 的 ID> 的形式给出此运行中的两个实验。"],
    }
