"""Reading a package's files and fields: bounded, and every refusal a PackageError naming the
file and the field."""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from problems.package.model import MAX_SOURCE_BYTES, MAX_TITLE_CHARS, PackageError


def read_json(path: Path, *, max_bytes: int) -> Any:
    """The JSON document in `path`, read only when it is a file of at most `max_bytes` (the one
    JSON reader of a package: its tests, a design's board)."""
    try:
        if not path.exists():
            raise PackageError(path, "file", "missing")
        if not path.is_file():
            raise PackageError(path, "file", "not a readable file")
        size = path.stat().st_size
    except OSError:  # a name longer than the file system takes, a component that is a file
        raise PackageError(path, "file", "not a readable file") from None
    if size > max_bytes:
        raise PackageError(path, "file", f"larger than {max_bytes} bytes")
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (ValueError, UnicodeDecodeError) as exc:
        raise PackageError(path, "file", f"invalid JSON ({exc})") from exc
    except RecursionError:
        raise PackageError(path, "file", "invalid JSON (nested too deeply)") from None
    except OSError:
        raise PackageError(path, "file", "not a readable file") from None


def read_text(path: Path, *, required: bool = True) -> str:
    try:
        size = path.stat().st_size if path.exists() else None
    except OSError:  # a name longer than the file system takes, a component that is a file
        raise PackageError(path, "file", "not a readable file") from None
    if size is None:
        if required:
            raise PackageError(path, "file", "missing")
        return ""
    if size > MAX_SOURCE_BYTES:
        raise PackageError(path, "file", f"larger than {MAX_SOURCE_BYTES} bytes")
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise PackageError(path, "file", f"not UTF-8 ({exc.reason})") from exc
    except OSError:  # a folder where the file belongs, an unreadable file
        raise PackageError(path, "file", "not a readable file") from None


def require(meta: dict[str, Any], key: str, kind: type, path: Path, where: str = "") -> Any:
    name = f"{where}{key}"
    if key not in meta:
        raise PackageError(path, name, "missing")
    value = meta[key]
    if kind is float and isinstance(value, int) and not isinstance(value, bool):
        value = float(value)
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise PackageError(path, name, f"must be {kind.__name__}, got {type(value).__name__}")
    return value


def number(
    raw: dict[str, Any], key: str, path: Path, *, where: str, default: float, integer: bool = False
) -> Any:
    """`raw[key]` as a finite number (an int where `integer`), else PackageError naming it."""
    value = raw.get(key, default)
    name = f"{where}{key}"
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        kind = "an integer" if integer else "a number"
        raise PackageError(path, name, f"must be {kind}, got {type(value).__name__} {value!r}")
    if isinstance(value, float) and not math.isfinite(value):
        raise PackageError(path, name, f"must be a finite number, got {value!r}")
    if integer:
        if isinstance(value, float) and not value.is_integer():
            raise PackageError(path, name, f"must be an integer, got {value!r}")
        return int(value)
    try:
        return float(value)
    except OverflowError:  # TOML integers have no size limit; floats do
        raise PackageError(path, name, "is far out of range") from None


def table(item: Any, path: Path | str, name: str) -> dict[str, Any]:
    if not isinstance(item, dict):
        raise PackageError(path, name, f"must be a table, got {type(item).__name__}")
    return item


def tables(
    meta: dict[str, Any], key: str, path: Path | str, *, hint: str = ""
) -> Iterator[tuple[str, dict[str, Any]]]:
    """The `[[key]]` tables of a TOML document, each with the prefix its fields are named by
    (`key[2].`): an absent key is none, anything but an array of tables a PackageError."""
    raw = meta.get(key, [])
    if not isinstance(raw, list):
        raise PackageError(path, key, f"must be an array of tables{hint}")
    for index, item in enumerate(raw):
        yield f"{key}[{index}].", table(item, path, f"{key}[{index}]")


def read_title(meta: dict[str, Any], path: Path) -> str:
    title = require(meta, "title", str, path)
    if not 0 < len(title.strip()) <= MAX_TITLE_CHARS:
        raise PackageError(path, "title", f"must be 1 to {MAX_TITLE_CHARS} characters")
    return str(title)


def require_bool(meta: dict[str, Any], key: str, path: Path, *, default: bool) -> bool:
    value = meta.get(key, default)
    if not isinstance(value, bool):
        raise PackageError(path, key, f"must be true or false, got {type(value).__name__}")
    return value


def str_list(meta: dict[str, Any], key: str, path: Path, minimum: int = 0) -> tuple[str, ...]:
    value = meta.get(key, [])
    if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
        raise PackageError(path, key, "must be a list of non-empty strings")
    if len(value) < minimum:
        raise PackageError(path, key, f"needs at least {minimum}, has {len(value)}")
    return tuple(value)


def choice(value: str, allowed: tuple[str, ...], path: Path, name: str) -> str:
    if value not in allowed:
        raise PackageError(path, name, f"{value!r} is not one of {', '.join(allowed)}")
    return value


MAX_PHRASES = 20
MAX_PHRASE_CHARS = 300


def phrases(item: dict[str, Any], key: str, path: Path, where: str) -> tuple[str, ...]:
    """An optional list of short non-empty strings (a clarification's `also` or `keywords`)."""
    value = item.get(key, [])
    if (not isinstance(value, list) or len(value) > MAX_PHRASES
            or not all(isinstance(v, str) and 0 < len(v.strip()) <= MAX_PHRASE_CHARS
                       for v in value)):
        raise PackageError(path, where + key, f"must be a list of at most {MAX_PHRASES} "
                           f"non-empty strings of at most {MAX_PHRASE_CHARS} characters")
    return tuple(v.strip() for v in value)

