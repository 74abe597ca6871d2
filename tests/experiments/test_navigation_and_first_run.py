"""Compare, Pairwise and garak import in the main navigation, and the first-run card
(evaluation set → evaluator → experiment) while a workspace has no experiment (issue 28)."""

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from assay.models import Membership
from tests.support.factories import make_code_version, make_evalset_version, qa_rows, run_inline

pytestmark = pytest.mark.django_db


def nav_of(page: str) -> str:
    return page.split('<nav class="mainnav"')[1].split("</nav>")[0]


def test_compare_pairwise_and_garak_import_are_in_the_navigation(web):
    page = web.get(reverse("evaluators:list", kwargs={"ws": "acme"})).content.decode()
    nav = nav_of(page)
    assert f'href="{reverse("compare:page", kwargs={"ws": "acme"})}"' in nav
    assert f'href="{reverse("pairwise:list", kwargs={"ws": "acme"})}"' in nav
    assert f'href="{reverse("experiments:import_garak", kwargs={"ws": "acme"})}"' in nav


def test_the_current_page_is_marked_once(web):
    page = web.get(reverse("experiments:import_garak", kwargs={"ws": "acme"})).content.decode()
    nav = nav_of(page)
    assert nav.count('aria-current="page"') == 1
    assert 'data-nav="import-garak" aria-current="page"' in nav
    pairwise = nav_of(web.get(reverse("pairwise:list", kwargs={"ws": "acme"})).content.decode())
    assert 'data-nav="pairwise" aria-current="page"' in pairwise


def test_a_viewer_is_not_offered_the_garak_import(client, workspace):
    viewer = get_user_model().objects.create_user("vera", password="pw")
    Membership.objects.create(workspace=workspace, user=viewer, role="viewer")
    client.force_login(viewer)
    nav = nav_of(client.get(reverse("evaluators:list", kwargs={"ws": "acme"})).content.decode())
    assert 'data-nav="pairwise"' in nav and 'data-nav="import-garak"' not in nav


def experiments_list(web) -> str:
    return web.get(reverse("experiments:list", kwargs={"ws": "acme"})).content.decode()


def test_the_first_run_card_walks_set_evaluator_experiment(web, workspace, user):
    page = experiments_list(web)
    card = page.split('id="first-run"')[1].split("</section>")[0]
    steps = [card.index(f'data-step="{s}"') for s in ("evalset", "evaluator", "experiment")]
    assert steps == sorted(steps)
    for name in ("evalsets:list", "evaluators:list", "experiments:new"):
        assert f'href="{reverse(name, kwargs={"ws": "acme"})}"' in card
    assert 'class="done"' not in card
    version = make_evalset_version(workspace=workspace, user=user, rows=qa_rows(3))
    card = experiments_list(web).split('id="first-run"')[1].split("</section>")[0]
    assert '<li class="done" data-step="evalset">' in card
    assert '<li class="" data-step="evaluator">' in card
    contains = make_code_version(workspace=workspace, user=user)
    card = experiments_list(web).split('id="first-run"')[1].split("</section>")[0]
    assert '<li class="done" data-step="evaluator">' in card
    run_inline(workspace=workspace, user=user, version=version, evaluator_version=contains)
    assert 'id="first-run"' not in experiments_list(web)


def test_the_landing_page_asks_for_the_card_which_goes_once_an_experiment_ran(web, workspace, user):
    first_run = reverse("experiments:first_run", kwargs={"ws": "acme"})
    landing = web.get(reverse("evaluators:list", kwargs={"ws": "acme"})).content.decode()
    assert f'hx-get="{first_run}" hx-trigger="load"' in landing
    card = web.get(first_run).content.decode()
    assert 'id="first-run"' in card and 'data-step="experiment"' in card
    version = make_evalset_version(workspace=workspace, user=user, rows=qa_rows(3))
    contains = make_code_version(workspace=workspace, user=user)
    run_inline(workspace=workspace, user=user, version=version, evaluator_version=contains)
    gone = web.get(first_run)
    assert gone.status_code == 200 and gone.content == b""


def test_an_outsider_gets_no_card_of_acme(client, outsider):
    client.force_login(outsider)
    assert client.get(reverse("experiments:first_run", kwargs={"ws": "acme"})).status_code == 404
