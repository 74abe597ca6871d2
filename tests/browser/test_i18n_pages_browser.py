"""Headless Chromium in Chinese with the demo loaded (issue 28): the pages the second UX walk
read in 简体中文, at desktop and phone width, show none of the English it found and none of the
glossary's rejected words, in the page as the browser has it after its scripts ran (text the
JavaScript writes included). Screenshots kept: zh-<page>-<width>.png."""

import pytest

from assay.demo import DEMO_PASSWORD, DEMO_USERNAME, DEMO_WORKSPACE, demo_load
from tests.support.fixtures import screenshot
from tests.test_i18n_pages import english_found

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def zh_pages():
    from evalsets.importing import import_create
    from evalsets.models import EvalSet
    from experiments.demo import BASELINE, STRICTER
    from experiments.demo_simulated import SIMULATED_RUN
    from experiments.models import Experiment, PairwiseRun
    from tests.evalsets.conftest import upload

    qa = EvalSet.objects.get(name="Demo QA")
    job = import_create(
        evalset=qa, user=None, upload=upload("more.csv", "input,tag\nq,x\n"), start=False
    )
    baseline = Experiment.objects.get(name=BASELINE)
    stricter = Experiment.objects.get(name=STRICTER)
    simulated = Experiment.objects.get(name=SIMULATED_RUN)
    evaluator = baseline.bindings.first().evaluator_version.evaluator
    return [
        ("compare", f"/compare/?baseline={baseline.public_id}&candidates={stricter.public_id}"),
        ("experiment", f"/experiments/{baseline.public_id}/"),
        ("simulated", f"/experiments/{simulated.public_id}/"),
        ("import-map", f"/evalsets/{qa.public_id}/import/{job.public_id}/"),
        ("pairwise", f"/pairwise/{PairwiseRun.objects.get().public_id}/"),
        ("evaluator", f"/evaluators/{evaluator.public_id}/"),
        ("providers", "/settings/providers/"),
    ]


def test_the_walks_pages_in_chinese_have_none_of_its_english(live_server, page):
    demo_load()
    pages = zh_pages()
    page.set_viewport_size({"width": 1440, "height": 900})
    page.goto(live_server.url + "/accounts/login/")
    page.fill("#id_username", DEMO_USERNAME)
    page.fill("#id_password", DEMO_PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_url("**/w/*/evaluators/")
    page.select_option("#lang-switch", "zh-hans")
    page.wait_for_selector("nav.mainnav >> text=评估器")
    # each language is named in itself in the switch
    assert page.locator("#lang-switch option").all_inner_texts() == ["English", "简体中文"]
    base = f"{live_server.url}/w/{DEMO_WORKSPACE}"
    problems = {}
    for width in (1440, 390):
        page.set_viewport_size({"width": width, "height": 900})
        for name, path in pages:
            page.goto(base + path)
            page.wait_for_load_state("load")
            assert page.locator("html").get_attribute("lang") == "zh-hans", path
            found = english_found(page.content())
            if found:
                problems[f"{name} at {width}"] = found
            screenshot(page, f"zh-{name}-{width}")
    assert not problems, problems
    assert page.console_errors == []
