"""Headless Chromium: the dashboard card's charts read without hovering at desktop and phone
width — the histogram's counts sit inside the chart, the interval strip has its scale, the
by-tag table shows each tag's n and interval — and nothing scrolls sideways."""

import pytest

from experiments import scoring as engine
from experiments import services
from tests.support.factories import make_code_version, make_evalset_version, qa_rows
from tests.support.fixtures import screenshot, sign_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

INSIDE = """([outer, inner]) => {
  const o = outer.getBoundingClientRect(), i = inner.getBoundingClientRect();
  return i.left >= o.left - 0.5 && i.right <= o.right + 0.5
    && i.top >= o.top - 0.5 && i.bottom <= o.bottom + 0.5;
}"""


def test_the_card_reads_at_desktop_and_phone_width(live_server, page, user, workspace):
    rows = qa_rows(60, error_every=10)  # 30 pass (score 1), 24 fail (score 0), 6 errors
    for i, row in enumerate(rows):
        row["tags"] = ["big"] if i < 40 else ["small"]
    version = make_evalset_version(workspace=workspace, user=user, rows=rows)
    check = make_code_version(workspace=workspace, user=user)
    experiment = services.experiment_create(
        workspace=workspace,
        user=user,
        name="cards",
        evalset_version=version,
        bindings=[{"evaluator_version": check}],
    )
    services.experiment_launch(experiment=experiment)
    engine.experiment_run_inline(experiment_id=experiment.pk)
    sign_in(page, live_server)
    for width in (1440, 390):
        page.set_viewport_size({"width": width, "height": 900})
        page.goto(f"{live_server.url}/w/acme/experiments/{experiment.public_id}/")
        card = page.locator(".eval-card").first
        chart = card.locator("svg.chart")
        assert chart.get_attribute("role") == "img"
        assert "54 scored rows" in chart.get_attribute("aria-label")
        assert chart.bounding_box()["width"] >= 250, width  # wide enough to read
        counts = chart.locator(".values text")
        assert counts.all_text_contents() == ["24", "30"]
        for label in [*counts.all(), *chart.locator(".tick-labels text, .axis-title").all()]:
            assert page.evaluate(INSIDE, [chart.element_handle(), label.element_handle()])
        strip = card.locator("svg.whisker")
        assert strip.locator("text").all_text_contents() == ["0%", "25%", "50%", "75%", "100%"]
        assert strip.locator(".point").count() == 1 and strip.locator(".range").count() == 1
        card.locator("details.tags-table summary").click()
        big = card.locator("tr[data-tag='big']")
        assert big.locator(".n").inner_text() == "36"  # 20 pass, 16 fail, 4 errors not counted
        assert "% – " in big.locator(".interval").inner_text()
        assert card.locator("tr[data-tag='small'] .interval").inner_text() == "n < 30"
        card.locator("details.chart-data summary").click()
        assert card.locator("details.chart-data tbody tr").count() == 10
        sideways = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
        assert sideways[0] <= sideways[1], (width, sideways)
        screenshot(page, f"dashboard-cards-{width}")
    assert page.console_errors == []
