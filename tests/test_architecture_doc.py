"""docs/architecture.md tells the truth about the tree (issue 37.7).

The rules, as the doc's Layout section states them:

* every path the doc writes in backticks, from a top-level folder of the repository
  (`grading/judge.py`, `frontend/js/board/`, `problems/bank/<slug>/`), exists (a `<name>`
  placeholder matches any one name);
* every dotted name it writes from an app (`grading.visible.graded_test_view`,
  `core.roles.may_end_session`) imports and has that attribute;
* the Layout section names every Python module of the apps (config, core, problems, grading,
  studio, interviews, loops, frontend, sandbox) by its path from the repository root, one table row
  each; a package's `__init__.py`, migrations and `problems/bank/` are out.
"""

from __future__ import annotations

import importlib
import re
from pathlib import Path

from tests.processes import ROOT

DOC = ROOT / "docs" / "architecture.md"
APPS = ("config", "core", "problems", "grading", "studio", "interviews", "loops", "frontend",
        "sandbox")
# Built by `node build.mjs` (frontend/build.mjs), not kept in git: named, never checked.
GENERATED = ("frontend/static/frontend/",)
# A file named by itself (`studio.js`, the bundle) is not an attribute.
FILE_SUFFIXES = (".js", ".css", ".py", ".json", ".toml", ".md", ".html", ".svg")
SPAN = re.compile(r"`([^`\n]+)`")
PATH = re.compile(r"[\w.<>*-]+(?:/[\w.<>*-]*)+")
DOTTED = re.compile(rf"((?:{'|'.join(APPS)})(?:\.\w+)+)(?:\(.*\))?")


def doc_text() -> str:
    return DOC.read_text()


def section(text: str, title: str) -> str:
    start = text.index(f"\n## {title}\n")
    end = text.find("\n## ", start + 1)
    return text[start : end if end != -1 else len(text)]


def spans(text: str) -> list[str]:
    return [span.strip() for span in SPAN.findall(text)]


def repo_paths(text: str) -> list[str]:
    """The backticked paths that start at a top-level folder of the repository."""
    tops = {entry.name for entry in ROOT.iterdir() if entry.is_dir()}
    found = []
    for span in spans(text):
        if PATH.fullmatch(span) and span.split("/", 1)[0] in tops:
            found.append(span)
    return found


def path_exists(path: str) -> bool:
    pattern = re.sub(r"<[^>]*>", "*", path.rstrip("/"))
    if "*" not in pattern:
        return (ROOT / pattern).exists()
    return any(ROOT.glob(pattern))


def modules() -> list[str]:
    """Every Python module of the apps the Layout must name, as a path from the root."""
    found = []
    for app in APPS:
        for path in sorted((ROOT / app).rglob("*.py")):
            relative = path.relative_to(ROOT).as_posix()
            if (
                path.name == "__init__.py"
                or "/migrations/" in relative
                or relative.startswith("problems/bank/")
                or "/node_modules/" in relative
            ):
                continue
            found.append(relative)
    return found


def resolves(dotted: str) -> bool:
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            target: object = importlib.import_module(".".join(parts[:cut]))
        except ModuleNotFoundError:
            continue
        for attribute in parts[cut:]:
            if not hasattr(target, attribute):
                return False
            target = getattr(target, attribute)
        return True
    return False


def test_every_path_the_doc_names_exists() -> None:
    missing = sorted(
        {
            path
            for path in repo_paths(doc_text())
            if not path.startswith(GENERATED) and not path_exists(path)
        }
    )
    assert missing == [], (
        "docs/architecture.md names paths that do not exist (fix the doc, or the path):\n"
        + "\n".join(missing)
    )


def test_every_dotted_name_the_doc_writes_resolves() -> None:
    importlib.import_module("config.urls")  # the app's own import order (DRF's settings first)
    names = {
        match[1]
        for span in spans(doc_text())
        if (match := DOTTED.fullmatch(span)) and not span.endswith(FILE_SUFFIXES)
    }
    assert names, "the doc names no app attribute: has the pattern stopped matching?"
    wrong = sorted(name for name in names if not resolves(name))
    assert wrong == [], "docs/architecture.md names things the code does not have:\n" + "\n".join(
        wrong
    )


def test_the_layout_names_every_module() -> None:
    named = set(repo_paths(section(doc_text(), "Layout")))
    unnamed = [module for module in modules() if module not in named]
    assert unnamed == [], (
        "docs/architecture.md's Layout does not name these modules; add a row to its app's "
        "table, `| `<path>` | what it is |`, for each:\n" + "\n".join(unnamed)
    )


def test_the_layout_names_no_module_that_is_gone() -> None:
    layout = repo_paths(section(doc_text(), "Layout"))
    named = [path for path in layout if path.endswith(".py") and "<" not in path]
    gone = sorted(path for path in named if not (ROOT / path).is_file())
    assert gone == [], "the Layout names modules that are gone:\n" + "\n".join(gone)


def test_no_backticked_name_breaks_across_lines() -> None:
    """A name split over two lines would slip past the checks above (and reads badly)."""
    broken, fenced = [], False
    for number, line in enumerate(doc_text().splitlines(), start=1):
        if line.startswith("```"):
            fenced = not fenced
        elif not fenced and line.count("`") % 2:
            broken.append(f"line {number}: {line}")
    assert broken == [], "a backticked name breaks across lines:\n" + "\n".join(broken)


def test_the_checks_see_what_they_should(tmp_path: Path) -> None:
    text = (
        "\n## Layout\n\n| `grading/judge.py` | x |\n| `grading/nowhere.py` | y |\n"
        "`problems/bank/<slug>/` `core.roles.may_end_session` `core.roles.no_such_rule`\n"
        "## Next\n`core/elsewhere.py`\n"
    )
    assert repo_paths(section(text, "Layout")) == [
        "grading/judge.py",
        "grading/nowhere.py",
        "problems/bank/<slug>/",
    ]
    assert path_exists("problems/bank/<slug>/") and not path_exists("grading/nowhere.py")
    assert resolves("core.roles.may_end_session") and not resolves("core.roles.no_such_rule")
    assert "grading/judge.py" in modules() and "grading/__init__.py" not in modules()
