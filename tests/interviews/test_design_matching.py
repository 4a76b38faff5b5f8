"""The solo matcher answers the bank's design problems' clarifying questions (issue 29): typical
paraphrases of each canned question, none of them its own wording or a declared `also`
phrasing, get its answer from the real offline model; off-topic questions get none."""

from __future__ import annotations

from typing import Any

import pytest

from interviews import matching
from problems.package import package_read
from problems.services import BANK_DIR


@pytest.fixture(autouse=True)
def _the_real_model(settings: Any) -> None:
    settings.ONSITE_CLARIFY_EMBEDDER = ""


# Per problem, in its package's order: two ways a candidate might ask each canned question.
PARAPHRASES = {
    "batch-inference-api": [
        [
            "How long do we have to finish a job?",
            "What happens to a batch that isn't done after a day?",
        ],
        [
            "Do results have to be in the input order?",
            "How will customers know which output belongs to which prompt?",
        ],
        [
            "Are we running on separate GPUs or on the same ones as the online API?",
            "Does interactive traffic take precedence over batch jobs?",
        ],
        [
            "If a few requests inside a job error out, what happens to the job?",
            "Should failed prompts be retried?",
        ],
        ["Can users abort a job that is already running?", "Is cancelling a batch supported?"],
        [
            "How do we charge customers for a batch?",
            "Is the batch discounted compared to the real-time price?",
        ],
        [
            "Do customers need partial results before the job completes?",
            "Should we push outputs as they are generated?",
        ],
        ["Which models can a batch job use?", "Is there only one model size available?"],
    ],
    "llm-inference-gateway": [
        [
            "Is the rate limit applied per key or per org?",
            "Do all keys of a customer share one quota?",
        ],
        [
            "How do we enforce tokens per minute when we don't know the output length yet?",
            "Do generated tokens count against TPM?",
        ],
        ["Does the limiter have to be exact?", "Is it OK to go slightly over the limit sometimes?"],
        [
            "What status code does a throttled caller get?",
            "Should we tell the client when to retry after hitting the limit?",
        ],
        [
            "Is the quota shared across all four regions?",
            "Do limits need to be enforced globally or per region?",
        ],
        [
            "What do we do when every GPU for a model is busy?",
            "Should requests wait in a queue when backends are overloaded?",
        ],
        [
            "If the user closes the connection halfway, do we still charge?",
            "What gets billed when a stream is cancelled by the client?",
        ],
    ],
    "kv-cache-aware-router": [
        ["Are all GPU servers running the same model?", "Can any server take any request?"],
        [
            "Can the router find out which prefixes a server has cached?",
            "Do the servers tell us about cache evictions?",
        ],
        ["How much time can routing add to a request?", "What is the router's latency budget?"],
        [
            "Do requests come with a session identifier?",
            "Can I tell which requests belong to the same chat?",
        ],
        ["Is there just one router instance?", "How many copies of the router run?"],
        [
            "What happens to requests on a server that crashes?",
            "If a GPU node goes down mid-request, what does the client do?",
        ],
    ],
    "gpu-cluster-scheduler": [
        [
            "Does it matter which racks a job's GPUs are in?",
            "Should multi-node jobs be placed close together on the network?",
        ],
        [
            "How much work is lost when we preempt a job?",
            "Do jobs get a warning before they are killed?",
        ],
        ["Can a team go over its quota?", "Is a team's quota a cap or a guarantee?"],
        [
            "Does a distributed job need all its GPUs at the same time?",
            "Can a job start with only some of its GPUs?",
        ],
        [
            "Do we know how long jobs will run?",
            "Do users give a runtime estimate when they submit?",
        ],
        ["How fast does a job need to be placed?", "How long may a scheduling decision take?"],
        [
            "What happens to a job when a node dies?",
            "Do jobs restart automatically after a hardware failure?",
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


def _canned(slug: str) -> list[dict[str, Any]]:
    return [c.as_dict() for c in package_read(BANK_DIR / slug).clarifications]


def test_paraphrases_get_their_own_answer_or_none_and_most_get_it() -> None:
    """Issue 36: a paraphrase may be declined ("not specified"), never given another answer;
    these were written before the matcher's decline rules and are a second held-out set."""
    answered = asked = 0
    wrong = []
    for slug, groups in PARAPHRASES.items():
        canned = _canned(slug)
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
    canned = _canned(slug)
    for question in OFF_TOPIC:
        assert (question, matching.best_match(question, canned).index) == (question, None)
