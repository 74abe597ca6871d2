"""Template filters shared by every page."""

from __future__ import annotations

import json
import math
import re

from django import template
from django.utils import timezone
from django.utils.html import format_html_join
from django.utils.timesince import timesince
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, pgettext

from assay.vocabulary import ContentType, ResultStatus, Verdict

register = template.Library()

# An interval no wider than this (a fraction: 0.001 percentage points) is not drawn, as garak
# does not print one (its CI_DISPLAY_MIN_WIDTH, in the same units).
MIN_WHISKER = 0.001 / 100


@register.filter
def score(value) -> str:
    """A score for display: two decimals on every page, 0.50 and 1.00 alike (stored, exported and
    served by the API at full precision)."""
    if value is None or value == "" or not math.isfinite(float(value)):
        return "—"
    text = f"{float(value):.2f}"
    return "0.00" if text == "-0.00" else text  # a tiny negative difference is no difference


@register.filter
def grouped(value) -> str:
    """A count with its thousands grouped (1,000,000): at a million rows bare digits are hard to
    read. Anything that is not a whole number is shown as it is."""
    if isinstance(value, bool) or not isinstance(value, int):
        return value
    return f"{value:,}"


@register.filter
def pvalue(value) -> str:
    """A p-value: three decimals, and "< 0.001" below that (two decimals would print a
    significant 0.004 as 0.00)."""
    if value is None or value == "" or not math.isfinite(float(value)):
        return "—"
    return "< 0.001" if float(value) < 0.001 else f"{float(value):.3f}"


@register.filter
def percent(value, digits: int = 1) -> str:
    """A fraction in [0, 1] as a percentage."""
    if value is None:
        return "—"
    return f"{float(value) * 100:.{int(digits)}f}%"


# The shared words' labels by code: pages show a verdict or a status in the page's language.
WORDS = {
    **dict(Verdict.choices),
    **dict(ResultStatus.choices),
    **dict(ContentType.choices),  # a column's type: the code stays in JSON, files and the API
    # how a row's verdict moved between two runs (experiments.results.compare)
    "regression": gettext_lazy("regression"),
    "improvement": gettext_lazy("improvement"),
    "unknown flip": gettext_lazy("unknown flip"),
    "unchanged": gettext_lazy("unchanged"),
    "only in baseline": gettext_lazy("only in baseline"),
    "only in candidate": gettext_lazy("only in candidate"),
}


@register.filter
def word(value):
    """A verdict, a result status (`pass`, `timeout`…), a column's content type or a row's
    change between two runs as its label in the page's language; anything else as it is."""
    return WORDS.get(str(value), value) if value is not None else value


@register.filter
def plain_words(value) -> str:
    """A comparison's plain-words verdict (experiments.stats.compare) in the page's language."""
    words = {
        "better": _("better"),
        "worse": _("worse"),
        "no pass/fail pairs to compare": _("no pass/fail pairs to compare"),
    }
    if value in words:
        return words[value]
    found = re.fullmatch(r"no detectable difference at n = (\d+)", str(value or ""))
    if found:
        return _("no detectable difference at n = %(n)s") % {"n": found.group(1)}
    return value


@register.filter
def code_list(items) -> str:
    """Names as code, joined the page's way ("a, b" in English, "a、b" in Chinese), to sit
    inside a translated sentence; each name is escaped."""
    separator = pgettext("list separator", ", ")
    return format_html_join(separator, "<code>{}</code>", ((item,) for item in items))


@register.filter
def pretty_json(value) -> str:
    """A JSON value indented for a <pre> block (autoescaped like any other text)."""
    return json.dumps(value, indent=2, ensure_ascii=False, default=str)


@register.filter
def structured(value) -> bool:
    """Whether a value is an object or a list (shown as JSON rather than inline)."""
    return isinstance(value, dict | list)


@register.filter
def usd(value) -> str:
    """An amount of money: more digits for the small sums a row costs."""
    if value is None:
        return "—"
    return (
        f"${value:,.2f}" if value >= 1 else f"${value:.4f}" if value >= 0.0001 else f"${value:.6f}"
    )


@register.filter
def ago(value) -> str:
    """How long ago a moment was, in the page's language; under a minute "just now" (刚刚), as
    timesince would say "0 minutes" (and "0 分钟 前" in Chinese)."""
    if value is None:
        return "—"
    if (timezone.now() - value).total_seconds() < 60:
        return _("just now")
    return _("%(when)s ago") % {"when": timesince(value)}


@register.inclusion_tag("partials/_empty.html")
def empty_state(title, text, action_label: str = "", action_url: str = "") -> dict:
    """What a page shows instead of an empty table: a title, a line, and maybe the next step."""
    return {"title": title, "text": text, "action_label": action_label, "action_url": action_url}


@register.inclusion_tag("partials/_no_worker.html")
def no_worker_banner(run) -> dict:
    """On an active run's page: a banner when no worker is live to move it (see
    `selectors.run_waits_for_worker`); nothing otherwise."""
    from assay.selectors import run_waits_for_worker

    waits = run_waits_for_worker(
        active=run.is_active, started=run.started_at is not None, heartbeat_at=run.heartbeat_at
    )
    return {"waits": waits}


# The strip's scale: a tick every 25 %, each labelled, the end labels kept inside the strip.
WHISKER_TICKS = ((0, "start"), (25, "middle"), (50, "middle"), (75, "middle"), (100, "end"))


@register.inclusion_tag("partials/_whisker.html")
def ci_whisker(rate, ci=None, label: str = "") -> dict:
    """A 0–100 % strip with its scale (ticks every 25 %), the point and, when it is wide enough
    to see, the interval. Positions are percentages of the strip's width, so the strip stretches
    to any width while its text and point keep their shape."""
    wide = bool(ci) and ci[1] - ci[0] > MIN_WHISKER
    return {
        "rate": None if rate is None else _percent_x(rate),
        "ci": (_percent_x(ci[0]), _percent_x(ci[1])) if wide else None,
        "label": label,
        "ticks": [{"x": x, "label": f"{x}%", "anchor": anchor} for x, anchor in WHISKER_TICKS],
    }


def _percent_x(fraction) -> str:
    """A fraction as an SVG x position in percent, clamped to the strip."""
    return f"{min(max(float(fraction), 0.0), 1.0) * 100:.2f}"
