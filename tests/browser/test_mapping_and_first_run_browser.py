"""Headless Chromium (issue 28): the first-run card on an empty workspace's landing page and
experiments list, then the new-experiment form on a team's own set — the set committed last
chosen, evaluators grouped by whether they fit, the mapping suggested by synonyms, regrouped
when the set changes — and the compare page's title and neutral pills, in English and 简体中文,
at 1440 and 390 px, never wider than the screen. Screenshots are kept."""

import pytest

from assay.models import UserPreference
from tests.support.factories import make_code_version, make_evalset_version, run_inline
from tests.support.fixtures import screenshot, sign_in
from tests.support.pairwise import make_pairwise_version

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
WIDTHS = (1440, 390)
COLUMNS = [
    {"name": name, "content_type": "Text", "required": False, "description": ""}
    for name in ("question", "answer", "response")
]


def _fits(page) -> bool:
    return page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")


def _group_of(page, version) -> str:
    box = page.locator(f"#evaluator-choices input[value='{version.public_id}']")
    return box.evaluate("b => b.closest('[data-group]').dataset.group")


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_first_run_then_a_form_that_knows_the_set(
    live_server, page, workspace, user, pw_provider, language
):
    UserPreference.objects.update_or_create(user=user, defaults={"language": language})
    sign_in(page, live_server)  # lands on the evaluators list, which loads the card
    page.wait_for_selector("#first-run")
    assert page.locator("#first-run li").count() == 3
    screenshot(page, f"first-run-landing-{language}-1440")
    for width in WIDTHS:
        page.set_viewport_size({"width": width, "height": 900})
        page.goto(f"{live_server.url}/w/acme/experiments/")
        assert page.locator("#first-run li").count() == 3
        assert _fits(page), f"the list is wider than {width} px"
        screenshot(page, f"first-run-{language}-{width}")

    alpha = make_evalset_version(
        workspace=workspace, user=user, rows=[{"question": "a"}], name="Alpha", columns=COLUMNS[:1]
    )
    rows = [{"question": "2+2?", "answer": "4", "response": "4"} for _ in range(3)]
    own = make_evalset_version(
        workspace=workspace, user=user, rows=rows, name="Zeta FAQ", columns=COLUMNS
    )
    contains = make_code_version(workspace=workspace, user=user)
    judge = make_pairwise_version(workspace=workspace, user=user, provider=pw_provider)
    for width in WIDTHS:
        page.set_viewport_size({"width": width, "height": 900})
        page.goto(f"{live_server.url}/w/acme/experiments/new/")
        assert page.locator("#id_evalset_version").input_value() == str(own.public_id)
        assert _group_of(page, contains) == "fits"  # response, answer: synonyms
        assert page.locator("[data-group=pairwise]").count() == 1
        assert page.locator(f"#evaluator-choices input[value='{judge.public_id}']").count() == 0
        page.check(f"#evaluator-choices input[value='{contains.public_id}']")
        select = f"#map__{contains.public_id}__actual_output"
        page.wait_for_selector(select)
        assert page.locator(select).input_value() == "column:response"
        ref = f"#map__{contains.public_id}__reference_output"
        assert page.locator(ref).input_value() == "column:answer"
        assert _fits(page), f"the form is wider than {width} px"
        screenshot(page, f"experiment-form-groups-{language}-{width}")
    page.select_option("#id_evalset_version", str(alpha.public_id))  # no output column there
    page.wait_for_function(
        "s => document.querySelector(s).closest('[data-group]').dataset.group === 'needs_mapping'",
        arg=f"#evaluator-choices input[value='{contains.public_id}']",
    )
    assert page.locator(f"#evaluator-choices input[value='{contains.public_id}']").is_checked()
    screenshot(page, f"experiment-form-regrouped-{language}-390")
    old = run_inline(
        workspace=workspace, user=user, version=own, evaluator_version=contains, name="Old"
    )
    new = run_inline(
        workspace=workspace, user=user, version=own, evaluator_version=contains, name="New"
    )
    query = f"baseline={old.public_id}&candidates={new.public_id}"
    for width in WIDTHS:
        page.set_viewport_size({"width": width, "height": 900})
        page.goto(f"{live_server.url}/w/acme/compare/?{query}")
        assert page.locator("h2.compare-title").inner_text() == "Old → New"
        pill = page.locator(".flips-regressions").first
        assert "neutral" in pill.get_attribute("class")
        colour = pill.evaluate("p => getComputedStyle(p).backgroundColor")
        assert colour == "rgb(238, 240, 243)"  # grey, not red
        assert _fits(page), f"compare is wider than {width} px"
        screenshot(page, f"compare-neutral-{language}-{width}")
    assert page.console_errors == []
