"""Inputs checked when saved (issue 28, point 5): does a test's input fit the driver's entry?

The reference is read, never run: its entry's signature (found with `ast`) says how many
arguments it takes and, where annotated with a plain type (`int`, `list[int]`, `str`, ...),
which JSON type each must be. A `function` driver's input is `{"args": [...], "kwargs":
{...}}`; an `ops` driver's is `{"init": [...], "ops": [["method", arg, ...], ...]}`, each
method looked up on the entry class. A custom driver defines its own input: the studio only
requires JSON there (its driver runs in the sandbox, not here).

Each function returns the first problem found as a sentence, or "" when the input fits.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from problems.package import Package

# A plain annotation and the JSON values it accepts.
_JSON_TYPES: dict[str, tuple[str, tuple[type, ...]]] = {
    "int": ("an integer", (int,)),
    "float": ("a number", (int, float)),
    "str": ("a string", (str,)),
    "bool": ("true or false", (bool,)),
    "list": ("a list", (list,)),
    "List": ("a list", (list,)),
    "tuple": ("a list", (list,)),
    "Tuple": ("a list", (list,)),
    "Sequence": ("a list", (list,)),
    "dict": ("an object", (dict,)),
    "Dict": ("an object", (dict,)),
    "Mapping": ("an object", (dict,)),
}


@dataclass(frozen=True)
class Param:
    name: str
    annotation: str  # the plain type name, or "" when none we can check
    has_default: bool


@dataclass(frozen=True)
class Signature:
    positional: tuple[Param, ...]
    keyword_only: tuple[Param, ...]
    varargs: bool
    varkw: bool


def _annotation(node: ast.expr | None) -> str:
    if isinstance(node, ast.Subscript):
        node = node.value
    if isinstance(node, ast.Attribute):
        return node.attr if node.attr in _JSON_TYPES else ""
    if isinstance(node, ast.Name) and node.id in _JSON_TYPES:
        return node.id
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value if node.value in _JSON_TYPES else ""
    return ""


def _signature(func: ast.FunctionDef | ast.AsyncFunctionDef, *, method: bool) -> Signature:
    args = func.args
    positional = [*args.posonlyargs, *args.args]
    if method and positional:
        positional = positional[1:]  # self
    first_default = len(positional) - len(args.defaults)
    return Signature(
        positional=tuple(
            Param(a.arg, _annotation(a.annotation), i >= first_default)
            for i, a in enumerate(positional)
        ),
        keyword_only=tuple(
            Param(a.arg, _annotation(a.annotation), d is not None)
            for a, d in zip(args.kwonlyargs, args.kw_defaults, strict=True)
        ),
        varargs=args.vararg is not None,
        varkw=args.kwarg is not None,
    )


def _type_problem(param: Param, value: Any) -> str:
    if not param.annotation:
        return ""
    what, types = _JSON_TYPES[param.annotation]
    ok = isinstance(value, types) and not (isinstance(value, bool) and bool not in types)
    return "" if ok else f"argument {param.name!r} must be {what}, got {_json_kind(value)}"


def _json_kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true/false"
    return {int: "an integer", float: "a number", str: "a string", list: "a list",
            dict: "an object"}.get(type(value), type(value).__name__)  # fmt: skip


def call_problem(sig: Signature, args: Sequence[Any], kwargs: Mapping[str, Any], who: str) -> str:
    """Whether `who(*args, **kwargs)` binds to `sig`, and each bound value's JSON type."""
    if len(args) > len(sig.positional) and not sig.varargs:
        return (f"{who} takes {len(sig.positional)} positional argument(s), "
                f"the input gives {len(args)}")  # fmt: skip
    bound: dict[str, Any] = {}
    for param, value in zip(sig.positional, args, strict=False):
        bound[param.name] = value
    named = {p.name: p for p in (*sig.positional, *sig.keyword_only)}
    for key, value in kwargs.items():
        if key in bound:
            return f"{who} gets argument {key!r} twice"
        if key not in named and not sig.varkw:
            return f"{who} has no argument {key!r}"
        bound[key] = value
    for param in (*sig.positional, *sig.keyword_only):
        if param.name not in bound and not param.has_default:
            return f"{who} needs argument {param.name!r}, the input does not give it"
        if param.name in bound and (problem := _type_problem(param, bound[param.name])):
            return f"{who}: {problem}"
    return ""


