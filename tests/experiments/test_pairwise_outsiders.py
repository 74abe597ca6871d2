"""An outsider reaches nothing of Acme's pairwise runs: not through Acme's URLs, not through
their own workspace's URLs with Acme's ids, not with their own token, and not with Acme's ids
inside the bodies they send. One case per URL."""

import pytest
from django.urls import reverse

from assay.models import Workspace
from experiments.models import PairwiseResult, PairwiseRun
from tests.support.pairwise import make_pairwise_version, pushed_run, qa_version, steered

pytestmark = pytest.mark.django_db

PAGES = [
    ("pairwise:detail", {}),
    ("pairwise:progress", {}),
    ("pairwise:rows", {}),
    ("pairwise:row", {"result_id": "pair"}),
    ("pairwise:cancel", {}),
    ("pairwise:retry", {}),
    ("pairwise:export", {"fmt": "csv"}),
]
R = "/api/v1/pairwise-runs/"
API = [
    ("get", R + "{run}/"),
    ("post", R + "{run}/cancel/"),
    ("post", R + "{run}/retry-failed/"),
    ("get", R + "{run}/results/"),
    ("get", R + "{run}/results/{pair}/"),
    ("get", R + "{run}/summary/"),
    ("get", R + "{run}/export/?format=csv"),
]


@pytest.fixture
def acme(pw_finished):
    run = pw_finished("X", "Y", name="Acme's secret comparison")
    return {"run": str(run.public_id), "pair": PairwiseResult.objects.first().pk, "obj": run}


@pytest.mark.parametrize("ws", ["acme", "other"], ids=["their-url", "own-workspace-url"])
@pytest.mark.parametrize("method", ["get", "post"])
@pytest.mark.parametrize(("name", "extra"), PAGES, ids=[p[0] for p in PAGES])
def test_pages_are_404(client, outsider, acme, ws, method, name, extra):
    client.force_login(outsider)
    kwargs = {"ws": ws, "id": acme["run"], **{k: acme.get(v, v) for k, v in extra.items()}}
    url = reverse(name, kwargs=kwargs)
    response = getattr(client, method)(url)
    assert response.status_code in (404, 405), (url, response.status_code)
    if response.status_code == 405:  # this view takes only the other method, which must 404
        other = client.get if method == "post" else client.post
        assert other(url).status_code == 404, url


@pytest.mark.parametrize(("method", "template"), API, ids=[f"{m} {t}" for m, t in API])
def test_api_with_the_outsiders_own_token_is_404(outsider_api, acme, method, template):
    url = template.format(**acme)
    response = getattr(outsider_api, method)(url, format="json")
    assert response.status_code == 404, (url, response.status_code, response.content[:200])
    assert response.json()["error"]["code"] == "not_found"


def test_the_outsiders_lists_do_not_show_acmes_run(client, outsider, outsider_api, acme):
    client.force_login(outsider)
    page = client.get(reverse("pairwise:list", kwargs={"ws": "other"})).content.decode()
    assert acme["obj"].name not in page and acme["run"] not in page
    assert outsider_api.get(R).json()["count"] == 0
    assert client.get(reverse("pairwise:list", kwargs={"ws": "acme"})).status_code == 404


def test_acmes_ids_in_the_outsiders_bodies_are_refused(outsider, outsider_api, acme, llm_server):
    from assay import services as platform

    own = Workspace.objects.get(slug="other")
    run = acme["obj"]
    acme_experiments = [str(e.experiment.public_id) for e in run.entries.all()]
    body = {
        "name": "theirs",
        "experiments": acme_experiments,
        "evaluator_version": str(run.evaluator_version.public_id),
    }
    refused = outsider_api.post(R, body, format="json")
    assert refused.status_code == 400
    assert refused.json()["error"]["details"] == {
        "experiments[0]": ["No such experiment in this workspace."],
        "experiments[1]": ["No such experiment in this workspace."],
        "evaluator_version": ["No such evaluator version in this workspace."],
    }
    # their own experiments with Acme's judge, and their own judge with Acme's experiment
    host = platform.provider_create(
        workspace=own, name="Theirs", base_url=llm_server.base_url, default_model="m"
    )
    theirs = make_pairwise_version(workspace=own, user=outsider, provider=host)
    version = qa_version(workspace=own, user=outsider, n=2)
    scorer = _scorer(own, outsider, host)
    mine = [
        pushed_run(
            workspace=own,
            user=outsider,
            version=version,
            evaluator_version=scorer,
            name=f"mine {label}",
            answer=steered(label, lambda i: True),
        )
        for label in "AB"
    ]
    mixed = {
        "name": "mixed",
        "experiments": [str(mine[0].public_id), acme_experiments[1]],
        "evaluator_version": str(run.evaluator_version.public_id),
    }
    details = outsider_api.post(R, mixed, format="json").json()["error"]["details"]
    assert details == {
        "experiments[1]": ["No such experiment in this workspace."],
        "evaluator_version": ["No such evaluator version in this workspace."],
    }
    ok = {
        **mixed,
        "experiments": [str(e.public_id) for e in mine],
        "evaluator_version": str(theirs.public_id),
    }
    assert outsider_api.post(R, ok, format="json").status_code == 202
    assert PairwiseRun.objects.filter(workspace=run.workspace).count() == 1


def _scorer(workspace, user, provider):
    from tests.support.factories import make_llm_version

    return make_llm_version(workspace=workspace, user=user, provider=provider, name="Scorer")
