"""A rule's filter: a tree of conditions over span fields and attributes.

    {"all": [c, …]}  {"any": [c, …]}                       groups (nest up to MAX_DEPTH)
    {"field": "kind", "op": "eq", "value": "llm"}           a span field
    {"attribute": "http.route", "op": "eq", "value": "/x"}  a raw attribute (its string form)

`{}` matches every span. `filter_problems` names every problem; `filter_q` turns a valid tree
into a query on `traces.Span`; `filter_matches` tests one span in memory (same answers).
"""

from __future__ import annotations

import operator
from typing import Any

from django.db.models import Q
from django.utils.translation import gettext as _

from traces.models import SpanKind, SpanStatus

MAX_DEPTH = 4
MAX_CONDITIONS = 50
TEXT_OPS = {"eq", "ne", "in", "contains"}
NUMBER_OPS = {"eq", "ne", "gt", "gte", "lt", "lte"}
FIELDS = {
    "kind": ("choice", SpanKind.values),
    "status": ("choice", SpanStatus.values),
    "name": ("text", None),
    "model": ("text", None),
    "service": ("text", None),
    "environment": ("text", None),
    "session_id": ("text", None),
    "user_id": ("text", None),
    "duration_ms": ("number", None),
    "tokens_in": ("number", None),
    "tokens_out": ("number", None),
    "cost": ("number", None),
}
ATTRIBUTE_OPS = TEXT_OPS | {"exists"}
_VALUE_WORDS = {
    "number": lambda: _("%(path)s: %(field)s compares with numbers."),
    "text": lambda: _("%(path)s: %(field)s compares with text."),
    "scalar": lambda: _("%(path)s: %(field)s compares with a string, number or true/false."),
}
COMPARE = {
    "gt": operator.gt,
    "gte": operator.ge,
    "lt": operator.lt,
    "lte": operator.le,
}


def filter_problems(tree: Any) -> list[str]:
    """Every problem with a filter, each naming where it is (e.g. `all[1].op`)."""
    if tree == {}:
        return []
    counter = [0]
    problems = _node_problems(tree, "filter", 1, counter)
    if counter[0] > MAX_CONDITIONS:
        problems.append(_("A filter has at most %(n)s conditions.") % {"n": MAX_CONDITIONS})
    return problems


def _node_problems(node, path: str, depth: int, counter: list[int]) -> list[str]:
    if not isinstance(node, dict):
        return [_("%(path)s: a condition is an object.") % {"path": path}]
    group = [key for key in ("all", "any") if key in node]
    if group:
        return _group_problems(node, group[0], path, depth, counter)
    counter[0] += 1
    if "attribute" in node:
        return _attribute_problems(node, path)
    return _field_problems(node, path)


def _group_problems(node, key: str, path: str, depth: int, counter) -> list[str]:
    children = node[key]
    if len(node) != 1 or not isinstance(children, list) or not children:
        return [_("%(path)s: %(key)s takes a non-empty list and nothing else.") % locals()]
    if depth >= MAX_DEPTH:
        return [_("%(path)s: groups nest at most %(n)s deep.") % {"path": path, "n": MAX_DEPTH}]
    problems = []
    for i, child in enumerate(children):
        problems += _node_problems(child, f"{path}.{key}[{i}]", depth + 1, counter)
    return problems


def _field_problems(node, path: str) -> list[str]:
    field, op, value = node.get("field"), node.get("op"), node.get("value")
    if set(node) - {"field", "op", "value"}:
        return [_("%(path)s: a condition has field, op and value.") % {"path": path}]
    if field not in FIELDS:
        names = ", ".join(sorted(FIELDS))
        return [_("%(path)s: unknown field %(field)r (one of %(names)s).") % locals()]
    kind, choices = FIELDS[field]
    ops = NUMBER_OPS if kind == "number" else TEXT_OPS
    if op not in ops:
        allowed = ", ".join(sorted(ops))
        return [_("%(path)s: %(field)s takes the ops %(allowed)s, not %(op)r.") % locals()]
    return _value_problems(path, field, kind, choices, op, value)


