"""Python language layer: RestrictedPython with the full guard set.

Runs only inside a sandbox child. RestrictedPython is a language filter, not a boundary: it gives
good error messages and blocks the easy attacks (imports, dunder walks, eval, files); the process
layer around it is what contains anything that slips through.
"""

from __future__ import annotations

import ast
import operator
import re
import sys
from types import ModuleType, SimpleNamespace
from typing import Any

from RestrictedPython import RestrictingNodeTransformer, compile_restricted_exec
from RestrictedPython.Eval import default_guarded_getitem
from RestrictedPython.Guards import (
    full_write_guard,
    guarded_iter_unpack_sequence,
    guarded_unpack_sequence,
    safe_builtins,
    safer_getattr_raise,
)

from sandbox.limits import (
    HIDDEN_MODULE_ATTRS,
    MAX_ERROR_CHARS,
    MAX_SOURCE_CHARS,
    MAX_STDOUT_CHARS,
    PYTHON_IMPORTS,
    TRUNCATION_MARKER,
)
from sandbox.outcome import cap_text

FILENAME = "<evaluator>"
ENTRY = "exec_evaluation"
_LINE_RE = re.compile(r"^Line (\d+|None): (.*)$", re.S)


class EvalOutput:
    """The result type Coze Loop evaluators return: EvalOutput(score, reason)."""

    __slots__ = ("score", "reason")

    def __init__(self, score: float | None = None, reason: str = "") -> None:
        self.score = score
        self.reason = reason

    def __repr__(self) -> str:
        return f"EvalOutput(score={self.score!r}, reason={self.reason!r})"


def evaluator_class(name: str, bases: tuple, namespace: dict, **kwds: Any) -> type:
    """What every `class` statement in user code calls (RestrictedPython's `__metaclass__`):
    the class as its bases' own metaclass makes it (so `class C(enum.Enum)` works), and an
    ordinary class is marked so its instances accept attribute writes.

    full_write_guard refuses writes to every object that does not carry `_guarded_writes`; user
    code cannot spell that name, so marking user classes here keeps `self.x = 1` working while
    module, builtin and sandbox objects (and enum members) stay read-only.
    """
    meta = _metaclass(bases)
    cls = meta(name, bases, namespace, **kwds)
    if meta is type:
        type.__setattr__(cls, "_guarded_writes", True)
    return cls


def _metaclass(bases: tuple) -> type:
    """The most derived metaclass of the bases, as `class` would pick it."""
    winner = type
    for base in bases:
        candidate = type(base)
        if issubclass(candidate, winner):
            winner = candidate
    return winner


# a class body is prepared by the chosen metaclass too (an Enum's needs its own namespace)
evaluator_class.__prepare__ = lambda name, bases, **kwds: _metaclass(bases).__prepare__(
    name, bases, **kwds
)


# ---------------------------------------------------------------- compile and static checks


class EvaluatorPolicy(RestrictingNodeTransformer):
    """RestrictedPython's policy, plus annotated assignments to a plain name (`score: float =
    1.0`, dataclass fields): the name and the annotation are checked like any other. An
    annotated attribute or item (`self.x: int = 1`) is refused: it would skip the write guard."""

    def visit_AnnAssign(self, node: ast.AnnAssign) -> ast.AST:
        if not isinstance(node.target, ast.Name):
            self.error(
                node, "Annotate a plain name; annotated attributes and items are not allowed."
            )
            return node
        return self.node_contents_visit(node)


def compile_source(source: str) -> tuple[Any, list[dict[str, Any]]]:
    """Compile user source with RestrictedPython; return (code, errors) with user line numbers."""
    if not isinstance(source, str) or not source.strip():
        return None, [{"line": None, "message": "source is empty"}]
    if len(source) > MAX_SOURCE_CHARS:
        return None, [{"line": None, "message": f"source exceeds {MAX_SOURCE_CHARS} characters"}]
    try:
        # dont_inherit: our own `from __future__ import annotations` must not turn the user's
        # annotations into strings (dataclasses would then look them up by module name)
        result = compile_restricted_exec(
            source, FILENAME, dont_inherit=True, policy=EvaluatorPolicy
        )
    except (RecursionError, MemoryError):
        return None, [{"line": None, "message": "source is nested too deeply to compile"}]
    except ValueError as exc:  # e.g. NUL bytes in the source
        return None, [{"line": None, "message": str(exc)}]
    errors = [_parse_compile_error(text) for text in result.errors]
    if not errors:
        errors = static_errors(ast.parse(source, FILENAME))
    return (None if errors else result.code), errors


def _parse_compile_error(text: str) -> dict[str, Any]:
    match = _LINE_RE.match(text)
    if not match:
        return {"line": None, "message": text}
    line = None if match.group(1) == "None" else int(match.group(1))
    return {"line": line, "message": match.group(2)}


