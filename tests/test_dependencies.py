"""Dependencies run one way: core ← problems ← grading ← {interviews, studio, frontend};
interviews ← loops.

The test reads every app's imports (top level and inside functions), its string model
references ("app.Model") and its migrations' dependencies, and names the file and line of each
that points the wrong way. `sandbox` is a Django-free library: it imports nothing of ours, and
only `grading` and `bench` import it. `config` and `bench` may import anything.

Inside and across apps, modules import without circles (top level or inside a function alike;
an import under `if TYPE_CHECKING:` never runs and does not count). The one accepted circle is
a service that enqueues its own app's task (`<app>.services` importing `<app>.tasks` inside a
function, the task module importing the services it runs).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable, Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# What each app may depend on (besides itself).
ALLOWED: dict[str, set[str]] = {
    "core": set(),
    "problems": {"core"},
    "grading": {"core", "problems", "sandbox"},
    "interviews": {"core", "problems", "grading"},
    "loops": {"core", "problems", "grading", "interviews"},
    "studio": {"core", "problems", "grading"},
    "frontend": {"core", "problems", "grading"},
    "sandbox": set(),
}
OURS = set(ALLOWED) | {"config", "bench", "tests"}
MODEL_REF = re.compile(r"""["']([a-z_]+)\.([A-Z]\w+)["']""")
MIGRATION_DEP = re.compile(r"""\(\s*["']([a-z_]+)["']\s*,\s*["']\d{4}_\w+["']\s*\)""")


def _sources(app: str) -> Iterator[Path]:
    for path in sorted((ROOT / app).rglob("*.py")):
        relative = path.relative_to(ROOT).as_posix()
        # The bank holds candidates' and authors' programs, not our code; the harness runs
        # inside the container.
        if "/bank/" in relative or "/node_modules/" in relative:
            continue
        yield path


def _edges(path: Path) -> Iterator[tuple[int, str, str]]:
    """(line, target app, what) for each reference of `path` to another of our packages."""
    text = path.read_text(encoding="utf-8")
    for node in ast.walk(ast.parse(text)):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module]
        for name in names:
            top = name.split(".")[0]
            if top in OURS:
                yield node.lineno, top, f"import {name}"
    for number, line in enumerate(text.splitlines(), start=1):
        for match in MODEL_REF.finditer(line):
            if match.group(1) in ALLOWED:
                yield number, match.group(1), f"model reference {match.group(0)}"
        if "/migrations/" in path.as_posix():
            for match in MIGRATION_DEP.finditer(line):
                yield number, match.group(1), f"migration dependency {match.group(0)}"


def _violations() -> list[str]:
    found = []
    for app, allowed in ALLOWED.items():
        for path in _sources(app):
            for line, target, what in _edges(path):
                if target != app and target not in allowed:
                    found.append(f"{path.relative_to(ROOT)}:{line}: {app} -> {target} ({what})")
    return found


def test_apps_depend_one_way() -> None:
    assert _violations() == []


def test_only_grading_and_bench_import_the_sandbox_library() -> None:
    importers = set()
    for top in sorted(p.name for p in ROOT.iterdir() if (p / "__init__.py").exists()):
        if top in ("tests", "sandbox"):
            continue
        for path in _sources(top):
            if any(target == "sandbox" for _, target, _ in _edges(path)):
                importers.add(top)
    assert importers <= {"grading", "bench"}


def test_the_checker_names_file_and_line(tmp_path: Path) -> None:
    # The rule itself is tested on a planted file: problems importing grading.
    planted = tmp_path / "planted.py"
    planted.write_text("import os\n\nfrom grading.models import Submission\n", encoding="utf-8")
    assert list(_edges(planted)) == [(3, "grading", "import grading.models")]


# ---------------------------------------------------------------- import circles

CIRCLE_APPS = (*ALLOWED, "config", "bench")


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _modules() -> dict[str, Path]:
    """Every module of ours by dotted name (migrations left out: Django orders them)."""
    return {_module_name(path): path for app in CIRCLE_APPS for path in _sources(app)
            if "/migrations/" not in path.as_posix()}


def _runtime_nodes(tree: ast.AST) -> Iterator[ast.AST]:
    """Every node of `tree` but those under `if TYPE_CHECKING:` (never run)."""
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            yield from (n for child in node.orelse for n in ast.walk(child))
            continue
        yield node
        yield from _runtime_nodes(node)


def _imported(module: str, path: Path, known: Iterable[str]) -> set[str]:
    """The modules of ours that `module` (at `path`) imports, as dotted names in `known`."""
    names = set(known)

    def resolve(name: str) -> str | None:
        while name and name not in names:
            name = name.rpartition(".")[0]
        return name or None

    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    out: set[str] = set()
    for node in _runtime_nodes(ast.parse(path.read_text(encoding="utf-8"))):
        targets: list[str | None] = []
        if isinstance(node, ast.Import):
            targets = [resolve(alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                parts = parts[: len(parts) - (node.level - 1)]
                base = ".".join([*parts, *([node.module] if node.module else [])])
            targets = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in names
                       else resolve(base) for alias in node.names]
        out.update(t for t in targets if t and t != module)
    return out


def _accepted(source: str, target: str) -> bool:
    """A service enqueueing its own app's task: the one accepted circle (tasks import the
    services they run)."""
    app = source.split(".")[0]
    return source.startswith(f"{app}.services") and target == f"{app}.tasks"


def _circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's), sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(graph.get(node, ())):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return sorted(found)


def _import_graph() -> dict[str, set[str]]:
    modules = _modules()
    return {module: {t for t in _imported(module, path, modules) if not _accepted(module, t)}
            for module, path in modules.items()}


def test_no_module_imports_itself_through_others() -> None:
    # Each circle is named by its modules, e.g. ['grading.queueing', 'grading.services',
    # 'grading.worker'] (services → queueing → worker → services).
    assert _circles(_import_graph()) == []


def test_the_circle_checker_finds_a_planted_circle(tmp_path: Path) -> None:
    # Function-level imports count; TYPE_CHECKING imports and the services⇄tasks circle do not.
    (tmp_path / "a.py").write_text(
        "from typing import TYPE_CHECKING\n\nif TYPE_CHECKING:\n    from d import X\n\n"
        "def f():\n    from b import g\n", encoding="utf-8")
    (tmp_path / "b.py").write_text("import a\n", encoding="utf-8")
    (tmp_path / "d.py").write_text("import a\n", encoding="utf-8")
    known = {"a", "b", "d"}
    graph = {name: _imported(name, tmp_path / f"{name}.py", known) for name in sorted(known)}
    assert graph == {"a": {"b"}, "b": {"a"}, "d": {"a"}}
    assert _circles(graph) == [["a", "b"]]
    assert _accepted("interviews.services.invitations", "interviews.tasks")
    assert not _accepted("grading.queueing", "grading.worker")
