"""JMESPath with bounded work: a user's expression over an untrusted answer, in the web (Test
request) and the worker, can neither build a value past a cap nor run without end.

The `jmespath` library evaluates with no limits: `join('', [@, @])` doubles a string, so 27 of
them in a 411-character expression grew a process by 513 MB in half a second, and nested
`[@, @]` lists make values whose JSON text is exponential in the expression's length. Here the
library's interpreter and functions are kept, with checks as values are built:

- **steps**: every node the interpreter visits, and every node a size check walks, counts;
  past `steps` the search stops;
- **built**: the size of every value a node answers (a string's characters, a list's or
  object's entries, about 8 bytes each) adds up; past `built` the search stops, so an expression
  that keeps making large values (in a projection, say) stops too;
- **value**: the functions and the flatten that can make a value larger than their inputs
  (`join`, `to_string`, `[]`) are refused *before* building one past `value` bytes, and so are
  comparisons and `contains` whose operands are that large as JSON (Python compares shared
  sub-lists again each time they occur), and the result itself, which the caller writes as JSON;
- **seconds**: checked every thousand steps, a last resort against a slow built-in.

Any limit reached raises `TooMuchWork`, naming it. Pure Python besides `jmespath`.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import jmespath
from jmespath import functions, visitor

from .caps import EXTRACT_BUILT_BYTES, EXTRACT_SECONDS, EXTRACT_STEPS, EXTRACT_VALUE_BYTES


@dataclass(frozen=True)
class Limits:
    """How much one search may do (defaults: `caps.EXTRACT_*`)."""

    value_bytes: int = EXTRACT_VALUE_BYTES
    built: int = EXTRACT_BUILT_BYTES
    steps: int = EXTRACT_STEPS
    seconds: float = EXTRACT_SECONDS


class TooMuchWork(ValueError):
    """The expression went past one of its limits (the message names it)."""


def search(expression: str, data: Any, limits: Limits | None = None) -> Any:
    """`jmespath.search(expression, data)` under `limits`; TooMuchWork past one of them
    (and on an answer or expression nested too deeply to walk). The library's own errors
    (a bad expression, a function given the wrong type) are raised as they are."""
    budget = _Budget(limits or Limits())
    try:
        parsed = jmespath.compile(expression)
        found = _Interpreter(budget).visit(parsed.parsed, data)
        budget.weigh(found, "the result")
    except RecursionError:
        raise TooMuchWork("the answer or the expression is nested too deeply") from None
    return found


class _Budget:
    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        self.steps = 0
        self.built = 0
        self.last: Any = None  # held, so its id is not reused while compared
        self.deadline = time.monotonic() + limits.seconds

    def step(self, count: int = 1) -> None:
        before, self.steps = self.steps, self.steps + count
        if self.steps > self.limits.steps:
            raise TooMuchWork(f"the expression took more than {self.limits.steps:,} steps")
        if before // 1000 != self.steps // 1000 and time.monotonic() > self.deadline:
            raise TooMuchWork(f"the expression ran longer than {self.limits.seconds:g} s")

    def charge(self, value: Any) -> None:
        """Count a value a node answered (1 a character, 8 an entry), unless it is the one
        counted last: a path, pipe or function argument hands its child's value on."""
        if value is self.last or not isinstance(value, str | list | dict):
            return
        self.last = value
        self.built += len(value) if isinstance(value, str) else 8 * len(value)
        if self.built > self.limits.built:
            raise TooMuchWork(
                f"the expression made more than {self.limits.built:,} bytes of values"
            )

    def allow(self, size: int, what: str) -> None:
        if size > self.limits.value_bytes:
            raise TooMuchWork(f"{what} would be larger than {self.limits.value_bytes:,} bytes")

    def weigh(self, value: Any, what: str) -> None:
        """TooMuchWork when `value` is longer than the value limit as JSON; each node walked
        to find out is a step."""
        self.allow(self.json_size(value), what)

    def json_size(self, value: Any) -> int:
        size, walked = json_size(value, self.limits.value_bytes, self.limits.steps - self.steps)
        self.step(walked)
        return size


def json_size(value: Any, limit: int, max_nodes: int) -> tuple[int, int]:
    """(about how many bytes `value` takes as JSON, nodes walked), counting a shared part each
    time it occurs (as JSON writes it); the walk stops once past `limit` bytes or `max_nodes`."""
    size, stack, walked = 0, [value], 0
    while stack and size <= limit and walked <= max_nodes:
        item = stack.pop()
        walked += 1
        if isinstance(item, str):
            size += len(item) + 2
        elif isinstance(item, dict):
            size += 2 + sum(len(key) + 4 for key in item)
            stack.extend(item.values())
        elif isinstance(item, list):
            size += 2 + len(item)
            stack.extend(item)
        else:
            size += 8
    return size, walked


class _Interpreter(visitor.TreeInterpreter):
    """The library's interpreter, counting every node and the size of what it answers."""

    def __init__(self, budget: _Budget) -> None:
        super().__init__(visitor.Options(custom_functions=_Functions(budget)))
        self.budget = budget

    def visit(self, node, *args, **kwargs):
        self.budget.step()
        found = super().visit(node, *args, **kwargs)
        self.budget.charge(found)
        return found

    def visit_comparator(self, node, value):
        if node["value"] not in self._EQUALITY_OPS:
            return super().visit_comparator(node, value)
        left = self.visit(node["children"][0], value)
        right = self.visit(node["children"][1], value)
        _comparable(self.budget, left, right)
        return self.COMPARATOR_FUNC[node["value"]](left, right)

    def visit_flatten(self, node, value):
        base = self.visit(node["children"][0], value)
        if not isinstance(base, list):
            return None
        self.budget.step(len(base))
        entries = sum(len(e) if isinstance(e, list) else 1 for e in base)
        self.budget.allow(8 * entries, "a flattened list")
        merged: list = []
        for element in base:
            if isinstance(element, list):
                merged.extend(element)
            else:
                merged.append(element)
        return merged


def _comparable(budget: _Budget, left: Any, right: Any) -> None:
    """Comparing two values costs up to the smaller one's size as JSON: refused when both are
    larger than the value limit."""
    limit = budget.limits.value_bytes
    if budget.json_size(left) > limit and budget.json_size(right) > limit:
        budget.allow(limit + 1, "a comparison")


class _Functions(functions.Functions):
    """The built-in functions; those that make a value larger than their inputs, or compare
    whole values, check the size first."""

    def __init__(self, budget: _Budget) -> None:
        super().__init__()
        self.budget = budget

    @functions.signature({"types": ["string"]}, {"types": ["array-string"]})
    def _func_join(self, separator, array):
        size = sum(len(s) for s in array) + len(separator) * max(0, len(array) - 1)
        self.budget.step(len(array))
        self.budget.allow(size, "join()'s string")
        return separator.join(array)

    @functions.signature({"types": []})
    def _func_to_string(self, arg):
        if isinstance(arg, str):
            return arg
        self.budget.weigh(arg, "to_string()'s string")
        return super()._func_to_string(arg)

    @functions.signature({"types": ["array", "string"]}, {"types": []})
    def _func_contains(self, subject, search):
        if isinstance(subject, list):
            self.budget.weigh(subject, "contains()'s array")
        return super()._func_contains(subject, search)