def _entry(tree: ast.Module, name: str) -> ast.stmt | None:
    found = None
    for node in tree.body:  # the last definition wins, as at import
        kinds = ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef
        if isinstance(node, kinds) and node.name == name:
            found = node
    return found


def _methods(cls: ast.ClassDef) -> dict[str, ast.FunctionDef | ast.AsyncFunctionDef]:
    return {n.name: n for n in cls.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)}


def _function_input(tree: ast.Module, entry: str, value: Any) -> str:
    if not isinstance(value, dict) or set(value) - {"args", "kwargs"}:
        return 'a function driver\'s input is {"args": [...], "kwargs": {...}}'
    args, kwargs = value.get("args", []), value.get("kwargs", {})
    if not isinstance(args, list) or not isinstance(kwargs, dict):
        return '"args" must be a list and "kwargs" an object'
    node = _entry(tree, entry)
    if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
        return ""  # no plain function to read (a callable object, a re-export): nothing to check
    return call_problem(_signature(node, method=False), args, kwargs, f"{entry}()")


def _ops_input(tree: ast.Module, entry: str, value: Any) -> str:
    if not isinstance(value, dict) or set(value) - {"init", "ops"} or "ops" not in value:
        return 'an ops driver\'s input is {"init": [...], "ops": [["method", arg, ...], ...]}'
    init, ops = value.get("init", []), value["ops"]
    if not isinstance(init, list) or not isinstance(ops, list):
        return '"init" and "ops" must be lists'
    for number, op in enumerate(ops):
        if not isinstance(op, list) or not op or not isinstance(op[0], str):
            return f'op #{number} must be a list starting with a method name, e.g. ["take", 1]'
    node = _entry(tree, entry)
    if not isinstance(node, ast.ClassDef) or node.bases:
        return ""  # inherited methods are not in the source to read
    methods = _methods(node)
    if "__init__" in methods:
        sig = _signature(methods["__init__"], method=True)
        if problem := call_problem(sig, init, {}, f"{entry}()"):
            return f'"init": {problem}'
    for number, (name, *args) in enumerate(ops):
        method = methods.get(name)
        if method is None or name.startswith("_"):
            return f"op #{number}: {entry} has no method {name!r}"
        if problem := call_problem(_signature(method, method=True), args, {}, f"{name}()"):
            return f"op #{number}: {problem}"
    return ""


def input_problem(*, driver: Mapping[str, Any], reference_code: str, test_input: Any) -> str:
    """The first way `test_input` does not fit the driver's entry, or ""."""
    kind, entry = driver.get("kind"), str(driver.get("entry") or "")
    if kind not in ("function", "ops"):
        return ""
    try:
        tree = ast.parse(reference_code)
    except (SyntaxError, ValueError):
        return ""  # the package reader reports a reference that does not compile
    if kind == "function":
        return _function_input(tree, entry, test_input)
    return _ops_input(tree, entry, test_input)


class InputsMismatch(Exception):
    """Tests whose inputs do not fit, by the form field of their list."""

    def __init__(self, problems: dict[str, list[str]]) -> None:
        super().__init__("; ".join(p for ps in problems.values() for p in ps))
        self.problems = problems


def package_inputs_check(package: Package) -> None:
    """Raise InputsMismatch naming each test of `package` whose input does not fit its driver
    (at most a few per list: the first ones say what is wrong)."""
    driver = {"kind": package.grading.driver, "entry": package.grading.entry}
    found: dict[str, list[str]] = {}
    for field, tests in (("public_tests", package.public_tests),
                         ("hidden_tests", package.hidden_tests)):  # fmt: skip
        for number, test in enumerate(tests):
            problem = input_problem(
                driver=driver, reference_code=package.reference_code, test_input=test.input
            )
            if problem and len(found.setdefault(field, [])) < 5:
                found[field].append(f'test "{test.name}" (#{number}): {problem}')
    found = {field: problems for field, problems in found.items() if problems}
    if found:
        raise InputsMismatch(found)
