"""Seeded generators for big test inputs, written as data (no author code runs on the host).

A template is any JSON value in which a string such as `"$ints(100000, -5, 5)"` stands for
generated data; the same template and seed always give the same input. The expected output is
then filled from the reference, graded in the sandbox like any submission.

    $int(lo, hi)             one integer in [lo, hi]
    $float(lo, hi)           one float in [lo, hi)
    $ints(n, lo, hi)         n integers in [lo, hi]
    $floats(n, lo, hi)       n floats in [lo, hi)
    $sorted_ints(n, lo, hi)  n integers in [lo, hi], ascending
    $perm(n)                 a permutation of 0..n-1
    $choices(n, a, b, ...)   n picks among the given words
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from typing import Any

MAX_GENERATED_ITEMS = 1_000_000  # per template: the tests file itself is capped at 8 MB
_CALL = re.compile(r"^\$(\w+)\((.*)\)$")


class GeneratorError(ValueError):
    """A template the generator cannot expand; the message says which part and why."""


def _number(text: str) -> float:
    try:
        value = float(text)
    except ValueError as exc:
        raise GeneratorError(f"{text!r} is not a number") from exc
    return value


def _int(text: str) -> int:
    value = _number(text)
    if value != int(value):
        raise GeneratorError(f"{text!r} is not a whole number")
    return int(value)


def _count(text: str, budget: list[int]) -> int:
    n = _int(text)
    if n < 0:
        raise GeneratorError("a count cannot be negative")
    budget[0] += n
    if budget[0] > MAX_GENERATED_ITEMS:
        raise GeneratorError(f"more than {MAX_GENERATED_ITEMS} generated items in one test")
    return n


def _range(lo: str, hi: str) -> tuple[float, float]:
    low, high = _number(lo), _number(hi)
    if low > high:
        raise GeneratorError(f"the range {lo}..{hi} is empty")
    return low, high


Expander = Callable[[random.Random, list[str], list[int]], Any]


def _g_int(rng: random.Random, args: list[str], budget: list[int]) -> Any:
    _arity(args, 2, "int")
    return rng.randint(_int(args[0]), _int(args[1]))


def _g_float(rng: random.Random, args: list[str], budget: list[int]) -> Any:
    _arity(args, 2, "float")
    return rng.uniform(*_range(args[0], args[1]))


def _g_ints(rng: random.Random, args: list[str], budget: list[int]) -> Any:
    _arity(args, 3, "ints")
    n, (lo, hi) = _count(args[0], budget), _range(args[1], args[2])
    return [rng.randint(int(lo), int(hi)) for _ in range(n)]


def _g_floats(rng: random.Random, args: list[str], budget: list[int]) -> Any:
    _arity(args, 3, "floats")
    n, (lo, hi) = _count(args[0], budget), _range(args[1], args[2])
    return [rng.uniform(lo, hi) for _ in range(n)]


def _g_sorted_ints(rng: random.Random, args: list[str], budget: list[int]) -> Any:
    return sorted(_g_ints(rng, args, budget))


def _g_perm(rng: random.Random, args: list[str], budget: list[int]) -> Any:
    _arity(args, 1, "perm")
    items = list(range(_count(args[0], budget)))
    rng.shuffle(items)
    return items


def _g_choices(rng: random.Random, args: list[str], budget: list[int]) -> Any:
    if len(args) < 2:
        raise GeneratorError("$choices needs a count and at least one word")
    n = _count(args[0], budget)
    return [rng.choice(args[1:]) for _ in range(n)]


GENERATORS: dict[str, Expander] = {
    "int": _g_int,
    "float": _g_float,
    "ints": _g_ints,
    "floats": _g_floats,
    "sorted_ints": _g_sorted_ints,
    "perm": _g_perm,
    "choices": _g_choices,
}


def _arity(args: list[str], n: int, name: str) -> None:
    if len(args) != n:
        raise GeneratorError(f"${name} takes {n} arguments, got {len(args)}")


def _expand(value: Any, rng: random.Random, budget: list[int]) -> Any:
    if isinstance(value, str) and (match := _CALL.match(value.strip())):
        name, raw = match.groups()
        if name not in GENERATORS:
            raise GeneratorError(f"unknown generator ${name} (known: {', '.join(GENERATORS)})")
        args = [a.strip() for a in raw.split(",")] if raw.strip() else []
        return GENERATORS[name](rng, args, budget)
    if isinstance(value, list):
        return [_expand(v, rng, budget) for v in value]
    if isinstance(value, dict):
        return {k: _expand(v, rng, budget) for k, v in value.items()}
    return value


def input_generate(template: Any, *, seed: int) -> Any:
    """The input `template` stands for with `seed`: deterministic, generated in order."""
    return _expand(template, random.Random(seed), [0])
