"""Where a trend chart's marks go: plain numbers in, SVG coordinates out (no Django).

One chart per evaluator: x is the run (one slot per run of the window, oldest left), y the pass
rate on a fixed 0–100 % scale, so charts of different evaluators read alike. The template only
places what this returns; every label it prints is escaped there.
"""

from __future__ import annotations

# Layout in viewBox units (the page shows them 1:1 up to the chart's natural width).
SLOT = 56  # one run; room for a "regression" note under a point without touching the next
LEFT, RIGHT, TOP, PLOT_HEIGHT = 64, 16, 24, 160
# Under the plot: the gap to the run labels, then the labels themselves (rotated by LABEL_TURN,
# each character about CHAR_WIDTH wide), then the axis title.
LABEL_GAP, LABEL_TURN, CHAR_WIDTH, TITLE_ROOM = 14, 45, 7, 22
LABEL_DROP = 0.707  # sin 45°: how far down (and left) a rotated label reaches per unit of length
MIN_WIDTH = 480
# The wide layout shown from tablet width up: about a card's inner width at 1440 px, so the
# chart uses the card instead of 40 % of it; phones get the MIN_WIDTH one (readable text).
WIDE_WIDTH = 1120
MIN_SCALE = 0.7
TICKS = (0.0, 0.25, 0.5, 0.75, 1.0)
# Run names longer than this are cut on the axis (the table has them whole): at 45° the first
# run's label then still ends inside the left margin.
LABEL_CHARS = 18
NOTE_GAP, VALUE_GAP = 20, 9
LEVEL_ROOM = LABEL_GAP + 12 + TITLE_ROOM  # under the plot: one line of level labels, the title


def chart_layout(*, runs: list[dict], points: list[dict], width: float = MIN_WIDTH) -> dict:
    """Geometry of one evaluator's chart: the frame (axes, ticks, run columns) and the marks
    (band, line, points with their value and regression notes).

    `runs` are the window's runs in order ({"name", "current"}); `points` the evaluator's
    points ({"run_index", "pass_rate", "ci", "regression"}), in run order; `width` the
    narrowest chart wanted (slots widen to fill it).
    """
    slot = max(SLOT, (width - LEFT - RIGHT) / max(len(runs), 1))
    placed = [_place(point, slot) for point in points if point["pass_rate"] is not None]
    marks = {
        "line": " ".join(f"{p['x']},{p['y']}" for p in placed),
        "bands": _bands(placed),
        "points": placed,
    }
    return _frame(runs, slot) | marks


def _frame(runs: list[dict], slot: float) -> dict:
    """The viewBox, the plot area, the 0–100 % ticks, the run columns and the axis titles."""
    width = round(LEFT + slot * len(runs) + RIGHT)
    columns = [_column(i, run, slot) for i, run in enumerate(runs)]
    # labels read level when each fits its slot (a wide chart), else turned by LABEL_TURN
    level = all((len(c["label"]) + 2) * CHAR_WIDTH <= slot for c in columns)
    height = TOP + PLOT_HEIGHT + (LEVEL_ROOM if level else _under_plot(columns))
    bottom = TOP + PLOT_HEIGHT
    return {
        "width": width,
        # narrower than this and its 11-unit text gets too small to read: the box scrolls
        "min_width": round(width * MIN_SCALE),
        "height": height,
        "plot": {"left": LEFT, "right": width - RIGHT, "top": TOP, "bottom": bottom},
        "plot_height": PLOT_HEIGHT,
        "ticks": [{"value": t, "y": y_of(t), "label_y": y_of(t) + 4} for t in TICKS],
        "tick_x": LEFT - 6,
        "columns": columns,
        "label_y": bottom + LABEL_GAP,
        "label_turn": 0 if level else -LABEL_TURN,
        "label_anchor": "middle" if level else "end",
        "x_title": {"x": round(LEFT + slot * len(runs) / 2, 1), "y": height - 6},
        "y_title": {"x": 14, "y": TOP + PLOT_HEIGHT / 2},
    }


def x_of(index: int, slot: float) -> float:
    """The centre of a run's slot."""
    return round(LEFT + slot * (index + 0.5), 1)


def y_of(rate: float) -> float:
    """A pass rate in [0, 1] on the plot (1 at the top); out-of-range values are clamped."""
    return round(TOP + (1 - min(max(rate, 0.0), 1.0)) * PLOT_HEIGHT, 1)


def short_label(name: str, chars: int = LABEL_CHARS) -> str:
    """A run name short enough for the axis label (`chars` long at most)."""
    return name if len(name) <= chars else name[: chars - 1].rstrip() + "…"


def _under_plot(columns: list[dict]) -> float:
    """Room under the plot for the longest rotated run label and the axis title."""
    longest = max((len(c["label"]) for c in columns), default=0)
    return round(LABEL_GAP + longest * CHAR_WIDTH * LABEL_DROP + TITLE_ROOM)


def _column(index: int, run: dict, slot: float) -> dict:
    x = x_of(index, slot)
    return {
        "x": x,
        "left": round(x - slot / 2, 1),
        "width": round(slot, 1),
        "label": short_label(run["name"], max(LABEL_CHARS, int(slot / CHAR_WIDTH) - 2)),
        "name": run["name"],
        "current": run.get("current", False),
    }


def _place(point: dict, slot: float) -> dict:
    """A point with its position, its interval's ends and where its labels go."""
    y = y_of(point["pass_rate"])
    ci = point.get("ci")
    low, high = (y_of(ci[0]), y_of(ci[1])) if ci else (y, y)
    # the note goes under the point unless that would run into the x axis
    note_y = y + NOTE_GAP if y + NOTE_GAP < TOP + PLOT_HEIGHT - 2 else y - NOTE_GAP - VALUE_GAP
    return {
        **point,
        "x": x_of(point["run_index"], slot),
        "y": y,
        "ci_top": high,
        "ci_bottom": low,
        "value_y": round(y - VALUE_GAP, 1),
        "note_y": round(note_y, 1),
        "marker": _triangle(x_of(point["run_index"], slot), y) if point.get("regression") else "",
    }


def _triangle(x: float, y: float, size: float = 7) -> str:
    """A downward triangle centred on the point: the regression marker."""
    return f"{x - size},{y - size * 0.6} {x + size},{y - size * 0.6} {x},{y + size}"


def _bands(placed: list[dict]) -> list[str]:
    """The interval as polygons over runs that follow each other with an interval; a point
    without one (too few rows, intervals off) breaks the band rather than bridging it."""
    bands, segment = [], []
    for point in placed:
        contiguous = segment and point["run_index"] == segment[-1]["run_index"] + 1
        if point.get("ci") and (contiguous or not segment):
            segment.append(point)
            continue
        bands += _polygon(segment)
        segment = [point] if point.get("ci") else []
    return bands + _polygon(segment)


def _polygon(segment: list[dict]) -> list[str]:
    if len(segment) < 2:  # a lone interval is drawn as its whisker only
        return []
    upper = [f"{p['x']},{p['ci_top']}" for p in segment]
    lower = [f"{p['x']},{p['ci_bottom']}" for p in reversed(segment)]
    return [" ".join(upper + lower)]
