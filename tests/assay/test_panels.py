"""A page's panels (assay.web.panels): what apps above register is rendered in order, once."""

from assay.web.panels import Panels


def test_panels_render_in_order_once_each_skipping_the_empty():
    panels = Panels()

    def first(**objects):
        return f"first {objects['item']}"

    def empty(**objects):
        return ""

    def last(**objects):
        return f"last {objects['item']}"

    for panel in (first, empty, last, first):
        panels.register(panel)
    assert panels.render(item="x") == ["first x", "last x"]
