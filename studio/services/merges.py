"""The three-way merge of two authors' saves (issue 34.5): nothing either of them wrote is lost.

`base` is the package the author's form was based on, `mine` the package they submitted (their
edit replayed on that base), `theirs` the package stored since by someone else. Each part
merges by its shape:

* text files (statement, starter, reference, driver, checker, support): line by line with
  `merge3` (the maintained port of bzr's merge): a hunk only one side changed is taken from
  it, so "reapply" keeps the other author's paragraph beside mine;
* tables (tests, wrong solutions, hints, follow-ups, clarifications, rubric criteria, topics):
  row by row by a stable key (a test's name, a wrong solution's file...);
* records (limits, grading settings): field by field; any other value whole.

Where both sides changed the same lines, row or field differently, the merge has a `Hunk`:
both sides shown, the author chooses mine, theirs, or (text) an edited version of both. A hunk
without a choice is unresolved: nothing is saved until each has one (`choices`, by hunk id),
unless a `default` choice is given (the "reapply my change" button: mine).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import asdict, dataclass, fields, is_dataclass, replace
from typing import Any, TypeVar

from merge3 import Merge3

from problems.package import Package, TestCase, test_as_json

T = TypeVar("T")

MINE, THEIRS, EDITED = "mine", "theirs", "edited"
CHOICES = (MINE, THEIRS, EDITED)


SHOWN_CHARS = 4000  # a side of a hunk as the page shows it (a big test's row is megabytes)


def _clipped(text: str) -> str:
    if len(text) <= SHOWN_CHARS:
        return text
    return f"{text[:SHOWN_CHARS]}… ({len(text) - SHOWN_CHARS} more characters)"


@dataclass(frozen=True)
class Choice:
    """How one conflicting hunk is resolved: `mine`, `theirs`, or `edited` with its text."""

    pick: str
    text: str = ""


@dataclass(frozen=True)
class Hunk:
    """One place both authors changed differently: both sides, for the author to choose."""

    id: str  # stable for the same base, mine and theirs: "statement.md#1", "public_tests:big 3"
    where: str  # what a person reads: "statement.md, line 3", "public test 'big 3'"
    base: str
    mine: str
    theirs: str
    editable: bool  # text: an edited version of both may be written by hand

    @property
    def mine_shown(self) -> str:
        return _clipped(self.mine)

    @property
    def theirs_shown(self) -> str:
        return _clipped(self.theirs)

    @property
    def both(self) -> str:
        """What the "edit both" box starts with: my lines, then theirs."""
        mine = self.mine if self.mine.endswith("\n") or not self.mine else self.mine + "\n"
        return mine + self.theirs


@dataclass(frozen=True)
class Merged:
    package: Package
    hunks: tuple[Hunk, ...]  # every conflicting place, resolved or not
    unresolved: tuple[Hunk, ...]  # those with no choice (nothing may be saved while any)


class _Resolver:
    def __init__(self, choices: Mapping[str, Choice], default: str | None) -> None:
        self.choices = choices
        self.default = default
        self.hunks: list[Hunk] = []
        self.unresolved: list[Hunk] = []

    def pick(self, hunk: Hunk) -> Choice | None:
        self.hunks.append(hunk)
        choice = self.choices.get(hunk.id)
        if choice is None or (choice.pick == EDITED and not hunk.editable):
            choice = Choice(self.default) if self.default else None
        if choice is None:
            self.unresolved.append(hunk)
        return choice


# ---------------------------------------------------------------- text


def text_merge(
    name: str, base: str, mine: str, theirs: str, resolver: _Resolver, *, label: str = ""
) -> str:
    """`mine` and `theirs` merged line by line from `base`; a hunk both changed is resolved
    by the resolver (mine where it has no choice yet)."""
    if mine in (base, theirs):
        return theirs
    if theirs == base:
        return mine
    merge = Merge3(base.splitlines(keepends=True), mine.splitlines(keepends=True),
                   theirs.splitlines(keepends=True))
    out: list[str] = []
    number = 0
    line = 1  # where the hunk starts in the merged text, for the label
    for group in merge.merge_groups():
        if group[0] != "conflict":
            out.extend(group[1])
            line += len(group[1])
            continue
        _, base_lines, mine_lines, their_lines = group
        number += 1
        hunk = Hunk(
            id=f"{name}#{number}",
            where=f"{label or name}, line {line}",
            base="".join(base_lines),
            mine="".join(mine_lines),
            theirs="".join(their_lines),
            editable=True,
        )
        choice = resolver.pick(hunk)
        if choice is not None and choice.pick == THEIRS:
            chosen = hunk.theirs
        elif choice is not None and choice.pick == EDITED:
            chosen = choice.text.replace("\r\n", "\n")
            if chosen and not chosen.endswith("\n") and (mine_lines or their_lines):
                last = (mine_lines or their_lines)[-1]
                chosen += "\n" if last.endswith("\n") else ""
        else:
            chosen = hunk.mine
        out.append(chosen)
        line += chosen.count("\n")
    return "".join(out)


# ---------------------------------------------------------------- tables and records


def _shown(value: Any) -> str:
    if value is None:
        return "(deleted)"
    if isinstance(value, str):
        return value
    if isinstance(value, TestCase):
        value = test_as_json(value)
    elif is_dataclass(value) and not isinstance(value, type):
        value = asdict(value)
    return json.dumps(value, ensure_ascii=False, indent=1, allow_nan=True, default=str)


def _keyed_placed(
    base: Sequence[T], mine: Sequence[T], head: Sequence[T], key: Callable[[T], Hashable]
) -> list[T]:
    """The head's list, with the items I removed taken out, the ones I changed replaced, and
    the ones I added placed after the item they follow in my list (at the end when past the
    base's length, or that item is gone)."""
    before = {key(item): item for item in base}
    kept = {key(item) for item in mine}
    result = [item for item in head if not (key(item) in before and key(item) not in kept)]

    def where(name: Hashable) -> int | None:
        return next((i for i, other in enumerate(result) if key(other) == name), None)

    for position, item in enumerate(mine):
        name = key(item)
        if before.get(name) == item:
            continue  # untouched by me: the head's (perhaps edited) copy stays
        at = where(name)
        if at is not None:
            result[at] = item
            continue
        previous = where(key(mine[position - 1])) if position else -1
        if previous is None or position >= len(base):
            result.append(item)  # added past the end of what I had: after their additions
        else:
            result.insert(previous + 1, item)
    return result


def rows_merge(
    name: str,
    label: Callable[[Hashable], str],
    base: Sequence[T],
    mine: Sequence[T],
    head: Sequence[T],
    key: Callable[[T], Hashable],
    resolver: _Resolver,
) -> tuple[T, ...]:
    """A table merged row by row by `key`: a row only one side changed (added, edited,
    deleted) is taken from it; a row both changed differently is a hunk."""
    before = {key(r): r for r in base}
    ours = {key(r): r for r in mine}
    theirs = {key(r): r for r in head}
    adjusted = list(mine)
    for row_key in dict.fromkeys([*ours, *theirs]):
        b, m, h = before.get(row_key), ours.get(row_key), theirs.get(row_key)
        if m in (b, h) or h == b:
            continue
        hunk = Hunk(id=f"{name}:{row_key}", where=label(row_key), base=_shown(b),
                    mine=_shown(m), theirs=_shown(h), editable=False)
        choice = resolver.pick(hunk)
        if choice is None or choice.pick != THEIRS:
            continue  # mine (the placement below takes my row)
        # theirs: my list as if I had their row (or had deleted it, as they did)
        at = next((i for i, r in enumerate(adjusted) if key(r) == row_key), None)
        if h is None and at is not None:
            del adjusted[at]
        elif h is not None and at is not None:
            adjusted[at] = h
        elif h is not None:
            position = next((i for i, r in enumerate(base) if key(r) == row_key), len(adjusted))
            adjusted.insert(min(position, len(adjusted)), h)
    return tuple(_keyed_placed(base, adjusted, head, key))


def record_merge(name: str, base: T, mine: T, head: T, resolver: _Resolver) -> T:
    """A small record (limits, grading settings): field by field."""
    changes: dict[str, Any] = {}
    for f in fields(mine):  # type: ignore[arg-type]
        b, m, h = getattr(base, f.name), getattr(mine, f.name), getattr(head, f.name)
        if m in (b, h):
            continue
        if h != b:
            hunk = Hunk(id=f"{name}.{f.name}", where=f"{name}: {f.name}", base=_shown(b),
                        mine=_shown(m), theirs=_shown(h), editable=False)
            choice = resolver.pick(hunk)
            if choice is not None and choice.pick == THEIRS:
                continue
        changes[f.name] = m
    return replace(head, **changes)  # type: ignore[type-var]


def value_merge(name: str, base: T, mine: T, head: T, resolver: _Resolver) -> T:
    """Any other value, whole: mine where only I changed it, theirs where only they did."""
    if mine in (base, head):
        return head
    if head == base:
        return mine
    hunk = Hunk(id=name, where=name, base=_shown(base), mine=_shown(mine), theirs=_shown(head),
                editable=False)
    choice = resolver.pick(hunk)
    return head if choice is not None and choice.pick == THEIRS else mine


# ---------------------------------------------------------------- the package

# Text parts, by the package file they are.
TEXT_FILES = {
    "statement_md": "statement.md",
    "starter_code": "starter.py",
    "reference_code": "reference.py",
    "driver_code": "driver.py",
    "checker_code": "checker.py",
    "support_code": "support.py",
}


def _same(value: Any) -> Hashable:
    return str(value)


# Tables: the row's stable key, and how a row is named to a person.
TABLES: dict[str, tuple[Callable[[Any], Hashable], Callable[[Hashable], str]]] = {
    "public_tests": (lambda t: t.name, lambda k: f"public test {k!r}"),
    "hidden_tests": (lambda t: t.name, lambda k: f"hidden test {k!r}"),
    "wrong": (lambda w: w.file, lambda k: f"wrong solution {k}"),
    "known": (lambda k: k.file, lambda k: f"known solution {k}"),
    "clarifications": (lambda c: c.question, lambda k: f"clarification {k!r}"),
    "rubric": (lambda r: r.criterion, lambda k: f"rubric criterion {k!r}"),
    "hints": (_same, lambda k: f"hint {k!r}"),
    "follow_ups": (_same, lambda k: f"follow-up {k!r}"),
    "topics": (_same, lambda k: f"topic {k!r}"),
    "reference_board": (lambda e: str(e.get("id")), lambda k: f"board element {k!r}"),
}
RECORDS = ("limits", "grading")


def packages_merge3(
    base: Package,
    mine: Package,
    head: Package,
    *,
    choices: Mapping[str, Choice] | None = None,
    default: str | None = None,
) -> Merged:
    """`mine` (an edit of `base`) merged with `head` (another save since `base`)."""
    resolver = _Resolver(choices or {}, default)
    merged: dict[str, Any] = {}
    for f in fields(Package):
        b, m, h = getattr(base, f.name), getattr(mine, f.name), getattr(head, f.name)
        if f.name in TEXT_FILES:
            merged[f.name] = text_merge(TEXT_FILES[f.name], b, m, h, resolver)
        elif f.name in TABLES:
            key, label = TABLES[f.name]
            merged[f.name] = rows_merge(f.name, label, b, m, h, key, resolver)
        elif f.name in RECORDS:
            merged[f.name] = record_merge(f.name, b, m, h, resolver)
        else:
            merged[f.name] = value_merge(f.name, b, m, h, resolver)
    return Merged(Package(**merged), tuple(resolver.hunks), tuple(resolver.unresolved))


def packages_merge(base: Package, mine: Package, head: Package) -> Package:
    """`mine` replayed onto `head`, every overlap decided for mine (the reapply button)."""
    return packages_merge3(base, mine, head, default=MINE).package
