"""Writing a package folder: problem.toml (a small TOML writer) and its kind's own files."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from problems.package.model import Package


def package_write(package: Package, root: Path | str) -> Path:
    """Write `package` as a folder under `root`/<slug>; the inverse of package_read. Its kind's
    package part writes the files."""
    folder: Path = package.kind_spec.part().write(package, Path(root) / package.slug)
    return folder


def meta_dict(package: Package) -> dict[str, Any]:
    return {
        "slug": package.slug,
        "title": package.title,
        "difficulty": package.difficulty,
        "queue": package.queue,
        "kind": package.kind,
        "topics": list(package.topics),
        "hints": list(package.hints),
        "follow_ups": list(package.follow_ups),
        "custom_reference": package.custom_reference,
        "limits": dict(package.limits.__dict__),
        "grading": dict(package.grading.__dict__),
        **({"constraints": [c.as_dict() for c in package.constraints]}
           if package.constraints else {}),
        "wrong": [{k: v for k, v in w.as_dict().items() if k != "code"} for w in package.wrong],
        "clarification": [c.as_dict() for c in package.clarifications],
        "rubric": [
            {
                "criterion": r.criterion,
                "weight": r.weight,
                "strong": r.strong,
                "levels": list(r.levels),
            }
            for r in package.rubric
        ],
    }


def toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)  # a JSON string is a valid TOML basic string
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    raise TypeError(f"cannot write {type(value).__name__} to TOML")


def toml_dump(meta: dict[str, Any]) -> str:
    lines: list[str] = []
    tables: list[tuple[str, dict[str, Any]]] = []
    arrays: list[tuple[str, list[dict[str, Any]]]] = []
    for key, value in meta.items():
        if isinstance(value, dict):
            tables.append((key, value))
        elif isinstance(value, list) and value and isinstance(value[0], dict):
            arrays.append((key, value))
        elif isinstance(value, list) and not value and key in ("wrong", "clarification", "rubric"):
            continue
        else:
            lines.append(f"{key} = {toml_value(value)}")
    for key, table in tables:
        lines += ["", f"[{key}]"] + [f"{k} = {toml_value(v)}" for k, v in table.items()]
    for key, items in arrays:
        for item in items:
            lines += ["", f"[[{key}]]"] + [f"{k} = {toml_value(v)}" for k, v in item.items()]
    return "\n".join(lines) + "\n"