def static_errors(tree: ast.Module) -> list[dict[str, Any]]:
    """Imports outside the allow-list, and a missing top-level exec_evaluation."""
    errors = [_import_error(node) for node in ast.walk(tree) if _bad_import(node)]
    if not any(_defines_entry(node) for node in tree.body):
        errors.append({"line": None, "message": f"{ENTRY}(turn) is not defined"})
    return errors


def _bad_import(node: ast.AST) -> bool:
    if isinstance(node, ast.Import):
        return any(alias.name not in PYTHON_IMPORTS for alias in node.names)
    if isinstance(node, ast.ImportFrom):
        hidden = HIDDEN_MODULE_ATTRS.get(node.module or "", frozenset())
        names = {alias.name for alias in node.names}
        return node.level != 0 or node.module not in PYTHON_IMPORTS or bool(names & hidden)
    return False


def _import_error(node: ast.Import | ast.ImportFrom) -> dict[str, Any]:
    if isinstance(node, ast.Import):
        name = next(a.name for a in node.names if a.name not in PYTHON_IMPORTS)
    else:
        name = ("." * node.level) + (node.module or "")
    allowed = ", ".join(PYTHON_IMPORTS)
    return {"line": node.lineno, "message": f"import of '{name}' is not allowed ({allowed})"}


def _defines_entry(node: ast.stmt) -> bool:
    if isinstance(node, ast.FunctionDef):
        return node.name == ENTRY
    if isinstance(node, ast.Assign):
        return any(isinstance(t, ast.Name) and t.id == ENTRY for t in node.targets)
    return False


# ---------------------------------------------------------------- guards and globals


def _public_attrs(module: Any, hidden: frozenset) -> dict[str, Any]:
    names = getattr(module, "__all__", None) or [n for n in dir(module) if not n.startswith("_")]
    attrs = {n: getattr(module, n) for n in names if hasattr(module, n) and n not in hidden}
    # A module-valued attribute (statistics.sys, json.decoder.re, ...) would open a path to
    # sys.modules; only plain functions, classes and constants are exposed.
    return {n: v for n, v in attrs.items() if type(v) is not type(re)}


def _load_modules() -> dict[str, dict[str, Any]]:
    tables = {}
    for name in PYTHON_IMPORTS:
        module = __import__(name)
        tables[name] = _public_attrs(module, HIDDEN_MODULE_ATTRS.get(name, frozenset()))
    return tables


MODULE_TABLES = _load_modules()


def guarded_import(
    name: str, globals: Any = None, locals: Any = None, fromlist: Any = (), level: int = 0
) -> SimpleNamespace:
    """The only `__import__` user code gets: a fresh read-only view of an allowed module."""
    if level != 0 or name not in MODULE_TABLES:
        allowed = ", ".join(PYTHON_IMPORTS)
        raise ImportError(f"import of '{name}' is not allowed ({allowed})")
    for attr in fromlist or ():
        if attr not in MODULE_TABLES[name]:
            raise ImportError(f"cannot import name '{attr}' from '{name}'")
    return SimpleNamespace(**MODULE_TABLES[name])


_INPLACE = {
    "+=": operator.iadd,
    "-=": operator.isub,
    "*=": operator.imul,
    "/=": operator.itruediv,
    "//=": operator.ifloordiv,
    "%=": operator.imod,
    "**=": operator.ipow,
    "<<=": operator.ilshift,
    ">>=": operator.irshift,
    "&=": operator.iand,
    "|=": operator.ior,
    "^=": operator.ixor,
    "@=": operator.imatmul,
}


def guarded_inplacevar(op: str, target: Any, value: Any) -> Any:
    """`x op= y` for the ordinary operators (RestrictedPython ships no such hook)."""
    func = _INPLACE.get(op)
    if func is None:
        raise SyntaxError(f"augmented assignment '{op}' is not allowed")
    return func(target, value)


def guarded_apply(func: Any, *args: Any, **kwargs: Any) -> Any:
    """`f(*args, **kwargs)`; iteration is not guarded here, so plain application is enough."""
    return func(*args, **kwargs)


def _getiter(ob: Any) -> Any:
    return ob


_EXTRA_BUILTINS = {
    "min": min,
    "max": max,
    "sum": sum,
    "any": any,
    "all": all,
    "abs": abs,
    "len": len,
    "round": round,
    "sorted": sorted,
    "reversed": reversed,
    "list": list,
    "dict": dict,
    "set": set,
    "frozenset": frozenset,
    "tuple": tuple,
    "enumerate": enumerate,
    "zip": zip,
    "range": range,
    "map": map,
    "filter": filter,
    "str": str,
    "int": int,
    "float": float,
    "bool": bool,
    "isinstance": isinstance,
    "iter": iter,
    "next": next,
    "divmod": divmod,
    "ValueError": ValueError,
    "TypeError": TypeError,
    "KeyError": KeyError,
    "Exception": Exception,
}

