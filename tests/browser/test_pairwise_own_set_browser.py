"""Headless Chromium: a pairwise run on one's own set, whose question column is `question`
(issue 28). The new-run form maps the judge's `input` (prefilled from the experiments' own
mappings), never offers the baseline in list B, and launches; in English and 简体中文, at
desktop and phone width, never wider than the screen. Screenshots are kept."""

import re

import pytest

from assay.models import UserPreference
from experiments.models import PairwiseRun
from experiments.pairwise import work as pairwise_work
from tests.support.fixtures import screenshot, sign_in
from tests.support.own_set import app_run, own_set
from tests.support.pairwise import FIRST, SECOND

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
WIDTHS = (1440, 390)
LAUNCHED = {"en": "FAQ · prompt vs HTTP, pairwise", "zh-hans": "FAQ · 提示词对比 HTTP（成对）"}


def _fits(page) -> bool:
    return page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")


def _visible_b(page) -> list[str]:
    return page.locator("#others-field label[data-other]:visible").evaluate_all(
        "labels => labels.map(l => l.dataset.other)"
    )


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_launch_a_pairwise_run_on_a_question_column(
    live_server, page, workspace, user, pw_scorer, pw_judge, language
):
    version = own_set(workspace, user, "question", n=6)
    prompt = app_run(workspace, user, version, pw_scorer, "prompt", "question", SECOND)
    http = app_run(workspace, user, version, pw_scorer, "HTTP app", "question", FIRST)
    UserPreference.objects.update_or_create(user=user, defaults={"language": language})
    sign_in(page, live_server)
    new = f"{live_server.url}/w/acme/pairwise/new/?evalset={version.evalset.public_id}"
    for width in WIDTHS:
        page.set_viewport_size({"width": width, "height": 900})
        page.goto(new)
        assert page.locator("html").get_attribute("lang") == language
        assert page.locator("#map__input").input_value() == "column:question"
        baseline = page.locator("#id_baseline").input_value()
        assert baseline not in _visible_b(page) and len(_visible_b(page)) == 1
        other = str(prompt.public_id) if baseline == str(http.public_id) else str(http.public_id)
        page.select_option("#id_baseline", other)  # the list B follows the baseline
        assert _visible_b(page) == [baseline]
        page.select_option("#id_baseline", str(prompt.public_id))
        assert _fits(page), f"the form is wider than {width} px"
        screenshot(page, f"pairwise-own-set-form-{language}-{width}")
    page.fill("#id_name", LAUNCHED[language])
    page.check(f"#others-field input[value='{http.public_id}']")
    page.click("#launch-pairwise")
    page.wait_for_url(re.compile(r".*/pairwise/[0-9a-f-]{36}/$"))
    run = PairwiseRun.objects.get(name=LAUNCHED[language])
    assert run.mapping["input"] == "column:question"
    assert pairwise_work.pairwise_run_inline(run_id=run.pk).status == "completed"
    for width in WIDTHS:
        page.set_viewport_size({"width": width, "height": 900})
        page.goto(f"{live_server.url}/w/acme/pairwise/{run.public_id}/")
        page.wait_for_selector(".pair-card")
        assert _fits(page), f"the run page is wider than {width} px"
        screenshot(page, f"pairwise-own-set-run-{language}-{width}")
    assert page.console_errors == []


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_a_biased_judge_is_badged_and_p_best_explained(
    live_server, page, workspace, user, pw_version, pw_scorer, pw_judge, language
):
    from experiments.pairwise.services import pairwise_run_create
    from tests.support.pairwise import pushed_run, steered

    apps = [  # every output asks for the first slot: the judge always picks it
        pushed_run(
            workspace=workspace,
            user=user,
            version=pw_version,
            evaluator_version=pw_scorer,
            name=f"app {label}",
            answer=steered(label, lambda i: True),
        )
        for label in ("P", "Q", "R")
    ]
    run = pairwise_run_create(
        workspace=workspace,
        user=user,
        name="biased",
        experiments=apps,
        evaluator_version=pw_judge,
        chunk_size=10,
    )
    pairwise_work.pairwise_run_inline(run_id=run.pk)
    UserPreference.objects.update_or_create(user=user, defaults={"language": language})
    sign_in(page, live_server)
    for width in WIDTHS:
        page.set_viewport_size({"width": width, "height": 900})
        page.goto(f"{live_server.url}/w/acme/pairwise/{run.public_id}/")
        assert page.locator("#judge-bias-badge").is_visible()
        assert page.locator("#strong-bias").is_visible()
        assert page.locator("#p-best-note").is_visible()
        assert _fits(page), f"the run page is wider than {width} px"
        screenshot(page, f"pairwise-biased-judge-{language}-{width}")
