"""The matcher's evaluation set (interviews/clarify_eval.toml) run against the bank.

`evaluate()` asks every question of the set as a solo candidate would (the problem's
clarifications, and a design statement's figures) and counts, per problem and per half of
the set: paraphrases answered with the right answer (recall), near misses declined, and false
answers (a paraphrase given another answer, or a near miss given any). `python -m bench
matching` prints it; tests/interviews/test_matching_eval.py holds it to 0 false answers and at
least RECALL_TARGET recall.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from interviews import matching
from problems.package import Package, package_read

ROOT = Path(__file__).resolve().parent.parent
EVAL_SET = Path(__file__).with_name("clarify_eval.toml")
BANK = ROOT / "problems" / "bank"
RECALL_TARGET = 0.85
HALVES = ("tune", "check")  # even positions of each list, odd positions


@dataclass
class Tally:
    asked: int = 0  # paraphrases
    answered: int = 0  # paraphrases given the right answer
    declined_paraphrases: int = 0
    near_misses: int = 0
    near_misses_declined: int = 0
    false: list[str] = field(default_factory=list)  # "question -> wrong answer's question"

    @property
    def recall(self) -> float:
        return self.answered / self.asked if self.asked else 1.0

    def add(self, other: Tally) -> None:
        self.asked += other.asked
        self.answered += other.answered
        self.declined_paraphrases += other.declined_paraphrases
        self.near_misses += other.near_misses
        self.near_misses_declined += other.near_misses_declined
        self.false.extend(other.false)


def load_set(path: Path = EVAL_SET) -> dict[str, dict[str, Any]]:
    return tomllib.loads(path.read_text(encoding="utf-8"))


def candidates_of(package: Package) -> tuple[list[dict[str, Any]], list[str]]:
    """What a solo session asks against: the clarifications and the figures (design only)."""
    clarifications = [c.as_dict() for c in package.clarifications]
    figures = (matching.statement_figures(package.statement_md)
               if package.kind_spec.matches_figures else [])
    return clarifications, figures


def right(item: dict[str, Any], match: matching.Match) -> bool:
    """The paraphrase got its own canned answer, or the figure it asks about."""
    if match.index is not None and match.index == item.get("canned"):
        return True
    return bool(match.figure and item.get("figure") and str(item["figure"]) in match.answer)


def evaluate_problem(slug: str, spec: dict[str, Any], half: int | None = None) -> Tally:
    package = package_read(BANK / slug)
    clarifications, figures = candidates_of(package)
    tally = Tally()

    def ask(text: str) -> matching.Match:
        return matching.best_match(text, clarifications, figures=figures, title=package.title)

    for position, item in enumerate(spec.get("answered", [])):
        if half is not None and position % 2 != half:
            continue
        match = ask(str(item["ask"]))
        tally.asked += 1
        if right(item, match):
            tally.answered += 1
        elif match.answer:
            tally.false.append(f"{item['ask']} -> {match.question}")
        else:
            tally.declined_paraphrases += 1
    for position, text in enumerate(spec.get("declined", [])):
        if half is not None and position % 2 != half:
            continue
        match = ask(str(text))
        tally.near_misses += 1
        if match.answer:
            tally.false.append(f"{text} -> {match.question}")
        else:
            tally.near_misses_declined += 1
    return tally


def evaluate(half: int | None = None,
             eval_set: dict[str, dict[str, Any]] | None = None) -> dict[str, Tally]:
    """Per problem slug, the tally of the set (one half of it, or all)."""
    eval_set = load_set() if eval_set is None else eval_set
    return {slug: evaluate_problem(slug, spec, half) for slug, spec in sorted(eval_set.items())}
