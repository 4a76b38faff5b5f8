"""A problem's input constraints, declared once (issue 36.10, as Polygon's validators): the
statement's "Constraints" list is rendered from them and every test input is checked against
them. Pure and Django-free.

In problem.toml::

    [[constraints]]
    name = "k"              # a path into a test's input (below)
    type = "int"            # int, number, str, bool, list, object, list[int|number|str]
    min = 1                 # bounds on the value (int, number)
    max = 1000000
    [[constraints]]
    name = "values"
    type = "list[int]"
    min_length = 0          # bounds on len() (list, str, object)
    max_length = 100000
    item_min = -1e9         # bounds on each item (list[int], list[number])
    item_max = 1e9
    # also: min_exclusive = true (the value must be above min: `0 < capacity`),
    # one_of = [...] (allowed values), optional = true (the path may be absent, as in a
    # test generated in the sandbox), internal = true (checked, not rendered: a generator's
    # parameters), title = "capacity" (how the statement names the value, default the path),
    # note = "words rendered after the bound"

A path names a value of the input: keys joined by dots (`generate.n`), `[2]` for one item of a
list, `[]` for every item of a list, `{}` for every value of an object: `ops[][0]` is the
method name of every op, `stages{}[]` every dependency of every stage, `args[1]` a function's
second argument.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

TYPES = ("int", "number", "str", "bool", "list", "object", "list[int]", "list[number]",
         "list[str]")
FIELDS = ("name", "type", "min", "max", "min_length", "max_length", "item_min", "item_max",
          "min_exclusive", "one_of", "optional", "internal", "title", "note")
_SEGMENT = re.compile(r"(?:^|\.)([A-Za-z_][A-Za-z0-9_]*)|\[(\d*)\]|\{\}")
MAX_CONSTRAINTS = 64


class ConstraintError(ValueError):
    """A malformed declaration; the message names the field."""


@dataclass(frozen=True)
class Constraint:
    name: str
    type: str
    min: float | None = None
    max: float | None = None
    min_length: int | None = None
    max_length: int | None = None
    item_min: float | None = None
    item_max: float | None = None
    one_of: tuple[Any, ...] = ()
    min_exclusive: bool = False
    optional: bool = False
    internal: bool = False
    title: str = ""  # how the statement names it (`capacity` for `init[0]`); default the path
    note: str = ""

    def as_dict(self) -> dict[str, Any]:
        """As problem.toml and a version store it: the fields that are set."""
        out: dict[str, Any] = {"name": self.name, "type": self.type}
        for key in ("min", "max", "min_length", "max_length", "item_min", "item_max"):
            if (value := getattr(self, key)) is not None:
                out[key] = value
        if self.one_of:
            out["one_of"] = list(self.one_of)
        for flag in ("min_exclusive", "optional", "internal"):
            if getattr(self, flag):
                out[flag] = True
        if self.title:
            out["title"] = self.title
        if self.note:
            out["note"] = self.note
        return out


def _path(name: str) -> list[tuple[str, str]]:
    """`ops[][0]` → [("key", "ops"), ("each", ""), ("index", "0")]."""
    steps: list[tuple[str, str]] = []
    at = 0
    while at < len(name):
        match = _SEGMENT.match(name, at)
        if match is None or (match.group(1) is not None and (at == 0) != (not steps)):
            break
        key, index = match.group(1), match.group(2)
        if key is not None:
            steps.append(("key", key))
        elif index is not None:
            steps.append(("index", index) if index else ("each", ""))
        else:
            steps.append(("values", ""))
        at = match.end()
    if at != len(name) or not steps or steps[0][0] != "key" or name.startswith("."):
        raise ConstraintError(f"name {name!r} is not a path such as 'k', 'args[1]', 'ops[][0]'")
    return steps


def _bound(raw: Mapping[str, Any], key: str, *, integer: bool = False) -> Any:
    value = raw.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ConstraintError(f"{key} must be a number, got {value!r}")
    if isinstance(value, float) and not math.isfinite(value):
        raise ConstraintError(f"{key} must be finite, got {value!r}")
    if integer:
        if value < 0 or (isinstance(value, float) and not value.is_integer()):
            raise ConstraintError(f"{key} must be a whole number >= 0, got {value!r}")
        return int(value)
    return int(value) if isinstance(value, float) and value.is_integer() else value


def constraint_from_dict(raw: Any) -> Constraint:
    """One declaration, checked; raises ConstraintError naming the field."""
    if not isinstance(raw, Mapping):
        raise ConstraintError(f"must be a table, got {type(raw).__name__}")
    unknown = sorted(set(raw) - set(FIELDS))
    if unknown:
        raise ConstraintError(f"unknown field {unknown[0]!r} (known: {', '.join(FIELDS)})")
    name, kind = raw.get("name"), raw.get("type")
    if not isinstance(name, str) or not name:
        raise ConstraintError("name must be a path such as 'k' or 'args[1]'")
    _path(name)
    if kind not in TYPES:
        raise ConstraintError(f"type {kind!r} is not one of {', '.join(TYPES)}")
    one_of = raw.get("one_of", [])
    if not isinstance(one_of, list):
        raise ConstraintError("one_of must be a list")
    note = raw.get("note", "")
    flags = {key: raw.get(key, False) for key in ("min_exclusive", "optional", "internal")}
    for key, flag in flags.items():
        if not isinstance(flag, bool):
            raise ConstraintError(f"{key} must be true or false")
    title = raw.get("title", "")
    if not isinstance(note, str) or not isinstance(title, str):
        raise ConstraintError("note and title must be strings")
    constraint = Constraint(
        name=name,
        type=kind,
        min=_bound(raw, "min"),
        max=_bound(raw, "max"),
        min_length=_bound(raw, "min_length", integer=True),
        max_length=_bound(raw, "max_length", integer=True),
        item_min=_bound(raw, "item_min"),
        item_max=_bound(raw, "item_max"),
        one_of=tuple(one_of),
        min_exclusive=flags["min_exclusive"],
        optional=flags["optional"],
        internal=flags["internal"],
        title=title.strip(),
        note=note.strip(),
    )
    numeric = kind in ("int", "number")
    sized = kind in ("str", "object") or kind.startswith("list")
    if constraint.min_exclusive and constraint.min is None:
        raise ConstraintError("min_exclusive needs a min")
    if (constraint.min is not None or constraint.max is not None) and not numeric:
        raise ConstraintError(f"min and max bound a number; {name!r} is {kind}")
    if (constraint.min_length is not None or constraint.max_length is not None) and not sized:
        raise ConstraintError(f"min_length and max_length bound a size; {name!r} is {kind}")
    items = (constraint.item_min, constraint.item_max)
    if any(v is not None for v in items) and kind not in ("list[int]", "list[number]"):
        raise ConstraintError(f"item_min and item_max bound numbers in a list; {name!r} is {kind}")
    for low, high in (("min", "max"), ("min_length", "max_length"), ("item_min", "item_max")):
        a, b = getattr(constraint, low), getattr(constraint, high)
        if a is not None and b is not None and a > b:
            raise ConstraintError(f"{name!r}: {low} {a} is above {high} {b}")
    return constraint


def constraints_from_list(raw: Any) -> tuple[Constraint, ...]:
    """A `[[constraints]]` array (or a version's stored list), checked; ConstraintError names
    the entry (`constraints[2]: ...`)."""
    if raw is None:
        return ()
    if not isinstance(raw, list):
        raise ConstraintError("constraints must be an array of tables ([[constraints]])")
    if len(raw) > MAX_CONSTRAINTS:
        raise ConstraintError(f"at most {MAX_CONSTRAINTS} constraints")
    out = []
    for number, item in enumerate(raw):
        try:
            out.append(constraint_from_dict(item))
        except ConstraintError as exc:
            raise ConstraintError(f"constraints[{number}]: {exc}") from None
    return tuple(out)


# ---------------------------------------------------------------- checking

_MISSING = object()


def _values(value: Any, steps: Sequence[tuple[str, str]], where: str) -> Iterable[tuple[str, Any]]:
    """Every (concrete path, value) the path reaches; a missing one as _MISSING."""
    if not steps:
        yield where, value
        return
    (step, arg), rest = steps[0], steps[1:]
    if step == "key":
        here = f"{where}.{arg}" if where else arg
        if isinstance(value, Mapping) and arg in value:
            yield from _values(value[arg], rest, here)
        else:
            yield here, _MISSING
    elif step == "index":
        here = f"{where}[{arg}]"
        if isinstance(value, list) and int(arg) < len(value):
            yield from _values(value[int(arg)], rest, here)
        else:
            yield here, _MISSING
    elif step == "each":
        if isinstance(value, list):
            for i, item in enumerate(value):
                yield from _values(item, rest, f"{where}[{i}]")
        else:
            yield f"{where}[]", _MISSING
    elif isinstance(value, Mapping):
        for key, item in value.items():
            yield from _values(item, rest, f"{where}[{key!r}]")
    else:
        yield f"{where}{{}}", _MISSING


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value: Any) -> bool:
    return (_is_int(value) or isinstance(value, float)) and math.isfinite(value)


_KINDS = {
    "int": ("an integer", _is_int),
    "number": ("a finite number", _is_number),
    "str": ("a string", lambda v: isinstance(v, str)),
    "bool": ("true or false", lambda v: isinstance(v, bool)),
    "list": ("a list", lambda v: isinstance(v, list)),
    "object": ("an object", lambda v: isinstance(v, Mapping)),
}


def _one(constraint: Constraint, where: str, value: Any) -> str:
    """How `value` (at `where`) breaks `constraint`, or ""."""
    kind, _, item_kind = constraint.type.partition("[")
    item_kind = item_kind.rstrip("]")
    words, fits = _KINDS[kind]
    if not fits(value):
        return f"{where} must be {words}, got {_shown(value)}"
    if constraint.min is not None and constraint.min_exclusive and value <= constraint.min:
        return f"{where} = {_shown(value)} is not above {_number(constraint.min)}"
    if constraint.min is not None and value < constraint.min:
        return f"{where} = {_shown(value)} is below the minimum {_number(constraint.min)}"
    if constraint.max is not None and value > constraint.max:
        return f"{where} = {_shown(value)} is above the maximum {_number(constraint.max)}"
    if constraint.one_of and value not in constraint.one_of:
        allowed = ", ".join(_shown(v) for v in constraint.one_of)
        return f"{where} = {_shown(value)} is not one of {allowed}"
    if kind in ("str", "list", "object"):
        size = len(value)
        if constraint.min_length is not None and size < constraint.min_length:
            return f"len({where}) = {size} is below the minimum {_number(constraint.min_length)}"
        if constraint.max_length is not None and size > constraint.max_length:
            return f"len({where}) = {size} is above the maximum {_number(constraint.max_length)}"
    if item_kind:
        item_words, item_fits = _KINDS[item_kind]
        for i, item in enumerate(value):
            if not item_fits(item):
                return f"{where}[{i}] must be {item_words}, got {_shown(item)}"
            if constraint.item_min is not None and item < constraint.item_min:
                bound = _number(constraint.item_min)
                return f"{where}[{i}] = {_shown(item)} is below the minimum {bound}"
            if constraint.item_max is not None and item > constraint.item_max:
                bound = _number(constraint.item_max)
                return f"{where}[{i}] = {_shown(item)} is above the maximum {bound}"
    return ""


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def input_violations(constraints: Sequence[Constraint], test_input: Any) -> list[str]:
    """Each way `test_input` breaks the declared constraints (one per constraint at most), as
    sentences naming the field and the bound; [] when it obeys them all."""
    found = []
    for constraint in constraints:
        for where, value in _values(test_input, _path(constraint.name), ""):
            if value is _MISSING:
                if constraint.optional:
                    continue
                problem = f"{where} is missing (declared {constraint.type})"
            else:
                problem = _one(constraint, where, value)
            if problem:
                found.append(problem)
                break
    return found


def constraint_reaches(constraint: Constraint, test_input: Any) -> bool:
    """Whether `constraint`'s path names a value in `test_input` (a path no test reaches is
    most likely misspelt)."""
    return any(v is not _MISSING for _, v in _values(test_input, _path(constraint.name), ""))


def violations_in_tests(constraints: Sequence[Constraint], tests: Iterable[Any]) -> list[str]:
    """For tests (anything with `name` and `input`): 'test "k0": k = 0 is below the minimum 1'."""
    return [
        f'test "{test.name}": {problem}'
        for test in tests
        for problem in input_violations(constraints, test.input)
    ]


# ---------------------------------------------------------------- rendering


def _number(value: float) -> str:
    """1000000 → 10^6, 20000 → 2 * 10^4, -1e9 → -10^9, 0.5 → 0.5, 300 → 300."""
    if isinstance(value, float) and not value.is_integer():
        return repr(value)
    number = int(value)
    sign, magnitude = ("-" if number < 0 else ""), abs(number)
    if magnitude >= 10_000:
        exponent = len(str(magnitude)) - 1
        while exponent > 0 and magnitude % 10**exponent:
            exponent -= 1
        mantissa = magnitude // 10**exponent
        if exponent >= 3 and mantissa < 10:
            return f"{sign}{'' if mantissa == 1 else f'{mantissa} * '}10^{exponent}"
    return f"{sign}{magnitude}"


def _display(name: str) -> str:
    return name.replace("[]", "[i]").replace("{}", "[name]")


def _range(low: Any, what: str, high: Any, *, strict: bool = False) -> str:
    below = "<" if strict else "<="
    if low is not None and high is not None:
        return f"`{_number(low)} {below} {what} <= {_number(high)}`"
    if low is not None:
        return f"`{what} {'>' if strict else '>='} {_number(low)}`"
    return f"`{what} <= {_number(high)}`"


_TYPE_WORDS = {
    "int": "an integer", "number": "a number", "str": "a string", "bool": "true or false",
    "list": "a list", "object": "an object", "list[int]": "a list of integers",
    "list[number]": "a list of numbers", "list[str]": "a list of strings",
}


def constraint_line(constraint: Constraint) -> str:
    """One constraint as a Markdown list item's text."""
    what = constraint.title or _display(constraint.name)
    parts = []
    if constraint.min is not None or constraint.max is not None:
        parts.append(_range(constraint.min, what, constraint.max, strict=constraint.min_exclusive))
    if constraint.min_length is not None or constraint.max_length is not None:
        parts.append(_range(constraint.min_length, f"len({what})", constraint.max_length))
    if constraint.item_min is not None or constraint.item_max is not None:
        parts.append(_range(constraint.item_min, f"{what}[j]", constraint.item_max))
    if constraint.one_of:
        parts.append(f"`{what}` is one of " + ", ".join(f"`{v}`" for v in constraint.one_of))
    text = ", ".join(parts) if parts else f"`{what}` is {_TYPE_WORDS[constraint.type]}"
    if parts and constraint.type in ("int", "list[int]"):
        text += " (integers)"
    return f"{text}. {constraint.note}" if constraint.note else text + "."


HEADING = "## Constraints"
_SECTION = re.compile(r"^##[ \t]+Constraints[ \t]*$", re.MULTILINE | re.IGNORECASE)


def constraints_markdown(constraints: Sequence[Constraint]) -> str:
    """The declared constraints as a Markdown list ("" when none)."""
    return "\n".join(f"* {constraint_line(c)}" for c in constraints if not c.internal)


def statement_with_constraints(statement_md: str, constraints: Sequence[Constraint]) -> str:
    """The statement as shown: the rendered constraints open its "## Constraints" section
    (the hand-written notes under it, on complexity and limits, follow them), or make that
    section at the end when it has none. Unchanged when nothing is declared."""
    listed = constraints_markdown(constraints)
    if not listed:
        return statement_md
    match = _SECTION.search(statement_md)
    if match is None:
        return f"{statement_md.rstrip()}\n\n{HEADING}\n\n{listed}\n"
    rest = statement_md[match.end():].lstrip("\n")
    return f"{statement_md[:match.end()]}\n\n{listed}\n{rest}"