BUILTINS = {
    **{k: v for k, v in safe_builtins.items() if k not in ("setattr", "delattr")},
    **_EXTRA_BUILTINS,
    "__import__": guarded_import,
}

# User classes live in the module "evaluator"; dataclasses looks a class's module up in
# sys.modules (to tell ClassVar/InitVar annotations, which RestrictedPython leaves as strings).
sys.modules.setdefault("evaluator", ModuleType("evaluator"))

BASE_GLOBALS = {
    "__name__": "evaluator",
    "__metaclass__": evaluator_class,
    # The raising variant: plain safer_getattr answers None for a missing attribute.
    "_getattr_": safer_getattr_raise,
    "_getitem_": default_guarded_getitem,
    "_getiter_": _getiter,
    "_iter_unpack_sequence_": guarded_iter_unpack_sequence,
    "_unpack_sequence_": guarded_unpack_sequence,
    "_write_": full_write_guard,
    "_inplacevar_": guarded_inplacevar,
    "_apply_": guarded_apply,
    "EvalOutput": EvalOutput,
}


# ---------------------------------------------------------------- captured print


class Output:
    """Per-turn stdout: keeps the first MAX_STDOUT_CHARS characters, then marks the cut."""

    __slots__ = ("parts", "size", "truncated")

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.size = 0
        self.truncated = False

    def write(self, text: str) -> None:
        """Append text unless the cap is reached (later text is dropped, never buffered)."""
        room = MAX_STDOUT_CHARS - self.size
        if room <= 0:
            self.truncated = True
            return
        if len(text) > room:
            text, self.truncated = text[:room], True
        self.parts.append(text)
        self.size += len(text)

    def text(self) -> str:
        """Everything printed so far, with the truncation marker if output was cut."""
        joined = "".join(self.parts)
        return joined + TRUNCATION_MARKER if self.truncated else joined

    def scope(self, _getattr_: Any = None) -> PrintScope:
        """The `_print_` factory RestrictedPython calls at the top of every function."""
        return PrintScope(self)


class PrintScope:
    """What RestrictedPython rewrites `print(...)` and `printed` into."""

    __slots__ = ("output",)

    def __init__(self, output: Output) -> None:
        self.output = output

    def _call_print(
        self,
        *objects: Any,
        sep: str | None = " ",
        end: str | None = "\n",
        file: Any = None,
        flush: bool = False,
    ) -> None:
        if file is not None:
            raise TypeError("print(file=...) is not supported in evaluators")
        print(*objects, sep=sep, end=end, file=self.output)

    def __call__(self) -> str:
        return self.output.text()


# ---------------------------------------------------------------- running a turn


def describe_error(exc: BaseException) -> str:
    """'line N: Type: message', N being the line in the user's source where it was raised."""
    line = None
    tb = exc.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == FILENAME:
            line = tb.tb_lineno
        tb = tb.tb_next
    try:
        message = str(exc)
    except Exception:  # a user exception whose __str__ fails
        message = ""
    text = f"{type(exc).__name__}: {message}" if message else type(exc).__name__
    return cap_text(f"line {line}: {text}" if line else text, MAX_ERROR_CHARS)


def split_result(result: Any) -> tuple[Any, Any]:
    """(score, reason) from EvalOutput, a dict, an object with score/reason, a number or bool."""
    if isinstance(result, bool):
        return float(result), ""
    if isinstance(result, int | float):
        return result, ""
    if isinstance(result, dict):
        if "score" not in result:
            raise ValueError("the returned dict has no 'score'")
        return result["score"], _reason_or_empty(result.get("reason"))
    if hasattr(result, "score"):
        return result.score, _reason_or_empty(getattr(result, "reason", ""))
    raise ValueError(
        f"{ENTRY} must return EvalOutput(score, reason), a dict with 'score' and 'reason', "
        f"a number or a bool; got {type(result).__name__}"
    )


def _reason_or_empty(reason: Any) -> Any:
    return "" if reason is None else reason


class PythonEvaluator:
    """One compiled evaluator; `run` executes it on a turn with brand-new globals."""

    def __init__(self, code: Any) -> None:
        self.code = code

    def run(self, turn: Any) -> tuple[str, Any, Any, str, str]:
        """Run one turn: (status, score, reason, stdout, error); the score is not yet validated."""
        output = Output()
        env = BASE_GLOBALS.copy()
        env["__builtins__"] = BUILTINS.copy()
        env["_print_"] = output.scope
        try:
            exec(self.code, env)
            entry = env.get(ENTRY)
            if not callable(entry):
                return "error", None, "", output.text(), f"{ENTRY}(turn) is not defined"
            score, reason = split_result(entry(turn))
        except MemoryError:
            return "memory", None, "", output.text(), "MemoryError: memory limit exceeded"
        except BaseException as exc:  # noqa: B036 - user code may raise anything, even SystemExit
            return "error", None, "", output.text(), describe_error(exc)
        return "ok", score, reason, output.text(), ""
