"""List pages and list endpoints make as many queries for eight objects as for two: no N+1
reads in views or serializers."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from tests.support.factories import make_code_version, make_evalset_version, qa_rows, run_inline

pytestmark = pytest.mark.django_db

PAGES = ["evaluators:list", "evalsets:list", "experiments:list", "experiments:list_rows"]
ENDPOINTS = [
    "/api/v1/evaluators/",
    "/api/v1/evalsets/",
    "/api/v1/experiments/",
    "/api/v1/providers/",
    "/api/v1/evaluator-templates/",
    "/api/v1/tokens/",
    "/api/v1/members/",
    "/api/v1/workspaces/",
]


def build(workspace, user, start: int, stop: int):
    """Evalsets, evaluators and finished experiments, one of each per number."""
    from assay import services as platform

    for i in range(start, stop):
        version = make_evalset_version(
            workspace=workspace, user=user, rows=qa_rows(3), name=f"s{i}"
        )
        ev = make_code_version(workspace=workspace, user=user, name=f"e{i}")
        run_inline(
            workspace=workspace, user=user, version=version, evaluator_version=ev, name=f"r{i}"
        )
        platform.provider_create(
            workspace=workspace, name=f"p{i}", base_url="https://p.test/v1", default_model="m"
        )


def queries(client, url: str) -> int:
    with CaptureQueriesContext(connection) as captured:
        assert client.get(url).status_code == 200, url
    return len(captured.captured_queries)


@pytest.mark.parametrize("name", PAGES)
def test_list_pages_do_not_grow_with_their_rows(
    web, workspace, user, name, django_assert_max_num_queries
):
    url = reverse(name, kwargs={"ws": "acme"})
    build(workspace, user, 0, 2)
    few = queries(web, url)
    build(workspace, user, 2, 8)
    with django_assert_max_num_queries(few):
        web.get(url)


@pytest.mark.parametrize("url", ENDPOINTS)
def test_list_endpoints_do_not_grow_with_their_rows(
    api, workspace, user, url, django_assert_max_num_queries
):
    build(workspace, user, 0, 2)
    few = queries(api, url)
    build(workspace, user, 2, 8)
    with django_assert_max_num_queries(few):
        api.get(url)


def test_an_experiments_results_and_bindings_do_not_grow(
    api, workspace, user, django_assert_max_num_queries
):
    version = make_evalset_version(workspace=workspace, user=user, rows=qa_rows(40))
    bindings = [
        {"evaluator_version": make_code_version(workspace=workspace, user=user, name=n)}
        for n in ("a", "b", "c")
    ]
    from experiments import scoring as engine
    from experiments import services

    experiment = services.experiment_create(
        workspace=workspace, user=user, name="x", evalset_version=version, bindings=bindings[:1]
    )
    services.experiment_launch(experiment=experiment)
    engine.experiment_run_inline(experiment_id=experiment.pk)
    one = {
        path: queries(api, f"/api/v1/experiments/{experiment.public_id}/{path}")
        for path in ("", "results/?page_size=5")
    }
    many = services.experiment_create(
        workspace=workspace, user=user, name="y", evalset_version=version, bindings=bindings
    )
    services.experiment_launch(experiment=many)
    engine.experiment_run_inline(experiment_id=many.pk)
    for path, count in one.items():
        with django_assert_max_num_queries(count):
            api.get(f"/api/v1/experiments/{many.public_id}/{path.replace('5', '50')}")


def test_spans_and_a_trace_with_online_outcomes_do_not_grow(
    api, workspace, user, django_assert_max_num_queries
):
    """The spans list and a trace's detail read every span's online outcomes in one query,
    however many spans, traces and rules there are."""
    from django.utils import timezone

    from online.kind import online_run_inline
    from online.services import online_sweep
    from tests.online.support import code_rule, llm_span, store

    def traffic(trace_id: str, count: int, hour: int):
        at = timezone.now() + timezone.timedelta(hours=hour)  # after the last sweep's cursor
        store(
            [
                llm_span(workspace, output="Paris", expected="Paris", trace_id=trace_id, at=at)
                for _ in range(count)
            ]
        )
        for rule in rules:
            run = online_sweep(rule_id=rule.pk, now=at + timezone.timedelta(minutes=1))
            online_run_inline(run_id=run.pk)

    rules = [code_rule(workspace, user, name=n) for n in ("a", "b")]
    traffic("a" * 32, 2, 0)
    few = {url: queries(api, url) for url in ("/api/v1/spans/", f"/api/v1/traces/{'a' * 32}/")}
    traffic("a" * 32, 6, 1)
    traffic("b" * 32, 8, 2)
    assert len(api.get("/api/v1/spans/").json()["results"][0]["online_outcomes"]) == 2
    for url, count in few.items():
        with django_assert_max_num_queries(count):
            api.get(url)
