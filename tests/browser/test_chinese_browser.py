"""Headless Chromium in Chinese: sign in, switch to 简体中文 in the nav, create a code evaluator,
run the debug panel and open a dashboard, at desktop and phone width (screenshots kept)."""

import pytest

from assay.models import UserPreference
from tests.support.factories import make_code_version, make_evalset_version, run_inline
from tests.support.fixtures import screenshot, sign_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

CODE = """def exec_evaluation(turn):
    output = turn["evaluate_target_output_fields"]["actual_output"]["text"]
    return EvalOutput(score=1.0 if output == "巴黎" else 0.0, reason="比较了 " + output)
"""


def test_switch_to_chinese_create_debug_and_read_a_dashboard(live_server, page, user, workspace):
    rows = [
        {
            "input": f"问题 {i}",
            "actual_output": "巴黎" if i % 3 else "里昂",
            "reference_output": "巴黎",
        }
        for i in range(36)
    ]
    version = make_evalset_version(workspace=workspace, user=user, rows=rows, name="首都问答")
    check = make_code_version(workspace=workspace, user=user, name="包含参考答案")
    run = run_inline(
        workspace=workspace, user=user, version=version, evaluator_version=check, name="基线运行"
    )

    page.set_viewport_size({"width": 1440, "height": 900})
    sign_in(page, live_server)
    assert page.locator("nav.mainnav").inner_text().startswith("Evaluators")
    page.select_option("#lang-switch", "zh-hans")
    page.wait_for_selector("nav.mainnav >> text=评估器")
    assert page.locator("html").get_attribute("lang") == "zh-hans"
    assert UserPreference.objects.get(user=user).language == "zh-hans"
    screenshot(page, "zh-evaluators-1440")

    page.click("text=新建评估器")
    page.check("input[name=source][value=code]")
    page.fill("#id_name", "首都检查")
    page.click("text=创建评估器")
    page.wait_for_selector("text=评估器已创建")
    page.wait_for_selector(".CodeMirror")
    page.evaluate("(src) => document.querySelector('.CodeMirror').CodeMirror.setValue(src)", CODE)
    page.click("#save-draft")
    page.wait_for_selector("text=草稿已保存")
    assert page.locator("#add-turn").inner_text() == "+ 轮次"  # the JavaScript catalogue
    page.fill("#turn-var-actual_output", "巴黎")
    page.click("#debug-run")
    page.wait_for_selector(".debug-result")
    result = page.locator(".debug-result").first
    assert result.locator(".score").inner_text() == "1.00"
    assert "比较了 巴黎" in result.locator(".reason").inner_text()
    screenshot(page, "zh-debug-1440")

    for width in (1440, 390):
        page.set_viewport_size({"width": width, "height": 900})
        page.goto(f"{live_server.url}/w/acme/experiments/{run.public_id}/")
        page.wait_for_selector(".eval-card")
        card = page.locator(".eval-card").first
        assert "通过率" in card.inner_text()
        sideways = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
        assert sideways[0] <= sideways[1], (width, sideways)
        screenshot(page, f"zh-dashboard-{width}")

    # At phone width the switch sits in the menu; switching back is remembered too.
    page.click("[data-nav-toggle]")
    assert page.locator("#lang-switch").is_visible()
    screenshot(page, "zh-menu-390")
    page.select_option("#lang-switch", "en")
    page.wait_for_selector("text=Pass rate")
    assert UserPreference.objects.get(user=user).language == "en"


def test_new_evaluator_page_in_chinese_offers_chinese_presets(live_server, page, user, workspace):
    from evaluators.models import Evaluator
    from evaluators.presets.sync import templates_sync

    templates_sync()  # a transactional test's database starts without the synced catalogue
    UserPreference.objects.update_or_create(user=user, defaults={"language": "zh-hans"})
    sign_in(page, live_server)
    for width in (1440, 390):
        page.set_viewport_size({"width": width, "height": 900})
        page.goto(f"{live_server.url}/w/acme/evaluators/new/")
        card = page.locator("[data-template=correctness]")
        assert "对照参考答案的正确性" in card.inner_text()
        assert page.locator("#id_prompt_locale").input_value() == "zh-hans"
        sideways = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
        assert sideways[0] <= sideways[1], (width, sideways)
        screenshot(page, f"zh-new-evaluator-{width}")
    card.click()
    assert page.locator("#id_name").input_value() == "对照参考答案的正确性"
    page.click("text=创建评估器")
    page.wait_for_selector("text=评估器已创建")
    draft = Evaluator.objects.get(name="对照参考答案的正确性").draft_config
    assert draft["messages"][0]["content"].startswith("你是一名严格的评分者")
