"""The `none` target: the outputs to judge are already in a column of the evalset."""

from __future__ import annotations

from django.utils.translation import gettext_lazy as _

from .base import TargetSpec


class NoTarget(TargetSpec):
    name = "none"
    label = _("None: the outputs are already in a column")
