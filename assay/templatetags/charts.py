"""Server-rendered SVG charts, one look for every chart on the pages.

A chart is geometry computed here (plain numbers and already formatted labels) and drawn by a
partial under `templates/partials/charts/`: `_axes.html` draws the frame every chart shares (an
x and a y axis with ticks, tick labels and axis titles), a chart's own partial draws its marks
and writes each value on its mark, so nothing needs hovering; every chart is `role="img"` with
an aria-label and comes with a table of its numbers. No script: the CSP forbids inline ones and
a chart should read the same printed.

To add a chart: build a `Frame`, a `Scale` per axis, the ticks (`even_ticks`, `count_ticks`),
`axes(...)` for the frame, and the marks in the chart's own inclusion tag and partial; the
classes in `static/css/assay.css` under "charts" give it the shared look.
"""

from __future__ import annotations

from dataclasses import dataclass

from django import template
from django.utils.translation import gettext as _

from .assay_tags import score

register = template.Library()

# Glyph width of the tick font (10 user units) for a digit, to size the margin of y labels.
DIGIT_WIDTH = 6.2


@dataclass(frozen=True)
class Frame:
    """A chart's viewBox and the plot area inside its margins, in SVG user units."""

    width: float = 300
    height: float = 170
    left: float = 40
    right: float = 12
    top: float = 18
    bottom: float = 36

    @property
    def x0(self) -> float:
        return self.left

    @property
    def x1(self) -> float:
        return self.width - self.right

    @property
    def y0(self) -> float:  # the bottom of the plot (SVG y grows downwards)
        return self.height - self.bottom

    @property
    def y1(self) -> float:
        return self.top


@dataclass(frozen=True)
class Scale:
    """A linear map from data values (lo..hi) onto positions (start..end)."""

    lo: float
    hi: float
    start: float
    end: float

    def __call__(self, value: float) -> float:
        if self.hi == self.lo:
            return self.start
        return self.start + (value - self.lo) / (self.hi - self.lo) * (self.end - self.start)


def even_ticks(lo: float, hi: float, count: int = 5) -> list[float]:
    """`count` evenly spaced values from lo to hi, both ends included (0, 0.25, … 1 on [0, 1])."""
    if hi == lo or count < 2:
        return [lo]
    step = (hi - lo) / (count - 1)
    return [lo + i * step for i in range(count)]


def count_ticks(peak: int) -> list[int]:
    """Ticks of a count axis: 0, the peak, and a whole middle when there is room for one."""
    if peak <= 0:
        return [0]
    middle = [peak // 2] if peak >= 4 or peak == 2 else []
    return [0, *middle, peak]


def axes(
    frame: Frame,
    x: Scale,
    y: Scale,
    *,
    x_ticks: list[tuple[float, str]],
    y_ticks: list[tuple[float, str]],
    x_title: str,
    y_title: str,
) -> dict:
    """What `partials/charts/_axes.html` draws: both axes, their ticks (value, label) placed
    by the scales, light grid lines at the y ticks, and the two axis titles."""
    return {
        "frame": frame,
        "x_ticks": [{"x": _n(x(value)), "label": label} for value, label in x_ticks],
        "y_ticks": [{"y": _n(y(value)), "label": label} for value, label in y_ticks],
        "x_title": x_title,
        "y_title": y_title,
        "x_title_x": _n((frame.x0 + frame.x1) / 2),
        "x_title_y": _n(frame.height - 4),
        # the y title is rotated a quarter turn back, so its x runs up the page: minus the y
        "y_title_x": _n(-(frame.y0 + frame.y1) / 2),
        "tick_label_y": _n(frame.y0 + 14),
        "tick_label_x": _n(frame.x0 - 5),
        "tick_end_y": _n(frame.y0 + 4),
        "tick_start_x": _n(frame.x0 - 4),
    }


@register.inclusion_tag("partials/charts/_histogram.html")
def histogram_chart(bins: list[dict], label: str = "", x_title: str = "", y_title: str = ""):
    """A histogram of scores: one bar per bin (`from`, `to`, `count`), the count written above
    each non-empty bar, the bins' own range on the x axis (five ticks), counts on the y axis,
    and a table of the bins beside it."""
    bins = [b for b in bins if b.get("to") is not None and b.get("from") is not None]
    total = sum(b["count"] for b in bins)
    if not bins or not total:
        return {"empty": True, "label": label}
    peak = max(b["count"] for b in bins)
    frame = Frame(left=22 + DIGIT_WIDTH * len(str(peak)))
    lo, hi = bins[0]["from"], bins[-1]["to"]
    x = Scale(lo, hi, frame.x0, frame.x1)
    y = Scale(0, peak, frame.y0, frame.y1)
    bars = []
    for b in bins:
        left, right = x(b["from"]), x(b["to"])
        top = y(b["count"])
        bars.append(
            {
                "x": _n(left + 1),
                "width": _n(max(right - left - 2, 1)),
                "y": _n(top),
                "height": _n(frame.y0 - top),
                "count": b["count"],
                "label_x": _n((left + right) / 2),
                "label_y": _n(top - 4),
                "range": f"{score(b['from'])}–{score(b['to'])}",
            }
        )
    tallest = max(bars, key=lambda bar: bar["count"])
    return {
        "empty": False,
        "label": label,
        "bars": bars,
        "total": total,
        "count_font": 8 if len(str(peak)) >= 5 else 9,
        "tallest": tallest,
        "lo": score(lo),
        "hi": score(hi),
        "axes": axes(
            frame,
            x,
            y,
            x_ticks=[(v, score(v)) for v in even_ticks(lo, hi)],
            y_ticks=[(v, str(v)) for v in count_ticks(peak)],
            x_title=x_title or _("score"),
            y_title=y_title or _("rows"),
        ),
    }


def _n(value: float) -> str:
    """A coordinate for SVG markup: two decimals are finer than any screen pixel."""
    return f"{value:.2f}".rstrip("0").rstrip(".")
