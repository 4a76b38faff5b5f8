"""Verdict logic, outside the sandbox: comparison, status mapping, aggregation.

The sandbox is replaced by a function that returns canned outcomes: this tests the pure logic
of deciding verdicts; the real sandbox is exercised in tests/sandbox and
tests/grading/test_pipeline.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import pytest

from core.verdicts import NOT_RUN
from grading.judge import (
    NOT_RUN_MESSAGE,
    STOP_RUN,
    Compare,
    GradeSpec,
    JudgeError,
    TestSpec,
    TestVerdict,
    error_detail,
    error_line,
    judge,
    judgement_from,
    message_rule,
    values_equal,
    verdict_for,
    verdict_text,
    worst_verdict,
)
from sandbox import Limits, SandboxError, TestInput, TestOutcome

DEFAULT_COMPARE = Compare()


def outcome(index: int, status: str = "ok", output: Any = None, exc_type: str = "") -> TestOutcome:
    return TestOutcome(
        index=index,
        name=f"t{index}",
        status=status,
        output=output,
        time_ms=1.0,
        cpu_ms=1.0,
        stdout="",
        error="",
        exc_type=exc_type,
    )


def spec(
    tests: list[TestSpec], compare: Compare = DEFAULT_COMPARE, checker: str = "", support: str = ""
) -> GradeSpec:
    return GradeSpec(
        solution="",
        driver={"kind": "function", "entry": "f"},
        tests=tests,
        limits=Limits(),
        compare=compare,
        image="unused",
        checker_code=checker,
        support_code=support,
    )


def fake_run(outcomes: list[TestOutcome]) -> Callable[..., None]:
    def run(**kwargs: Any) -> None:
        for item in outcomes:
            kwargs["on_outcome"](item)

    return run


def test_worst_verdict_follows_the_fixed_priority() -> None:
    assert worst_verdict(["AC", "WA", "TLE"]) == "TLE"
    assert worst_verdict(["AC", "RE", "WA"]) == "RE"
    assert worst_verdict(["AC", "AC"]) == "AC"
    assert worst_verdict([]) == "IE"
    assert worst_verdict(["TLE", "", ""]) == "TLE"  # tests not run take no part


@pytest.mark.parametrize(
    ("output", "expected", "tolerant", "equal"),
    [
        (1, 1.0, False, True),
        (True, 1, False, False),  # a bool is not a number
        ([1, [2, 3]], [1, [2, 3]], False, True),
        ({"a": 1}, {"a": 1, "b": 2}, False, False),
        (0.1 + 0.2, 0.3, False, False),
        (0.1 + 0.2, 0.3, True, True),
        (math.nan, math.nan, False, True),
        ("1", 1, False, False),
        (None, None, False, True),
    ],
)
def test_values_equal(output: Any, expected: Any, tolerant: bool, equal: bool) -> None:
    assert values_equal(output, expected, Compare(), tolerant=tolerant) is equal


def test_statuses_map_to_verdicts_and_exit_zero_is_never_a_pass() -> None:
    tests = [TestSpec(f"t{i}", {}, 1) for i in range(8)]
    outcomes = [
        outcome(0, output=1),
        outcome(1, output=2),
        outcome(2, "timeout"),
        outcome(3, "cpu"),
        outcome(4, "memory"),
        outcome(5, "output"),
        outcome(6, "crash"),  # e.g. os._exit(0): no result means no pass
        # The sandbox decides MLE ("memory"); an exception's name is the test's own word.
        outcome(7, "error", exc_type="MemoryError"),
    ]
    result = judge(spec(tests), run_fn=fake_run(outcomes))
    assert [t.verdict for t in result.tests] == [
        "AC",
        "WA",
        "TLE",
        "TLE",
        "MLE",
        "OLE",
        "RE",
        "RE",
    ]
    assert result.verdict == "TLE"
    assert (result.passed, result.total) == (1, 8)


def test_a_missing_result_fails_and_a_forged_or_duplicate_frame_changes_nothing() -> None:
    tests = [TestSpec("a", {}, 1), TestSpec("b", {}, 2)]
    outcomes = [outcome(0, output=0), outcome(0, output=1), outcome(9, output=2)]
    result = judge(spec(tests), run_fn=fake_run(outcomes))
    assert [t.verdict for t in result.tests] == ["WA", "RE"]


def test_unordered_and_per_test_override() -> None:
    tests = [TestSpec("a", {}, [1, 2, 2], compare="unordered"), TestSpec("b", {}, [1, 2])]
    result = judge(
        spec(tests), run_fn=fake_run([outcome(0, output=[2, 1, 2]), outcome(1, output=[2, 1])])
    )
    assert [t.verdict for t in result.tests] == ["AC", "WA"]


def test_checker_with_support_module_runs_in_the_worker() -> None:
    support = "def parity(x):\n    return x % 2\n"
    checker = (
        "import support\n"
        "def check(input, expected, output):\n"
        "    return support.parity(output) == expected, 'parity differs'\n"
    )
    tests = [TestSpec("odd", {}, 1, compare="checker"), TestSpec("even", {}, 0, compare="checker")]
    result = judge(
        spec(tests, checker=checker, support=support),
        run_fn=fake_run([outcome(0, output=7), outcome(1, output=7)]),
    )
    assert [t.verdict for t in result.tests] == ["AC", "WA"]
    assert result.tests[1].detail["message"] == "parity differs"


def test_a_crashing_checker_is_a_wrong_answer_not_a_crash_of_the_grader() -> None:
    checker = "def check(input, expected, output):\n    return output['missing'] == 1\n"
    result = judge(
        spec([TestSpec("a", {}, 1)], compare=Compare(mode="checker"), checker=checker),
        run_fn=fake_run([outcome(0, output=[1])]),
    )
    assert result.verdict == "WA"


def test_sandbox_failure_is_a_judge_error() -> None:
    def broken(**kwargs: Any) -> None:
        raise SandboxError("docker is down")

    with pytest.raises(JudgeError):
        judge(spec([TestSpec("a", {}, 1)]), run_fn=broken)


def test_control_and_bidi_bytes_are_stored_escaped() -> None:
    raw = "a\x00b\x1b[31m\u202eexe\nline\t\ud800"
    result = judge(
        spec([TestSpec("a", {}, 1)]),
        run_fn=fake_run(
            [
                TestOutcome(
                    index=0,
                    name="a",
                    status="ok",
                    output=raw,
                    time_ms=1.0,
                    cpu_ms=1.0,
                    stdout=raw,
                    error="",
                    exc_type="",
                )
            ]
        ),
    )
    stdout = result.tests[0].detail["stdout"]
    assert stdout == "a\\x00b\\x1b[31m\\u202eexe\nline\t\\ud800"
    assert all(ch not in stdout for ch in "\x00\x1b\u202e\ud800")


def test_pass_counts_per_group_in_the_authors_order() -> None:
    tests = [
        TestSpec("a", {}, 1, group="capacity"),
        TestSpec("b", {}, 1, group="throughput"),
        TestSpec("c", {}, 1, group="capacity"),
        TestSpec("d", {}, 1),
    ]
    result = judge(
        spec(tests),
        run_fn=fake_run(
            [outcome(0, output=1), outcome(1, output=0), outcome(2, output=0), outcome(3, output=1)]
        ),
    )
    assert result.by_group == {"capacity": (1, 2), "throughput": (0, 1)}
    assert result.by_tag == {"correctness": (2, 4)}


def test_tests_not_run_after_a_time_limit_have_no_verdict_and_no_pass() -> None:
    tests = [
        TestSpec("a", {}, 1, tag="performance"),
        TestSpec("b", {}, 1, tag="performance"),
        TestSpec("c", {}, 1, tag="edge_cases", group="big"),
        TestSpec("d", {}, 1, tag="correctness", group="big"),
    ]
    outcomes = [outcome(0, "cpu"), outcome(1, "skipped"), outcome(2, "timeout")]
    outcomes.append(outcome(3, "skipped"))
    result = judge(spec(tests), run_fn=fake_run(outcomes))
    assert [t.verdict for t in result.tests] == ["TLE", "", "TLE", ""]
    assert result.tests[1].detail["message"] == NOT_RUN_MESSAGE
    assert result.verdict == "TLE" and (result.passed, result.total) == (0, 4)
    assert result.by_tag == {"performance": (0, 2), "edge_cases": (0, 1), "correctness": (0, 1)}
    # No test of "correctness" ran (its group stopped in edge_cases): it has no worst verdict.
    assert result.worst_by_tag == {"performance": "TLE", "edge_cases": "TLE"}


def test_stop_groups_are_the_whole_run_or_each_group_else_tag() -> None:
    tests = [
        TestSpec("a", {}, 1, tag="correctness"),
        TestSpec("b", {}, 1, tag="performance"),
        TestSpec("c", {}, 1, tag="performance", group="big"),
        TestSpec("d", {}, 1, tag="correctness", group="correctness"),
    ]
    sent: dict[str, list[str | None]] = {}

    def recording(stop: str) -> Callable[..., None]:
        def run(**kwargs: Any) -> None:
            inputs: list[TestInput] = kwargs["tests"]
            sent[stop] = [t.stop_group for t in inputs]

        return run

    judge(spec(tests), run_fn=recording("group"))
    judge(replace(spec(tests), stop=STOP_RUN), run_fn=recording("run"))
    # A problem group is its own stop group, apart from a tag of the same name.
    assert sent["group"] == ["tag:correctness", "tag:performance", "group:big", "group:correctness"]
    assert sent["run"] == ["run"] * 4


def test_verdicts_carry_cpu_time_beside_wall_time() -> None:
    slow = TestOutcome(0, "t0", "cpu", None, time_ms=2300.0, cpu_ms=2004.123, stdout="", error="")
    result = judge(spec([TestSpec("t0", {}, 1)]), run_fn=fake_run([slow]))
    assert (result.tests[0].time_ms, result.tests[0].cpu_ms) == (2300.0, 2004.12)
    assert result.as_json()["tests"][0]["cpu_ms"] == 2004.12


def _deep(levels: int) -> Any:
    value: Any = 1
    for _ in range(levels):
        value = [value]
    return value


class _LyingInt(int):
    def __eq__(self, other: object) -> bool:
        return True

    __hash__ = int.__hash__


HUGE = 10**400  # valid JSON, passes the harness, has no float form


@pytest.mark.parametrize(
    ("output", "expected", "mode", "verdict"),
    [
        (HUGE, 1.5, "float", "WA"),  # math.isclose would raise OverflowError
        (1.5, HUGE, "float", "WA"),
        (HUGE, HUGE, "float", "AC"),
        ([HUGE, -HUGE], [HUGE, -HUGE], "float", "AC"),
        (1_000_001, 1_000_000, "float", "AC"),  # ints keep the relative tolerance
        (math.inf, math.inf, "float", "AC"),
        (math.inf, -math.inf, "float", "WA"),
        (math.inf, HUGE, "float", "WA"),
        (math.nan, 1.0, "float", "WA"),
        ([math.nan], [math.nan], "exact", "AC"),
        (_deep(100_000), [[1]], "exact", "WA"),  # deeper than Python's recursion limit
        (_deep(100_000), _deep(100_000), "exact", "AC"),
        (_deep(5_000), [1, 2], "unordered", "WA"),  # json.dumps would raise RecursionError
        ([_deep(5_000), HUGE], [HUGE, _deep(5_000)], "unordered", "WA"),
        ([HUGE, 1], [1, HUGE], "unordered", "AC"),
        (_LyingInt(5), 4, "exact", "WA"),  # a subclass's __eq__ takes no part
        (True, 1, "float", "WA"),
        ({"a": [HUGE]}, {"a": [1.0]}, "float", "WA"),
    ],
)
def test_comparison_is_total_on_any_json_the_container_can_return(
    output: Any, expected: Any, mode: str, verdict: str
) -> None:
    result = judge(
        spec([TestSpec("a", {}, expected)], compare=Compare(mode=mode)),
        run_fn=fake_run([outcome(0, output=output)]),
    )
    assert result.tests[0].verdict == verdict


def test_an_unexpected_exception_while_judging_is_a_platform_fault() -> None:
    def broken_callback(verdict: Any) -> None:
        raise ConnectionError("redis is down")

    def broken_run(**kwargs: Any) -> None:
        raise RuntimeError("bug in the runner")

    with pytest.raises(JudgeError, match="ConnectionError"):
        judge(
            spec([TestSpec("a", {}, 1)]),
            on_verdict=broken_callback,
            run_fn=fake_run([outcome(0, output=1)]),
        )
    with pytest.raises(JudgeError, match="RuntimeError"):
        judge(spec([TestSpec("a", {}, 1)]), run_fn=broken_run)


# A checker that reports each rule separately (results by rule): the output names the rules
# the engine broke; every test checks "schedule" and "step results", its group's rule is the
# input's "property".
RULES_CHECKER = (
    "def check(input, expected, output):\n"
    "    rules = {'schedule': None, 'step results': None}\n"
    "    for rule in output:\n"
    "        rules[rule] = rule + ' broken at step 3'\n"
    "    broken = [r for r, m in rules.items() if m]\n"
    "    evidence = {'rules': rules, 'property': input['property']}\n"
    "    return not broken, '; '.join(broken), evidence\n"
)


def _rules_spec(properties: list[str]) -> GradeSpec:
    tests = [
        TestSpec(f"t{i}", {"property": p}, None, group=f"about {p}", hidden=True)
        for i, p in enumerate(properties)
    ]
    return spec(tests, compare=Compare(mode="checker"), checker=RULES_CHECKER)


def test_one_broken_rule_costs_its_own_rule_not_every_test() -> None:
    # Given an engine that breaks only the 'step results' rule, in every test
    properties = ["schedule", "schedule", "step results"]
    outcomes = [outcome(i, output=["step results"]) for i in range(3)]

    # When it is judged
    result = judge(_rules_spec(properties), run_fn=fake_run(outcomes))

    # Then every test is still a wrong answer (all rules together) ...
    assert result.verdict == "WA" and result.passed == 0
    # ... but the rule line names the one broken rule, and groups about another rule count
    assert result.by_rule == {"schedule": (0, 3), "step results": (3, 3)}
    assert result.rules_line == "rule 'step results' broken in 3 of 3 tests; every other rule held"
    assert result.by_group == {"about schedule": (2, 2), "about step results": (0, 1)}
    assert result.group_rules == {
        "about schedule": "schedule",
        "about step results": "step results",
    }
    assert result.score == round(2 / 3, 4)
    summary = result.as_json()
    assert summary["rules_line"] == result.rules_line
    assert summary["by_group"]["about schedule"] == {
        "passed": 2,
        "total": 2,
        "worst": "WA",
        "rule": "schedule",
    }
    assert result.worst_by_group == {"about schedule": "WA", "about step results": "WA"}
    assert summary["by_rule"]["step results"] == {"broken": 3, "judged": 3}


def test_rule_line_lists_every_broken_rule_with_its_count() -> None:
    outcomes = [
        outcome(0, output=["schedule", "step results"]),
        outcome(1, output=["schedule"]),
        outcome(2, output=[]),
    ]

    result = judge(_rules_spec(["schedule"] * 3), run_fn=fake_run(outcomes))

    assert [t.verdict for t in result.tests] == ["WA", "WA", "AC"]
    assert result.rules_line == (
        "rules broken: 'schedule' in 2 of 3 tests, 'step results' in 1 of 3 tests"
    )  # no rule held everywhere, so no "every other rule held"
    assert result.by_group == {"about schedule": (1, 3)}


def test_a_test_that_did_not_finish_proves_no_rule() -> None:
    # A TLE or RE test reports no rules: it is neither counted for its group nor for any rule
    outcomes = [outcome(0, status="timeout"), outcome(1, output=[])]

    result = judge(_rules_spec(["schedule", "schedule"]), run_fn=fake_run(outcomes))

    assert result.by_group == {"about schedule": (1, 2)}
    assert result.by_rule == {"schedule": (0, 1), "step results": (0, 1)}
    assert result.rules_line == ""


def test_checkers_without_rules_aggregate_as_before() -> None:
    tests = [TestSpec("a", {}, 1, group="g"), TestSpec("b", {}, 1, group="g")]

    result = judge(spec(tests), run_fn=fake_run([outcome(0, output=1), outcome(1, output=2)]))

    assert result.by_rule == {} and result.group_rules == {} and result.rules_line == ""
    assert result.by_group == {"g": (1, 2)} and result.score == 0.5


@pytest.mark.parametrize(
    "evidence",
    [
        "{'rules': 'not a dict', 'property': 7}",
        "{'rules': {'x' * 200: None, 3: None, 'ok': 5}, 'property': 'ok'}",
        "{'rules': {'ok': None}, 'property': 'ok', 'plot': 'x' * 100000}",
    ],
)
def test_malformed_or_huge_rule_evidence_never_breaks_the_counts(evidence: str) -> None:
    checker = f"def check(input, expected, output):\n    return False, 'no', {evidence}\n"
    result = judge(
        spec([TestSpec("a", {}, 1, group="g")], compare=Compare(mode="checker"), checker=checker),
        run_fn=fake_run([outcome(0, output=1)]),
    )

    assert result.verdict == "WA"
    assert set(result.by_rule) <= {"ok"}
    for rule, (broken, judged) in result.by_rule.items():
        assert judged == 1 and broken in (0, 1), rule


def test_a_group_whose_tests_are_about_different_rules_names_each() -> None:
    outcomes = [outcome(0, output=["step results"]), outcome(1, output=["step results"])]
    tests = [
        TestSpec(f"t{i}", {"property": p}, None, group="edge cases")
        for i, p in enumerate(["schedule", "step results"])
    ]

    result = judge(
        spec(tests, compare=Compare(mode="checker"), checker=RULES_CHECKER),
        run_fn=fake_run(outcomes),
    )

    assert result.group_rules == {"edge cases": "schedule / step results"}
    assert result.by_group == {"edge cases": (1, 2)}  # each test counts its own rule


# ---------------------------------------------------------------- what an error says (issue 26)


def test_the_error_line_is_the_innermost_frame_in_the_candidates_file() -> None:
    traceback_text = (
        "Traceback (most recent call last):\n"
        '  File "solution.py", line 9, in solve\n'
        '  File "solution.py", line 4, in helper\n'
        "ZeroDivisionError: division by zero\n"
    )
    assert error_line(traceback_text) == 4
    assert error_line('  File "/work/solution.py", line 3\n    x = (\nSyntaxError: x') == 3
    assert error_line('  File "main.py", line 6, in <module>\nValueError') == 6
    assert error_line('  File "support.py", line 2, in f\nKeyError: 1') is None
    assert error_line("") is None


def _error(**fields: object) -> TestOutcome:
    base = {"index": 0, "name": "t", "status": "error", "output": None, "time_ms": 1.0,
            "cpu_ms": 1.0, "stdout": "", "error": "", "exc_type": "KeyError"}  # fmt: skip
    return TestOutcome(**(base | fields))  # type: ignore[arg-type]


def test_an_error_says_whether_the_code_did_not_load_or_the_input_was_malformed() -> None:
    broken = _error(error='  File "solution.py", line 2\nSyntaxError: bad', phase="load",
                    exc_type="SyntaxError", raised_by="candidate")  # fmt: skip
    assert error_detail(broken) == {
        "message": "your code did not load: SyntaxError: bad",
        "line": 2,
        "load": True,
    }
    grader = _error(error="KeyError: 'capacity'", phase="run", raised_by="grader")
    custom = error_detail(grader, custom=True)
    assert custom["input_error"] is True and "line" not in custom
    assert custom["message"].startswith("your input does not match this problem's input format")
    assert "KeyError: 'capacity'" in custom["message"]
    assert error_detail(grader)["message"].startswith("the grader could not use")
    own = _error(error='  File "solution.py", line 5, in f\nKeyError: 1', raised_by="candidate")
    assert error_detail(own) == {"message": "raised KeyError", "line": 5}


def test_stderr_is_kept_apart_in_the_detail() -> None:
    outcome = _error(status="ok", output=1, stdout="out\n", stderr="err\n", error="")
    verdict = verdict_for(outcome, TestSpec("t", None, 1), 0, Compare(), None)
    assert verdict.detail["stdout"] == "out\n" and verdict.detail["stderr"] == "err\n"


# ---------------------------------------------------------------- the verdict line (issue 36.3)

VERDICT_RULES = ("tokens", "stops", "callbacks", "capacity", "schedule", "step results")


def _ruled(
    index: int,
    group: str,
    prop: str,
    broken: dict[str, str],
    *,
    named: str | None = None,
    verdict: str | None = None,
) -> TestVerdict:
    """A test judged rule by rule: `broken` maps a rule to its first violation; the message is
    the violation of `named` (the checker's "rule"), else of the first broken rule."""
    rules = {rule: broken.get(rule) for rule in VERDICT_RULES}
    said = named or next(iter(broken), None)
    evidence: dict[str, Any] = {"rules": rules, "property": prop}
    if said:
        evidence["rule"] = said
    detail = {
        "message": broken[said] + " (+1 more violation)" if said else "ok",
        "evidence": evidence,
    }
    return TestVerdict(
        index,
        f"t{index}",
        verdict or ("WA" if broken else "AC"),
        1.0,
        "correctness",
        False,
        detail,
        group,
    )


def test_the_headline_names_the_rule_the_first_failing_tests_message_names() -> None:
    # Given a group about 'schedule' whose first failing test's message is a capacity breach
    verdicts = [
        _ruled(0, "correctness", "tokens", {}),
        _ruled(
            1,
            "work conservation",
            "schedule",
            {
                "capacity": "step 2: a batch of 3 sequences exceeds capacity 2",
                "schedule": "FIFO violated at step 4: admitted 'r9', expected 'r3'",
            },
            named="capacity",
        ),
        _ruled(2, "random schedules", "schedule", {"schedule": "step 1: left out"}),
    ]

    text = judgement_from(verdicts).as_json()["verdict_text"]

    assert text["failing"] == "rule 'capacity' broken in group 'work conservation' (and 1 more)"
    assert message_rule(verdicts[1]) == "capacity"


def test_without_a_named_rule_the_headline_takes_the_rule_the_message_states() -> None:
    test = _ruled(
        0,
        "edge",
        "stops",
        {"schedule": "late at step 1", "capacity": "over at step 0"},
        named="capacity",
    )
    plain = replace(
        test,
        detail={
            **test.detail,
            "evidence": {k: v for k, v in test.detail["evidence"].items() if k != "rule"},
        },
    )

    assert message_rule(plain) == "capacity"  # its message is the capacity violation's


def test_a_failing_groups_line_never_says_held() -> None:
    # Given two wrong answers in a group about 'tokens' where 'tokens' held (another rule broke)
    verdicts = [
        _ruled(i, "correctness", "tokens", {"schedule": f"step {i}: late"}) for i in range(2)
    ]

    text = verdict_text(verdicts)

    line = text["groups"]["correctness"]
    assert "held" not in line, line
    assert line == (
        "passed 0 of 2 — wrong answer: rule 'schedule' broken in 2 of 2; 2 of 2 "
        "count toward the score for rule 'tokens'"
    )
    assert text["failing"] == "rule 'schedule' broken in group 'correctness'"


def test_the_score_says_what_it_counts_when_it_is_not_the_share_passed() -> None:
    verdicts = [
        _ruled(
            i, "correctness", "tokens", {"schedule": "late"} if i < 3 else {"tokens": "wrong token"}
        )
        for i in range(4)
    ]

    judgement = judgement_from(verdicts)
    text = verdict_text(verdicts)

    assert (judgement.passed, judgement.score) == (0, 0.75)
    assert text["summary"] == "passed 0 of 4"
    assert text["score"] == (
        "score 0.75: the share of tests in which the rule their group is about held"
    )
    plain = verdict_text(
        [_ruled(0, "g", "tokens", {}), _ruled(1, "g", "tokens", {"tokens": "bad"})]
    )
    assert (plain["summary"], plain["score"]) == ("passed 1 of 2", "score 0.50")


def test_every_sentence_of_the_verdict_line_agrees_with_the_facts() -> None:
    """Property, over seeded random sets of tests: the headline's rule is the first failing
    test's message's rule; a group line says "held" only when the group passed, and its
    count is its AC tests; the summary's passed count and score are the judgement's, and a
    score that is not passed/total says what it counts."""
    import random

    rng = random.Random(36)
    for _ in range(400):
        verdicts = []
        for index in range(rng.randint(1, 8)):
            group = rng.choice(["correctness", "capacity", "edge"])
            prop = rng.choice(VERDICT_RULES)
            kind = rng.random()
            if kind < 0.1:
                verdicts.append(
                    TestVerdict(
                        index,
                        f"t{index}",
                        rng.choice(["TLE", "RE"]),
                        1.0,
                        "correctness",
                        False,
                        {"message": "x"},
                        group,
                    )
                )
                continue
            broken = {
                rule: f"step {rng.randint(0, 9)}: {rule} slip"
                for rule in rng.sample(VERDICT_RULES, rng.choice([0, 0, 1, 2]))
            }
            named = rng.choice(list(broken)) if broken else None
            verdicts.append(_ruled(index, group, prop, broken, named=named))
        judgement = judgement_from(verdicts)
        text = judgement.as_json()["verdict_text"]
        failing = [v for v in verdicts if v.verdict != "AC"]
        if failing:
            first = failing[0]
            rule = message_rule(first)
            expected_head = (
                f"rule '{rule}' broken in group '{first.group}'"
                if rule
                else f"{first.verdict} in group '{first.group}'"
            )
            assert text["failing"].startswith(expected_head), (text, first)
            if rule:
                assert first.detail["message"].startswith(first.detail["evidence"]["rules"][rule])
        else:
            assert text["failing"] == ""
        for group, line in text["groups"].items():
            members = [v for v in verdicts if v.group == group]
            ok = sum(v.verdict == "AC" for v in members)
            assert line.startswith(f"passed {ok} of {len(members)}"), line
            assert ("held" in line) <= (ok == len(members)), line
            assert (" — " in line) == (ok < len(members)), line
        assert text["summary"] == f"passed {judgement.passed} of {judgement.total}"
        assert text["score"].startswith(f"score {judgement.score:.2f}")
        if judgement.score != round(judgement.passed / judgement.total, 4):
            assert "the share of tests in which" in text["score"]


def test_the_judge_decides_once_which_rule_a_message_names() -> None:
    # Given a checker that names no rule, and one that names a rule which held
    outcomes = [outcome(0, output=["step results"]), outcome(1, output=[])]
    naming = RULES_CHECKER.replace(
        "'property': input['property']}", "'property': input['property'], 'rule': 'schedule'}"
    )

    plain = judge(_rules_spec(["schedule", "schedule"]), run_fn=fake_run(outcomes))
    named = judge(
        replace(_rules_spec(["schedule", "schedule"]), checker_code=naming),
        run_fn=fake_run(outcomes),
    )

    # Then each wrong answer's evidence carries the rule its message names, a pass none
    for result in (plain, named):
        assert result.tests[0].detail["evidence"]["rule"] == "step results"
        assert "rule" not in result.tests[1].detail["evidence"]
        assert result.as_json()["verdict_text"]["failing"] == (
            "rule 'step results' broken in group 'about schedule'"
        )


def test_an_internal_error_describes_none_of_the_tests_it_left() -> None:
    left = [_ruled(0, "correctness", "tokens", {"tokens": "wrong token"})]

    text = verdict_text(left, "IE")

    assert (text["summary"], text["failing"], text["groups"], text["rules"]) == ("", "", {}, "")


def test_a_group_stopped_by_another_groups_time_limit_says_so() -> None:
    tle = TestVerdict(0, "t0", "TLE", 1.0, "correctness", False, {"message": "x"}, "a")
    ok = TestVerdict(1, "t1", "AC", 1.0, "correctness", False, {}, "b")
    stopped = TestVerdict(2, "t2", NOT_RUN, 0.0, "correctness", False, {}, "b")

    text = verdict_text([tle, ok, stopped])

    assert text["groups"] == {
        "a": "passed 0 of 1 — time limit exceeded",
        "b": "passed 1 of 2 — 1 not run (stopped after a time limit)",
    }
    assert text["failing"] == "TLE in group 'a'"
