"""Reading a package folder: the parts every kind has, then its kind's own part."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

from problems import kinds
from problems.package.fields import (
    choice,
    number,
    phrases,
    read_text,
    read_title,
    require,
    str_list,
    tables,
)
from problems.package.model import (
    CRITERIA,
    MAX_SLUG_CHARS,
    SLUG_RE,
    Clarification,
    Package,
    PackageError,
    RubricCriterion,
)


def _read_clarifications(meta: dict[str, Any], path: Path) -> tuple[Clarification, ...]:
    out = []
    for where, item in tables(meta, "clarification", path):
        question = require(item, "question", str, path, where)
        answer = require(item, "answer", str, path, where)
        out.append(Clarification(
            question, answer, bool(item.get("key", False)),
            also=phrases(item, "also", path, where),
            keywords=phrases(item, "keywords", path, where),
        ))
    return tuple(out)



def _read_rubric(meta: dict[str, Any], path: Path) -> tuple[RubricCriterion, ...]:
    out = []
    for where, item in tables(meta, "rubric", path):
        criterion = choice(
            require(item, "criterion", str, path, where), CRITERIA, path, where + "criterion"
        )
        weight = number(item, "weight", path, where=where, default=1.0)
        if not weight > 0:
            raise PackageError(path, where + "weight", "must be a positive number")
        levels = item.get("levels", [])
        if not (
            isinstance(levels, list)
            and len(levels) == 4
            and all(isinstance(v, str) for v in levels)
        ):
            raise PackageError(path, where + "levels", "must be 4 strings (levels 1..4)")
        strong = require(item, "strong", str, path, where)
        out.append(RubricCriterion(criterion, weight, strong, tuple(levels)))
    return tuple(out)


def package_read(root: Path | str) -> Package:
    """Read and validate the package folder at `root`. Raises PackageError, whose path starts
    at the package's folder (`tiny/tests/public.json`), never above it."""
    root = Path(root)
    try:
        return _package_read(root)
    except PackageError as exc:
        raise exc.relative_to(root.parent) from None


def _package_read(root: Path) -> Package:
    toml_path = root / "problem.toml"
    if not root.is_dir():
        raise PackageError(root, "folder", "not a directory")
    try:
        meta = tomllib.loads(read_text(toml_path))
    except tomllib.TOMLDecodeError as exc:
        raise PackageError(toml_path, "file", f"invalid TOML ({exc})") from exc
    except RecursionError:
        raise PackageError(toml_path, "file", "invalid TOML (nested too deeply)") from None
    except ValueError as exc:  # an integer of more digits than Python converts
        raise PackageError(toml_path, "file", f"invalid TOML ({exc})") from None
    slug = require(meta, "slug", str, toml_path)
    if not SLUG_RE.match(slug):
        raise PackageError(toml_path, "slug", "must be lowercase words joined by '-'")
    if len(slug) > MAX_SLUG_CHARS:
        raise PackageError(toml_path, "slug", f"longer than {MAX_SLUG_CHARS} characters")
    if slug != root.name:
        raise PackageError(
            toml_path, "slug", f"{slug!r} differs from the folder name {root.name!r}"
        )
    kind = choice(meta.get("kind", kinds.DEFAULT), kinds.names(), toml_path, "kind")
    common = {
        "slug": slug,
        "title": read_title(meta, toml_path),
        "difficulty": choice(
            meta.get("difficulty", "medium"), ("easy", "medium", "hard"), toml_path, "difficulty"
        ),
        "queue": choice(meta.get("queue", "cpu"), ("cpu", "gpu"), toml_path, "queue"),
        "kind": kind,
        "topics": str_list(meta, "topics", toml_path),
        "hints": str_list(meta, "hints", toml_path),
        "follow_ups": str_list(meta, "follow_ups", toml_path),
        "statement_md": read_text(root / "statement.md"),
        "clarifications": _read_clarifications(meta, toml_path),
        "rubric": _read_rubric(meta, toml_path),
    }
    return kinds.kind_of(kind).part().read(root, meta, toml_path, common)
