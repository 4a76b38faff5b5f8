"""A code package's checks across its parts: unique test names, inputs within the declared
constraints, sources that compile, a driver's input check, a coverage map naming its tests."""

from __future__ import annotations

import ast
from pathlib import Path

from problems.constraints import violations_in_tests
from problems.package.coverage import coverage_read
from problems.package.model import Package, PackageError


def check_constraints(package: Package, root: Path) -> None:
    """Every test input obeys the declared constraints (the first few that do not are named)."""
    lists = (("public.json", package.public_tests), ("hidden.json", package.hidden_tests))
    for name, tests in lists:
        if problems := violations_in_tests(package.constraints, tests):
            more = f" (and {len(problems) - 3} more)" if len(problems) > 3 else ""
            raise PackageError(
                root / "tests" / name, "input", "; ".join(problems[:3]) + more
            )


def driver_input_check(driver_code: str) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    """A custom driver's own input check: its top-level `check_input`, read, never run (the
    last definition wins, as at import). None when it has none or does not compile."""
    try:
        tree = ast.parse(driver_code)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    found: ast.stmt | None = None
    for node in tree.body:
        kinds = ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef
        if isinstance(node, kinds) and node.name == "check_input":
            found = node
    return found if isinstance(found, ast.FunctionDef | ast.AsyncFunctionDef) else None


def check_input_check_signature(package: Package, root: Path) -> None:
    """A driver's check_input is called with one test's input and nothing else."""
    node = driver_input_check(package.driver_code)
    if node is None:
        return
    args = node.args
    positional = [*args.posonlyargs, *args.args]
    required = len(positional) - len(args.defaults)
    kw_required = [a for a, d in zip(args.kwonlyargs, args.kw_defaults, strict=True) if d is None]
    if (
        isinstance(node, ast.AsyncFunctionDef)
        or kw_required
        or not (required == 1 or (required == 0 and (positional or args.vararg)))
    ):
        raise PackageError(
            root / "driver.py",
            f"line {node.lineno}",
            "check_input must be a plain function taking one argument (a test's input) and "
            "returning a sentence saying what is wrong with it, or None",
        )


def check_coverage(package: Package, root: Path) -> None:
    """A coverage.toml, where the folder has one, must name only this package's tests (the
    bank test requires one per bank problem; a studio draft may have none)."""
    names = {t.name for t in package.public_tests + package.hidden_tests}
    coverage_read(root, test_names=names, required=False)


def check_unique_names(package: Package, root: Path) -> None:
    seen: set[str] = set()
    for test in package.public_tests + package.hidden_tests:
        if test.name in seen:
            where = "hidden.json" if test.hidden else "public.json"
            raise PackageError(root / "tests" / where, "name", f"duplicate test name {test.name!r}")
        seen.add(test.name)


def check_sources_compile(package: Package, root: Path) -> None:
    sources = {
        "starter.py": package.starter_code,
        "reference.py": package.reference_code,
        "driver.py": package.driver_code,
        "checker.py": package.checker_code,
        "support.py": package.support_code,
    }
    sources.update({w.file: w.code for w in package.wrong})
    for name, code in sources.items():
        try:
            compile(code, name, "exec")
        except SyntaxError as exc:
            raise PackageError(
                root / name, f"line {exc.lineno}", f"syntax error: {exc.msg}"
            ) from exc
        except (ValueError, RecursionError, MemoryError) as exc:  # a NUL byte, absurd nesting
            raise PackageError(root / name, "file", f"not Python source ({exc})") from None

