"""The checks the trace, span and session filters share, whether they come from the API's
query (`traces.api.serializers`) or a page's form (`traces.views.forms`): a time range preset
becomes `since`, and a lower bound may not exceed its upper bound."""

from __future__ import annotations

from django.utils import timezone
from django.utils.translation import gettext as _

from ..selectors import TIME_RANGES

BOUNDS = (
    ("min_duration_ms", "max_duration_ms"),
    ("min_tokens", "max_tokens"),
    ("min_cost", "max_cost"),
    ("since", "until"),
)


def filters_checked(values: dict, error_class: type[Exception], label_of=str) -> dict:
    """The filters with `range` turned into `since`; `error_class({field: message})` naming
    the field at fault when a range and a start are both given or a bound is crossed (the
    other field by `label_of` its name: a page's form gives its label)."""
    values = dict(values)
    if values.get("range"):
        if values.get("since"):
            raise error_class({"range": _("Give a time range or a start, not both.")})
        values["since"] = timezone.now() - TIME_RANGES[values.pop("range")]
    values.pop("range", None)
    for low, high in BOUNDS:
        if values.get(low) is not None and values.get(high) is not None:
            if values[low] > values[high]:
                message = _("This is below the lower bound (%(field)s).")
                raise error_class({high: message % {"field": label_of(low)}})
    return values
