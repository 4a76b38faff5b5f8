"""Inputs checked when saved (issue 28, point 5): does a test's input fit the driver's entry?

The reference is read, never run: its entry's signature (found with `ast`) says how many
arguments it takes and, where annotated with a plain type (`int`, `list[int]`, `str`, ...),
which JSON type each must be. A `function` driver's input is `{"args": [...], "kwargs":
{...}}`; an `ops` driver's is `{"init": [...], "ops": [["method", arg, ...], ...]}`, each
method looked up on the entry class. A custom driver defines its own input: when its driver.py
defines `check_input(input)`, that check runs in the sandbox (grading.inputchecks, one
container for all the inputs a save adds or changes; the driver is never imported here); a
driver without one gets JSON-ness alone.

Each function returns the first problem found as a sentence, or "" when the input fits.
"""

from __future__ import annotations

import ast
import json
import logging
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from grading.inputchecks import InputCheckError, driver_inputs_check
from problems.constraints import input_violations
from problems.models import Problem, ProblemVersion
from problems.package import Package, PackageError, driver_input_check
from problems.services import problem_to_package, version_constraints
from studio.services.versions import tests_replaced

logger = logging.getLogger(__name__)

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


def input_key(value: Any) -> str:
    """An input as canonical JSON: what tells a new or changed input from one already checked."""
    return json.dumps(value, sort_keys=True, allow_nan=True)


def inputs_checked_in(version: ProblemVersion | None, package: Package) -> frozenset[str]:
    """The inputs (as input_key) that `version` holds and that need no new check in `package`:
    none unless the package's driver and support module are the very ones it was saved with."""
    if version is None or (version.driver_code, version.support_code) != (
        package.driver_code,
        package.support_code,
    ):
        return frozenset()
    return frozenset(input_key(t["input"]) for t in (*version.public_tests, *version.hidden_tests))


def custom_input_problems(package: Package, inputs: Sequence[Any]) -> list[str]:
    """What `package`'s custom driver's check_input says of each of `inputs` ("" where it fits),
    run in the sandbox in one container. Raises grading.inputchecks.InputCheckError when the
    sandbox does not run."""
    if package.grading.driver != "custom":
        return ["" for _ in inputs]
    return driver_inputs_check(
        driver_code=package.driver_code,
        support_code=package.support_code,
        limits=asdict(package.limits),
        queue=package.queue,
        inputs=inputs,
    )


MAX_SHOWN = 5  # problems named per list: the first ones say what is wrong


def package_inputs_check(package: Package, *, checked: Collection[str] = frozenset()) -> None:
    """Raise InputsMismatch naming each test of `package` whose input does not fit its driver
    (at most a few per list). A custom driver's own check_input runs on every input not in
    `checked` (input_key of inputs already checked with this very driver), all in one sandbox."""
    driver = {"kind": package.grading.driver, "entry": package.grading.entry}
    lists = (("public_tests", package.public_tests), ("hidden_tests", package.hidden_tests))
    found: dict[str, list[str]] = {}

    def note(field: str, number: int, name: str, problem: str) -> None:
        if problem and len(found.setdefault(field, [])) < MAX_SHOWN:
            found[field].append(f'test "{name}" (#{number}): {problem}')

    for field, tests in lists:
        for number, test in enumerate(tests):
            problem = input_problem(
                driver=driver, reference_code=package.reference_code, test_input=test.input
            )
            note(field, number, test.name, problem)
            # The declared constraints (issue 36.10): what the statement promises of inputs.
            for violation in input_violations(package.constraints, test.input):
                note(field, number, test.name, f"breaks the statement's constraints: {violation}")
    if package.grading.driver == "custom" and driver_input_check(package.driver_code) is not None:
        todo = [
            (field, number, test)
            for field, tests in lists
            for number, test in enumerate(tests)
            if input_key(test.input) not in checked
        ]
        problems = custom_input_problems(package, [test.input for _, _, test in todo])
        for (field, number, test), problem in zip(todo, problems, strict=True):
            note(field, number, test.name, problem)
    found = {field: problems for field, problems in found.items() if problems}
    if found:
        raise InputsMismatch(found)


def version_constraint_problem(version: ProblemVersion, test_input: Any) -> str:
    """How one test's input breaks `version`'s declared constraints ("" when it obeys them):
    the statement's promise, checked before the driver is asked (issue 36.10)."""
    return "; ".join(input_violations(version_constraints(version), test_input))


def version_input_problem(version: ProblemVersion, test_input: Any) -> str:
    """How one test's input does not fit `version`'s driver ("" when it fits): the entry's
    signature for function/ops drivers, the custom driver's own check_input (in the sandbox)
    otherwise. Raises grading.inputchecks.InputCheckError when the sandbox does not run."""
    if problem := input_problem(
        driver=version.driver, reference_code=version.reference_code, test_input=test_input
    ):
        return problem
    if version.driver.get("kind") != "custom":
        return ""
    [problem] = driver_inputs_check(
        driver_code=version.driver_code,
        support_code=version.support_code,
        limits=version.limits,
        queue=version.problem.queue,
        inputs=[test_input],
    )
    return problem


def package_load_check(package: Package) -> None:
    """The input check of a package loaded from a folder (`loadproblems`), as a PackageError:
    the inputs its problem's newest version already holds with the same driver are not checked
    again, so loading an unchanged bank starts no sandbox. A sandbox that does not run (a host
    where loadproblems has no Docker) is said on the log and does not stop the load: the bank's
    inputs are checked in-process by its own tests, and each version is validated anyway."""
    newest = ProblemVersion.objects.filter(problem__slug=package.slug).order_by("-number").first()
    try:
        package_inputs_check(package, checked=inputs_checked_in(newest, package))
    except InputsMismatch as exc:
        raise PackageError(
            package.slug, "tests", f"inputs that do not fit the driver: {exc}"
        ) from exc
    except InputCheckError as exc:
        logger.warning("%s: inputs not checked by the driver: %s", package.slug, exc.message)


def tests_save_check(
    *, problem: Problem, public_json: str | None, hidden_json: str | None
) -> Callable[[Package], None]:
    """Check the inputs of a save of the test lists now, outside the save's transaction (the
    sandbox may take seconds): raises InputsMismatch (or PackageError for a malformed list,
    InputCheckError when the sandbox does not run) before anything is written. Returns the
    `check` for version_create, which asks the driver again only about inputs this did not see
    (a concurrent save's, merged in)."""
    newest = problem.versions.order_by("-number").first()
    if newest is None:
        return package_inputs_check
    package = tests_replaced(
        problem_to_package(problem=problem, version=newest),
        public_json=public_json,
        hidden_json=hidden_json,
    )
    package_inputs_check(package, checked=inputs_checked_in(newest, package))
    seen = inputs_checked_in(newest, package) | {
        input_key(t.input) for t in (*package.public_tests, *package.hidden_tests)
    }
    driver = (package.driver_code, package.support_code)

    def check(saved: Package) -> None:
        same_driver = (saved.driver_code, saved.support_code) == driver
        package_inputs_check(saved, checked=seen if same_driver else frozenset())

    return check
