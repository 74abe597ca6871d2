"""Writes of online evaluation: rules and the evaluator versions they run."""

from __future__ import annotations

from decimal import Decimal

from django.contrib.auth.models import AbstractBaseUser
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from assay.models import Workspace
from evaluators.kinds import kind_get
from evaluators.models import EvaluatorVersion

from ..filters import filter_problems
from ..mapping import mapping_problems, suggest_mapping
from ..models import OnlineRule, RuleEvaluator, RuleScope

MAX_EVALUATORS = 10
MAX_IDLE_SECONDS = 24 * 3600


def online_rule_create(
    *, workspace: Workspace, user: AbstractBaseUser | None, fields: dict, evaluators: list[dict]
) -> OnlineRule:
    """A new rule with its evaluator versions ({evaluator_version, mapping?}); every problem
    is named at once (`evaluators[0].mapping`) and nothing is saved when there is one."""
    # a new rule scores what arrives from now on (a past window is a backfill)
    rule = OnlineRule(workspace=workspace, created_by=user, swept_until=timezone.now())
    return _rule_save(rule, fields, evaluators)


def online_rule_update(
    *, rule: OnlineRule, fields: dict, evaluators: list[dict] | None
) -> OnlineRule:
    """Change a rule's settings; `evaluators`, when given, replaces the list (versions already
    there keep their rows, so results stay attached). A resumed rule's alerts start again at
    the last closed window: the paused ones hold no traffic to judge."""
    resumed = fields.get("active") and not rule.active
    rule = _rule_save(rule, fields, evaluators)
    if resumed:
        rule.alerts.update(evaluated_until=None)
    return rule


def online_rule_delete(*, rule: OnlineRule) -> None:
    """Delete a rule (its evaluator list goes with it)."""
    rule.delete()


def _rule_save(rule: OnlineRule, fields: dict, evaluators: list[dict] | None) -> OnlineRule:
    scope = rule.scope if rule.pk else None
    for name in OnlineRule.SETTINGS:
        if name in fields:
            setattr(rule, name, fields[name])
    rule.name = rule.name.strip()
    errors = _rule_problems(rule)
    # its outcomes, strata and mappings are of one kind of item: spans, traces or sessions
    if scope is not None and rule.scope != scope:
        errors["scope"] = [_("A rule's scope cannot change: make a new rule.")]
    cleaned = None if evaluators is None else _evaluators_cleaned(rule, evaluators, errors)
    if errors:
        raise ValidationError(errors)
    try:
        with transaction.atomic():
            rule.save()
            if cleaned is not None:
                _evaluators_replace(rule, cleaned)
    except IntegrityError:
        raise ValidationError({"name": [_("A rule of that name exists already.")]}) from None
    return rule


def _rule_problems(rule: OnlineRule) -> dict[str, list[str]]:
    errors: dict[str, list[str]] = {}
    if not rule.name.strip():
        errors["name"] = [_("Give the rule a name.")]
    if rule.scope not in RuleScope.values:
        errors["scope"] = [_("The scope is span, trace or session.")]
    if problems := filter_problems(rule.filter):
        errors["filter"] = problems
    if not _rate_ok(rule.sampling_rate):
        errors["sampling_rate"] = [_("The sampling rate is a number above 0 and at most 1.")]
    if not 1 <= int(rule.concurrency) <= 64:
        errors["concurrency"] = [_("Concurrency must be between 1 and 64.")]
    if not 1 <= int(rule.idle_seconds) <= MAX_IDLE_SECONDS:
        errors["idle_seconds"] = [_("Wait 1 s to 24 h for a trace or session to be idle.")]
    if rule.daily_cost_budget is not None and Decimal(rule.daily_cost_budget) <= 0:
        errors["daily_cost_budget"] = [_("A budget is above 0 (leave it empty for none).")]
    if rule.daily_item_budget == 0:
        errors["daily_item_budget"] = [_("A budget is above 0 (leave it empty for none).")]
    return errors


def _rate_ok(rate) -> bool:
    return isinstance(rate, int | float) and not isinstance(rate, bool) and 0 < rate <= 1


def _evaluators_cleaned(rule: OnlineRule, evaluators: list[dict], errors: dict) -> list[dict]:
    if not evaluators or len(evaluators) > MAX_EVALUATORS:
        errors["evaluators"] = [
            _("A rule runs 1 to %(n)s evaluator versions.") % {"n": MAX_EVALUATORS}
        ]
        return []
    cleaned, seen = [], set()
    for i, entry in enumerate(evaluators):
        one = _evaluator_cleaned(rule, entry, f"evaluators[{i}]", errors)
        if one and one["evaluator_version"].pk in seen:
            errors[f"evaluators[{i}].evaluator_version"] = [_("This version is listed twice.")]
        elif one:
            seen.add(one["evaluator_version"].pk)
            cleaned.append(one)
    return cleaned


def _evaluator_cleaned(rule, entry: dict, path: str, errors: dict) -> dict | None:
    version = entry.get("evaluator_version")
    if not isinstance(version, EvaluatorVersion) or (
        version.evaluator.workspace_id != rule.workspace_id
    ):
        errors[f"{path}.evaluator_version"] = [_("No such evaluator version in this workspace.")]
        return None
    if kind_get(version.kind).pairwise:
        errors[f"{path}.evaluator_version"] = [_("A pairwise evaluator cannot score live traffic.")]
        return None
    variables = version.config.get("input_variables") or []
    mapping = entry.get("mapping") or suggest_mapping(variables=variables, scope=rule.scope)
    if problems := mapping_problems(variables=variables, mapping=mapping, scope=rule.scope):
        errors[f"{path}.mapping"] = problems
    return {"evaluator_version": version, "mapping": mapping}


def _evaluators_replace(rule: OnlineRule, cleaned: list[dict]) -> None:
    keep = [entry["evaluator_version"].pk for entry in cleaned]
    rule.evaluators.exclude(evaluator_version__in=keep).delete()
    for position, entry in enumerate(cleaned):
        RuleEvaluator.objects.update_or_create(
            rule=rule,
            evaluator_version=entry["evaluator_version"],
            defaults={"mapping": entry["mapping"], "position": position},
        )