def _value_problems(path, field, kind, choices, op, value) -> list[str]:
    values = value if op == "in" else [value]
    if op == "in" and (not isinstance(value, list) or not value):
        return [_("%(path)s: in takes a non-empty list.") % {"path": path}]
    wanted = "text" if op == "contains" else kind
    if not all(_of_kind(v, wanted) for v in values):
        return [_VALUE_WORDS[wanted]() % {"path": path, "field": field}]
    unknown = [v for v in values if choices and v not in choices and op != "contains"]
    if unknown:
        names = ", ".join(choices)
        return [_("%(path)s: %(field)s is one of %(names)s.") % locals()]
    return []


def _attribute_problems(node, path: str) -> list[str]:
    key, op = node.get("attribute"), node.get("op")
    if set(node) - {"attribute", "op", "value"} or not isinstance(key, str) or not key:
        return [_("%(path)s: an attribute condition has attribute, op and value.") % locals()]
    if op not in ATTRIBUTE_OPS:
        allowed = ", ".join(sorted(ATTRIBUTE_OPS))
        return [_("%(path)s: attributes take the ops %(allowed)s, not %(op)r.") % locals()]
    if op == "exists":
        return []
    return _value_problems(path, key, "scalar", None, op, node.get("value"))


def _of_kind(value, kind: str) -> bool:
    """Numbers for number fields, strings for text, any JSON scalar for an attribute."""
    if kind == "number":
        return isinstance(value, int | float) and not isinstance(value, bool)
    if kind == "scalar":
        return isinstance(value, str | int | float | bool)
    return isinstance(value, str)


# ---------------------------------------------------------------------------- as a query


def filter_q(tree: dict) -> Q:
    """The valid filter as a query on `traces.Span` (callers checked `filter_problems`)."""
    if not tree:
        return Q()
    for key, join in (("all", operator.and_), ("any", operator.or_)):
        if key in tree:
            parts = [filter_q(child) for child in tree[key]]
            query = parts[0]
            for part in parts[1:]:
                query = join(query, part)
            return query
    return _condition_q(tree)


def _condition_q(node: dict) -> Q:
    op, value = node["op"], node.get("value")
    if "attribute" in node:
        # Attribute keys may hold dots: look them up as one JSON key, never as a path.
        column = f"attributes__{node['attribute']}"
        if op == "exists":
            return Q(attributes__has_key=node["attribute"])
    else:
        column = node["field"]
    lookups = {"eq": "", "in": "__in", "contains": "__contains", **{k: f"__{k}" for k in COMPARE}}
    if op == "ne":
        return ~Q(**{column: value})
    return Q(**{f"{column}{lookups[op]}": value})


# ---------------------------------------------------------------------------- in memory


def filter_matches(tree: dict, span) -> bool:
    """Whether one span (a `traces.Span` or anything with its fields) passes the filter."""
    if not tree:
        return True
    if "all" in tree:
        return all(filter_matches(child, span) for child in tree["all"])
    if "any" in tree:
        return any(filter_matches(child, span) for child in tree["any"])
    if "attribute" in tree:
        attributes = getattr(span, "attributes", None) or {}
        if tree["op"] == "exists":
            return tree["attribute"] in attributes
        return _compare(attributes.get(tree["attribute"]), tree["op"], tree.get("value"))
    return _compare(getattr(span, tree["field"]), tree["op"], tree.get("value"))


def _compare(actual, op: str, value) -> bool:
    if op == "eq":
        return _same(actual, value)
    if op == "ne":
        return not _same(actual, value)
    if op == "in":
        return any(_same(actual, v) for v in value)
    if op == "contains":
        return isinstance(actual, str) and value in actual
    return _of_kind(actual, "number") and COMPARE[op](actual, value)


def _same(actual, value) -> bool:
    """Equal as JSON compares: true is not 1, 200 is 200.0."""
    return isinstance(actual, bool) == isinstance(value, bool) and actual == value
