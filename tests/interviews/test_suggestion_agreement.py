"""Suggestions agree with their evidence (issue 36): "Suggested 1 (Starts coding without
questions)" sat beside "1 of 4 key clarifying questions asked, before the first run". Over
generated session histories, each suggestion's reason states the history's own facts, and its
level is the one the bank's anchors give those facts (the anchors are written out here again,
independently of interviews/review/suggest.py)."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from interviews.review.suggest import (
    KeyQuestion,
    RunRecord,
    Signals,
    integrity_note,
    suggestions,
)

CRITERIA = ["correctness", "edge_cases", "clarifying_questions"]


@st.composite
def histories(draw: st.DrawFn) -> Signals:
    runs = []
    at = 0
    for number in range(1, draw(st.integers(0, 4)) + 1):
        at += draw(st.integers(1, 600_000))
        total = draw(st.integers(1, 6))
        passed = draw(st.integers(0, total))
        runs.append(
            RunRecord(
                number=number,
                kind="run",
                passed=passed,
                total=total,
                verdict="AC" if passed == total else "WA",
                at_ms=at,
                submission=number,
            )
        )
    keys = []
    others = []
    for index in range(draw(st.integers(1, 5))):
        asked = draw(st.booleans())
        when = draw(st.integers(0, 2_400_000)) if asked else None
        keys.append(KeyQuestion(index=index, question=f"q{index}", asked=asked, at_ms=when))
    for _ in range(draw(st.integers(0, 3))):  # questions that are no key one
        others.append(draw(st.integers(0, 2_400_000)))
    asked_at = sorted([k.at_ms for k in keys if k.at_ms is not None] + others)
    hidden = {}
    for tag in ("correctness", "edge_cases"):
        if draw(st.booleans()):
            total = draw(st.integers(1, 8))
            hidden[tag] = (draw(st.integers(0, total)), total)
    return Signals(
        hidden_by_tag=hidden,
        key_questions=tuple(keys),
        questions_at_ms=tuple(asked_at),
        runs=tuple(runs),
        pastes=draw(st.integers(0, 2)),
        paste_chars=draw(st.integers(0, 900)),
        tab_leaves=draw(st.integers(0, 2)),
        tab_away_ms=draw(st.integers(0, 10**6)),
    )


def anchor_for_questions(
    asked_any_before: bool, key_asked: int, key_total: int, key_late: int
) -> int:
    """The bank's clarifying-questions anchors: 1 nothing asked before coding, 2 one generic
    question (or one of several key ones), 3 some or most key ones, 4 all before coding."""
    if key_asked == key_total and key_late == 0:
        return 4
    if key_asked >= 2 or (key_asked == 1 and key_total <= 2):
        return 3
    if not asked_any_before and key_asked - key_late == 0:
        return 1
    return 2


@settings(max_examples=300, deadline=None)
@given(histories())
def test_each_suggestion_states_the_historys_facts_and_its_level_follows_from_them(
    signals: Signals,
) -> None:
    out = suggestions(signals, CRITERIA)
    first_run = signals.runs[0] if signals.runs else None

    keys = signals.key_questions
    asked = [k for k in keys if k.asked]
    late = [k for k in asked if first_run is not None and (k.at_ms or 0) > first_run.at_ms]
    before = [ms for ms in signals.questions_at_ms if first_run is None or ms <= first_run.at_ms]
    clarifying = out["clarifying_questions"]
    said = re.fullmatch(
        r"(\d+) of (\d+) key clarifying questions asked"
        r"(?:, (\d+) of them only after the first run)?"
        r", (\d+) questions? in all (before the first run|in the session)",
        clarifying.why,
    )
    assert said, clarifying.why
    assert (int(said[1]), int(said[2]), int(said[3] or 0), int(said[4])) == (
        len(asked),
        len(keys),
        len(late),
        len(before),
    )
    assert clarifying.level == anchor_for_questions(bool(before), len(asked), len(keys), len(late))
    if clarifying.level == 1:
        assert not before  # "starts coding without questions" is never said after one

    for tag, (passed, total) in signals.hidden_by_tag.items():
        suggestion = out[tag]
        assert f"final submission passed {passed}/{total} hidden" in suggestion.why
        rate = passed / total
        from_rate = 4 if rate >= 1 else 3 if rate >= 0.75 else 2 if rate >= 0.4 else 1
        if first_run is not None and not first_run.all_passed:
            # "Right on the first pass" is a 4: never after a first run that failed a test.
            assert suggestion.level == min(from_rate, 3)
            assert f"the first run passed {first_run.passed}/{first_run.total}" in suggestion.why
        else:
            assert suggestion.level == from_rate
        # Pastes and tab leaves are no evidence of correctness: never in a criterion's reason.
        assert "paste" not in suggestion.why and "tab" not in suggestion.why
    assert "paste" not in clarifying.why and "tab" not in clarifying.why
    if signals.pastes or signals.tab_leaves:
        assert integrity_note(signals) != "no large paste, never left the tab"
