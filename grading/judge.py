"""Deciding verdicts: run the sandbox, compare outputs outside it, aggregate. Django-free.

Expected outputs never enter the sandbox: the container returns candidate outputs as JSON and
every comparison happens here, in the worker.
"""

from __future__ import annotations

import hashlib
import math
import re
import sys
import threading
import types
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from core.verdicts import NOT_RUN
from core.verdicts import worst as worst_verdict
from sandbox import Limits, SandboxError, TestInput, TestOutcome, run

STATUS_VERDICTS = {
    "timeout": "TLE",
    "cpu": "TLE",
    "memory": "MLE",
    "output": "OLE",
    "crash": "RE",
    "error": "RE",
    "skipped": NOT_RUN,
}
NOT_RUN_MESSAGE = "not run (stopped after a time limit)"
# Which tests one time limit stops (GradeSpec.stop): a Run stops at its first TLE, which
# already tells the candidate what they need (each later test would cost one more limit); a
# submit (and every author check) stops each group at its first, so a slow solution costs
# one limit per group and every other group is still graded. A test's group is its tag where
# the problem gives it none.
STOP_RUN = "run"
STOP_GROUP = "group"
MAX_DETAIL_CHARS = 4000
MAX_EVIDENCE_CHARS = 20000


class JudgeError(Exception):
    """The grader itself failed (sandbox down, broken checker): the verdict would be IE.

    `platform` is True when the sandbox (Docker, the image, the harness) failed, a fault a
    later attempt may get past; False when the problem's own code (checker, driver) is broken.
    """

    def __init__(self, message: str, *, platform: bool = False) -> None:
        super().__init__(message)
        self.platform = platform


@dataclass(frozen=True)
class Compare:
    mode: str = "exact"
    float_rel: float = 1e-6
    float_abs: float = 1e-9


@dataclass(frozen=True)
class TestSpec:
    __test__ = False  # not a pytest class

    name: str
    input: Any
    expected: Any
    tag: str = "correctness"
    hidden: bool = False
    compare: str | None = None
    group: str | None = None
    # The candidate's own input (a custom-input run): an error the grader's driver raised
    # on it means the input does not match the problem's format, and says so.
    custom: bool = False


@dataclass(frozen=True)
class GradeSpec:
    solution: str
    driver: Mapping[str, Any]
    tests: Sequence[TestSpec]
    limits: Limits
    compare: Compare
    image: str
    gpu: bool = False
    checker_code: str = ""
    support_code: str = ""
    stop: str = STOP_GROUP


def stop_group(test: TestSpec, stop: str) -> str:
    """The tests a time limit on `test` stops with it (see STOP_RUN, STOP_GROUP)."""
    if stop == STOP_RUN:
        return "run"
    return f"group:{test.group}" if test.group else f"tag:{test.tag}"


@dataclass(frozen=True)
class TestVerdict:
    __test__ = False  # not a pytest class

    index: int
    name: str
    verdict: str
    time_ms: float
    tag: str
    hidden: bool
    detail: Mapping[str, Any] = field(default_factory=dict)
    group: str | None = None
    # CPU time of every process of the test (what TLE is judged on); time_ms is wall time.
    cpu_ms: float = 0.0


class Graded(Protocol):
    """What the verdict line reads of a graded test: a TestVerdict, or a stored TestResult."""

    @property
    def index(self) -> int: ...
    @property
    def verdict(self) -> str: ...
    @property
    def tag(self) -> str: ...
    @property
    def group(self) -> str | None: ...
    @property
    def detail(self) -> Any: ...


@dataclass(frozen=True)
class Judgement:
    verdict: str
    passed: int
    total: int
    score: float
    by_tag: Mapping[str, tuple[int, int]]
    tests: tuple[TestVerdict, ...]
    by_group: Mapping[str, tuple[int, int]] = field(default_factory=dict)
    # The worst verdict per tag ("performance": "TLE"): says "slow or wrong?" per category
    # without naming a hidden test.
    worst_by_tag: Mapping[str, str] = field(default_factory=dict)
    # Results by rule (checker problems whose evidence carries "rules"): per rule, (tests it
    # was broken in, tests it was judged in); and the rule each group's score is about.
    by_rule: Mapping[str, tuple[int, int]] = field(default_factory=dict)
    group_rules: Mapping[str, str] = field(default_factory=dict)
    # The worst verdict per group, as worst_by_tag per tag: the verdict line names the group.
    worst_by_group: Mapping[str, str] = field(default_factory=dict)

    @property
    def rules_line(self) -> str:
        return rules_line(self.by_rule)

    def as_json(self) -> dict[str, Any]:
        return {
            "verdict": self.verdict,
            "passed": self.passed,
            "total": self.total,
            "score": self.score,
            "by_tag": {
                tag: {"passed": passed, "total": total, "worst": self.worst_by_tag.get(tag, "")}
                for tag, (passed, total) in self.by_tag.items()
            },
            "by_group": {
                group: {
                    "passed": passed,
                    "total": total,
                    "worst": self.worst_by_group.get(group, ""),
                }
                | ({"rule": self.group_rules[group]} if group in self.group_rules else {})
                for group, (passed, total) in self.by_group.items()
            },
            "by_rule": {
                rule: {"broken": broken, "judged": judged}
                for rule, (broken, judged) in self.by_rule.items()
            },
            "rules_line": self.rules_line,
            "verdict_text": verdict_text(self.tests, self.verdict),
            "tests": [
                {"name": t.name, "verdict": t.verdict, "time_ms": t.time_ms, "cpu_ms": t.cpu_ms}
                for t in self.tests
            ],
        }


# ---------------------------------------------------------------- comparison


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _numbers_equal(a: float, b: float, compare: Compare, tolerant: bool) -> bool:
    """Total on every JSON number: ints of any size, NaN, infinities (never raises).

    ``math.isclose`` converts ints to float, which overflows past ~309 digits; an int that has
    no float form is compared exactly instead (Python compares int with float exactly).
    """
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    if not tolerant:
        return bool(a == b)
    try:
        return math.isclose(a, b, rel_tol=compare.float_rel, abs_tol=compare.float_abs)
    except (OverflowError, TypeError, ValueError):
        return bool(a == b)


def _plain(value: Any) -> Any:
    """``value`` as exact builtin JSON types, so no subclass ``__eq__`` takes part."""
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, int):
        return int.__int__(value)
    if isinstance(value, float):
        return float.__float__(value)
    if isinstance(value, str):
        return str.__str__(value)
    return value


def values_equal(output: Any, expected: Any, compare: Compare, *, tolerant: bool = False) -> bool:
    """Structural equality of JSON values; numbers within tolerance when `tolerant`.

    Total: iterative (no recursion limit however deep the output), exact types only, and every
    leaf comparison is one that cannot raise, so any JSON value gets an answer.
    """
    stack: list[tuple[Any, Any]] = [(output, expected)]
    while stack:
        out, exp = stack.pop()
        out, exp = _plain(out), _plain(exp)
        if _is_number(out) and _is_number(exp):
            if not _numbers_equal(out, exp, compare, tolerant):
                return False
            continue
        if type(out) is not type(exp):
            return False
        if isinstance(exp, list):
            if len(out) != len(exp):
                return False
            stack.extend(zip(out, exp, strict=True))
        elif isinstance(exp, dict):
            if out.keys() != exp.keys():
                return False
            stack.extend((out[key], exp[key]) for key in exp)
        elif exp is None or isinstance(exp, (str, bool)):
            if out != exp:
                return False
        else:  # not a JSON type at all (only a caller bug can bring one here)
            return False
    return True


def _canonical(value: Any) -> str:
    """A stable text of a JSON value, for counting (unordered lists) and size checks. Total:
    a value json cannot write (nested too deep, an int past Python's digit limit) gets its
    type and ``id`` instead, so it equals nothing but itself."""
    import json

    try:
        return json.dumps(value, sort_keys=True, allow_nan=True)
    except (ValueError, TypeError, RecursionError):
        return f"<unwritable {type(value).__name__} {id(value)}>"


def compare_with_evidence(
    output: Any, test: TestSpec, compare: Compare, checker: Checker | None
) -> tuple[bool, str, dict[str, Any]]:
    """Whether `output` is right for `test`, a message for the author or interviewer, and the
    checker's evidence (if any)."""
    mode = test.compare or compare.mode
    if mode == "checker":
        if checker is None:
            raise JudgeError("problem uses a checker but has no checker code")
        return checker.check_with_evidence(test.input, test.expected, output)
    if mode == "unordered":
        if not isinstance(output, list) or not isinstance(expected := test.expected, list):
            return False, "expected a list", {}
        same = Counter(map(_canonical, output)) == Counter(map(_canonical, expected))
        return same, "", {}
    return values_equal(output, test.expected, compare, tolerant=mode == "float"), "", {}


class Checker:
    """An author's checker.py, loaded once in the worker with its support module."""

    _lock = threading.Lock()

    def __init__(self, checker_code: str, support_code: str = "") -> None:
        self._support = self._module("support", support_code) if support_code else None
        with self._installed_support():
            self._module_obj = self._module("checker", checker_code)
        if not callable(getattr(self._module_obj, "check", None)):
            raise JudgeError("checker.py defines no check(input, expected, output)")

    @staticmethod
    def _module(name: str, code: str) -> types.ModuleType:
        module = types.ModuleType(name)
        module.__file__ = f"<{name}.py>"
        # What a checker may key a process-wide cache of deterministic results by (reference
        # decodes of a problem version's model): a new version's code has a new hash.
        module.__dict__["__source_sha256__"] = hashlib.sha256(
            code.encode("utf-8", "surrogatepass")
        ).hexdigest()
        try:
            exec(compile(code, f"{name}.py", "exec"), module.__dict__)  # noqa: S102 - author code
        except Exception as exc:
            raise JudgeError(f"{name}.py failed to load: {exc!r}") from exc
        return module

    def _installed_support(self) -> _SupportContext:
        return _SupportContext(self._support, self._lock)

    def check(self, input_value: Any, expected: Any, output: Any) -> tuple[bool, str]:
        ok, message, _ = self.check_with_evidence(input_value, expected, output)
        return ok, message

    def check_with_evidence(
        self, input_value: Any, expected: Any, output: Any
    ) -> tuple[bool, str, dict[str, Any]]:
        """A checker returns a bool, (bool, message), or (bool, message, evidence), where the
        evidence is a small JSON object the results page can plot (occupancy per step...)."""
        with self._installed_support():
            try:
                result = self._module_obj.check(input_value, expected, output)
            except Exception as exc:  # a checker must not crash on any candidate output
                return False, f"checker rejected the output: {exc!r}"[:MAX_DETAIL_CHARS], {}
        if not isinstance(result, tuple):
            return bool(result), "", {}
        message = str(result[1]) if len(result) > 1 else ""
        evidence = result[2] if len(result) > 2 and isinstance(result[2], dict) else {}
        evidence = _with_valid_rules(evidence)
        if len(_canonical(evidence)) > MAX_EVIDENCE_CHARS:
            # The rules stay (bounded above): the results by rule must not depend on how
            # much else the checker chose to plot.
            kept = {key: evidence[key] for key in RULE_KEYS if key in evidence}
            evidence = {"omitted": "evidence too large"} | kept
        return bool(result[0]), message, evidence


class _SupportContext:
    """Makes `import support` inside the checker resolve to this problem's support module."""

    def __init__(self, module: types.ModuleType | None, lock: threading.Lock) -> None:
        self._module = module
        self._lock = lock
        self._previous: types.ModuleType | None = None

    def __enter__(self) -> None:
        self._lock.acquire()
        self._previous = sys.modules.get("support")
        if self._module is not None:
            sys.modules["support"] = self._module

    def __exit__(self, *exc: object) -> None:
        if self._previous is not None:
            sys.modules["support"] = self._previous
        else:
            sys.modules.pop("support", None)
        self._lock.release()


# ---------------------------------------------------------------- results by rule

# A checker's evidence may report each rule a test checks separately (contract "results by
# rule"): "rules": {name: None | "how it was broken"}, "property": the name of the rule the
# test's group is about, and "rule": the rule its message names. A test passes only with every
# rule held; its group's score counts it when its property held.
MAX_RULES = 16
# "rule": the rule the test's message is about (its first violation's), which the verdict
# line names.
RULE_KEYS = ("rules", "property", "rule")
MAX_RULE_NAME = 40
MAX_RULE_MESSAGE = 500


def _rule_name(value: Any) -> str | None:
    if isinstance(value, str) and 0 < len(value) <= MAX_RULE_NAME and value.isprintable():
        return value
    return None


def _with_valid_rules(evidence: dict[str, Any]) -> dict[str, Any]:
    """The evidence with "rules" and "property" kept only in their contract's shape (short
    printable names, None or a bounded message): a checker's slip cannot break the counts."""
    raw = evidence.get("rules")
    if raw is None and "property" not in evidence and "rule" not in evidence:
        return evidence
    out = {k: v for k, v in evidence.items() if k not in RULE_KEYS}
    if isinstance(raw, dict):
        rules: dict[str, str | None] = {}
        for key, value in list(raw.items())[:MAX_RULES]:
            name = _rule_name(key)
            if name is not None:
                rules[name] = None if value is None else str(value)[:MAX_RULE_MESSAGE]
        out["rules"] = rules
    prop = _rule_name(evidence.get("property"))
    if prop is not None:
        out["property"] = prop
    named = _rule_name(evidence.get("rule"))
    if named is not None:
        out["rule"] = named
    return out


def verdict_rules(verdict: Graded) -> Mapping[str, str | None]:
    """The rules a test's checker judged: name -> None (held) or how it was broken."""
    evidence = verdict.detail.get("evidence")
    rules = evidence.get("rules") if isinstance(evidence, Mapping) else None
    return rules if isinstance(rules, Mapping) else {}


def verdict_property(verdict: Graded) -> str | None:
    """The rule the test's group is about, when its checker names one."""
    evidence = verdict.detail.get("evidence")
    prop = evidence.get("property") if isinstance(evidence, Mapping) else None
    return prop if isinstance(prop, str) and prop else None


def verdict_credited(verdict: Graded) -> bool:
    """Whether the test counts for its group's score: it passed, or it is a wrong answer in
    which the rule its group is about held (another rule broke). A test whose program did
    not finish (TLE, RE...) proved nothing about any rule."""
    if verdict.verdict == "AC":
        return True
    prop = verdict_property(verdict)
    rules = verdict_rules(verdict)
    return verdict.verdict == "WA" and prop is not None and prop in rules and rules[prop] is None


def _rule_counts(verdicts: Sequence[Graded]) -> dict[str, tuple[int, int]]:
    """(tests broken in, tests judged in) per rule, in order of first appearance."""
    counts: dict[str, list[int]] = {}
    for v in verdicts:
        for rule, broken in verdict_rules(v).items():
            pair = counts.setdefault(rule, [0, 0])
            pair[0] += broken is not None
            pair[1] += 1
    return {rule: (c[0], c[1]) for rule, c in counts.items()}


GROUP_RULES_JOIN = " / "


def _group_rules(verdicts: Sequence[Graded]) -> dict[str, str]:
    """The rule each group is about: the property its tests name ("edge cases": "stops"), or
    every one they name, in order, when they differ ("stops / step results")."""
    named: dict[str, list[str]] = {}
    for v in verdicts:
        prop = verdict_property(v)
        if v.group and prop and prop not in named.setdefault(v.group, []):
            named[v.group].append(prop)
    return {group: GROUP_RULES_JOIN.join(props) for group, props in named.items() if props}


def rules_line(by_rule: Mapping[str, Sequence[int]]) -> str:
    """The broken rules as one sentence for the verdict line and the reports ("" when no rule
    was reported broken): "rule 'step results' broken in 31 of 31 tests; every other rule
    held"."""
    broken = [(rule, int(c[0]), int(c[1])) for rule, c in by_rule.items() if int(c[0]) > 0]
    if not broken:
        return ""
    broken.sort(key=lambda item: (-item[1], item[0]))
    if len(broken) == 1:
        rule, count, judged = broken[0]
        text = f"rule '{rule}' broken in {count} of {judged} tests"
    else:
        text = "rules broken: " + ", ".join(
            f"'{rule}' in {count} of {judged} tests" for rule, count, judged in broken
        )
    held = len(by_rule) - len(broken)
    if held:
        text += "; every other rule held"
    return text


def rule_of_message(rules: Any, named: Any, message: Any) -> str | None:
    """The rule a message names, of a test's `rules` (name -> None or its first violation):
    `named` (the checker's "rule") where it is a broken rule; else the broken rule whose
    violation the message states; else the first broken rule. None when none broke."""
    if not isinstance(rules, Mapping):
        return None
    broken = {rule: text for rule, text in rules.items() if text is not None}
    if not broken:
        return None
    if isinstance(named, str) and named in broken:
        return named
    if isinstance(message, str):
        stated = [rule for rule, text in broken.items() if text and text in message]
        if stated:
            return max(stated, key=lambda rule: len(broken[rule] or ""))
    return next(iter(broken))


def message_rule(verdict: Graded) -> str | None:
    """The rule a wrong answer's message names (rule_of_message); None for any other verdict."""
    if verdict.verdict != "WA" or not isinstance(verdict.detail, Mapping):
        return None
    evidence = verdict.detail.get("evidence")
    named = evidence.get("rule") if isinstance(evidence, Mapping) else None
    return rule_of_message(verdict_rules(verdict), named, verdict.detail.get("message"))


VERDICT_WORDS = {
    "AC": "accepted",
    "WA": "wrong answer",
    "TLE": "time limit exceeded",
    "MLE": "memory limit exceeded",
    "OLE": "output limit exceeded",
    "RE": "runtime error",
    "IE": "internal error",
    NOT_RUN: "not run",
}
SCORE_COUNTS = "the share of tests in which the rule their group is about held"


def _quoted_rules(rules: str) -> str:
    """"'tokens'" or, for a group about several rules, "'stops', 'step results'"."""
    return ", ".join(f"'{rule}'" for rule in rules.split(GROUP_RULES_JOIN))


def verdict_text(verdicts: Sequence[Graded], verdict: str | None = None) -> dict[str, Any]:
    """Every sentence of the verdict line, from one set of facts (the tests' verdicts, their
    groups and the rules their checkers reported), so no two sentences can disagree:

    * "summary": "passed 0 of 4"; "score": "score 0.75: the share of tests in which ..."
      (what it counts, where it is not the share of tests passed), else "score 0.50";
    * "failing": where it failed, from the first failing test: "rule 'capacity' broken in
      group 'work conservation'" (the rule its message names), "TLE in group 'large'", or
      "WA in edge cases" for a problem without groups ("" when nothing failed);
    * "groups": per group, its own count and verdict ("passed 0 of 2 — wrong answer: rule
      'schedule' broken in 2 of 2"); "held" is said only of a group that passed;
    * "rules": the broken rules across all tests (rules_line).

    `verdict` is the submission's own (an IE with no tests), else the worst of the tests'.
    """
    verdict = verdict if verdict is not None else worst_verdict([v.verdict for v in verdicts])
    # The grader failed (IE): whatever tests it left are no verdict to describe.
    tests = [] if verdict == "IE" else sorted(verdicts, key=lambda v: v.index)
    total = len(tests)
    passed = sum(v.verdict == "AC" for v in tests)
    credited = sum(verdict_credited(v) for v in tests)
    score = round(credited / total, 4) if total else 0.0
    summary = f"passed {passed} of {total}" if total else ""
    score_text = ""
    if total and credited != passed:
        score_text = f"score {score:.2f}: {SCORE_COUNTS}"
    elif total:
        score_text = f"score {score:.2f}"

    def place(v: Graded) -> str:
        return f"group '{v.group}'" if v.group else v.tag.replace("_", " ")

    failing = [v for v in tests if v.verdict not in ("AC", NOT_RUN)]
    failing_text = ""
    if failing and verdict != "AC":
        first = failing[0]
        rule = message_rule(first)
        where = place(first)
        failing_text = (f"rule '{rule}' broken in {where}" if rule
                        else f"{first.verdict} in {where}")
        others = len({place(v) for v in failing} - {where})
        if others:
            failing_text += f" (and {others} more)"

    groups: dict[str, str] = {}
    about = _group_rules(tests)
    for group in dict.fromkeys(v.group for v in tests if v.group):
        members = [v for v in tests if v.group == group]
        n = len(members)
        ok = sum(v.verdict == "AC" for v in members)
        line = f"passed {ok} of {n}"
        rules = about.get(group)
        if ok == n:
            if rules and GROUP_RULES_JOIN not in rules:
                line += f"; rule '{rules}' held in {n} of {n}"
            groups[group] = line
            continue
        ran = [v.verdict for v in members if v.verdict != NOT_RUN]
        worst = worst_verdict(ran) if ran else NOT_RUN
        if worst in ("AC", NOT_RUN):  # every test it ran passed: the rest were stopped
            line += f" — {n - len(ran)} not run (stopped after a time limit)"
        else:
            line += f" — {VERDICT_WORDS.get(worst, worst)}"
        counts = _rule_counts(members)
        broken = sorted(((rule, c[0], c[1]) for rule, c in counts.items() if c[0]),
                        key=lambda item: -item[1])
        if broken:
            line += ": " + ", ".join(f"rule '{rule}' broken in {count} of {judged}"
                                     for rule, count, judged in broken)
        credit = sum(verdict_credited(v) for v in members)
        if rules and credit != ok:
            line += (f"; {credit} of {n} count toward the score for "
                     f"{'rule' if GROUP_RULES_JOIN not in rules else 'rules'} "
                     f"{_quoted_rules(rules)}")
        groups[group] = line
    return {
        "verdict": verdict,
        "summary": summary,
        "score": score_text,
        "failing": failing_text,
        "groups": groups,
        "rules": rules_line(_rule_counts(tests)),
    }


# ---------------------------------------------------------------- verdicts


# Control bytes (NUL breaks PostgreSQL's jsonb; ANSI escapes) and bidi overrides (which make
# text read differently from what it is) are stored and shown escaped, never raw.
_UNSAFE = {c: f"\\x{c:02x}" for c in [*range(0x00, 0x09), 0x0B, 0x0C, *range(0x0E, 0x20), 0x7F]}
_UNSAFE |= {
    c: f"\\u{c:04x}"
    for c in [
        *range(0x80, 0xA0),
        *range(0x202A, 0x202F),
        *range(0x2066, 0x206A),
        0x200E,
        0x200F,
        0xFEFF,
    ]
}
_UNSAFE |= {c: f"\\u{c:04x}" for c in range(0xD800, 0xE000)}  # lone surrogates


def _clip(text: Any) -> str:
    text = text if isinstance(text, str) else _canonical(text)
    if len(text) > MAX_DETAIL_CHARS:
        text = text[:MAX_DETAIL_CHARS] + "…[truncated]"
    return text.translate(_UNSAFE)


def _streams_clip(streams: tuple[tuple[str, str], ...]) -> list[list[str]]:
    """The ordered pieces, within the same MAX_DETAIL_CHARS as each stream alone."""
    out: list[list[str]] = []
    left = MAX_DETAIL_CHARS
    for stream, text in streams:
        if left <= 0:
            out.append([stream, "…[truncated]"])
            break
        piece = text[:left] + ("…[truncated]" if len(text) > left else "")
        out.append([stream, piece.translate(_UNSAFE)])
        left -= len(text)
    return out


def verdict_for(
    outcome: TestOutcome | None,
    test: TestSpec,
    index: int,
    compare: Compare,
    checker: Checker | None,
) -> TestVerdict:
    """Turn one raw sandbox outcome into a verdict with the detail an interviewer may see."""
    detail: dict[str, Any] = {"input": _clip(test.input), "expected": _clip(test.expected)}
    if outcome is None:
        return TestVerdict(
            index,
            test.name,
            "RE",
            0.0,
            test.tag,
            test.hidden,
            detail | {"message": "no result: the program ended before this test"},
            test.group,
        )
    detail |= {"stdout": _clip(outcome.stdout), "error": _clip(outcome.error)}
    if outcome.stderr:
        detail["stderr"] = _clip(outcome.stderr)
    if outcome.streams:
        # Both streams in the order they were written (each line labelled on the page).
        detail["streams"] = _streams_clip(outcome.streams)
    if outcome.status == "skipped":
        verdict = NOT_RUN
        detail["message"] = NOT_RUN_MESSAGE
    elif outcome.status == "ok":
        ok, message, evidence = compare_with_evidence(outcome.output, test, compare, checker)
        verdict = "AC" if ok else "WA"
        detail |= {"output": _clip(outcome.output), "message": _clip(message)}
        if evidence:
            # The rule the message names, decided once here: the verdict line, the row and
            # the custom input's findings all read this one "rule".
            rule = rule_of_message(evidence.get("rules"), evidence.get("rule"), message)
            evidence = {k: v for k, v in evidence.items() if k != "rule"}
            if rule is not None and not ok:
                evidence["rule"] = rule
            detail["evidence"] = evidence
    else:
        # The class is the sandbox's status alone (decided from what its supervisor observed);
        # an exception's name is the test's own words, so a MemoryError here is RE.
        verdict = STATUS_VERDICTS.get(outcome.status, "RE")
        detail |= error_detail(outcome, custom=test.custom)
    return TestVerdict(
        index,
        test.name,
        verdict,
        round(outcome.time_ms, 2),
        test.tag,
        test.hidden,
        detail,
        test.group,
        cpu_ms=round(outcome.cpu_ms, 2),
    )


# Where a candidate's traceback points in their own file (the innermost frame of it).
# "main.py": the console runs the whole file under that name (grading/scratch.py).
_SOLUTION_LINE = re.compile(r'File "(?:[^"\n]*/)?(?:solution|main)\.py", line (\d+)')


def error_line(error: str) -> int | None:
    """The line of the candidate's file a traceback (or a SyntaxError) points at, innermost
    frame last: what the editor marks in its gutter. None when it names no line of theirs."""
    found = _SOLUTION_LINE.findall(error or "")
    return int(found[-1]) if found else None


def _last_line(error: str) -> str:
    lines = [line for line in (error or "").strip().splitlines() if line.strip()]
    return lines[-1].strip() if lines else ""


def error_detail(outcome: TestOutcome, *, custom: bool = False) -> dict[str, Any]:
    """The message (and, for an error, its place) of a test that did not return: what the
    results page shows instead of the raw status. The verdict is not decided here."""
    detail: dict[str, Any] = {"message": _status_message(outcome)}
    if outcome.status != "error":
        return detail
    line = error_line(outcome.error)
    if line is not None:
        detail["line"] = line
    if outcome.phase == "load":
        # The same in every test (the file did not import): the page shows it once.
        detail["load"] = True
        detail["message"] = f"your code did not load: {_clip(_last_line(outcome.error))}"
    elif outcome.raised_by == "grader" and custom:
        detail["message"] = (
            "your input does not match this problem's input format (the grader's driver "
            f"could not read it: {_clip(_last_line(outcome.error))}); start from the example input"
        )
        detail["input_error"] = True
    elif outcome.raised_by == "grader":
        detail["message"] = (
            "the grader could not use what your code returned or did: "
            f"{_clip(_last_line(outcome.error))}"
        )
    return detail


def _status_message(outcome: TestOutcome) -> str:
    messages = {
        "timeout": "time limit exceeded (wall clock)",
        "cpu": "time limit exceeded (CPU)",
        "memory": "memory limit exceeded",
        "output": "output limit exceeded",
        "crash": "the program ended without a result",
        "error": f"raised {outcome.exc_type or 'an exception'}",
    }
    return messages.get(outcome.status, outcome.status)


def _pass_counts(
    verdicts: Sequence[TestVerdict],
    label: Callable[[TestVerdict], str | None],
    passed: Callable[[TestVerdict], bool] = lambda v: v.verdict == "AC",
) -> dict[str, tuple[int, int]]:
    """(passed, total) per label, in order of first appearance; unlabelled tests are skipped."""
    counts: dict[str, list[int]] = {}
    for v in verdicts:
        key = label(v)
        if key:
            pair = counts.setdefault(key, [0, 0])
            pair[0] += passed(v)
            pair[1] += 1
    return {key: (c[0], c[1]) for key, c in counts.items()}


def _worst_per(
    verdicts: Sequence[TestVerdict], label: Callable[[TestVerdict], str | None]
) -> dict[str, str]:
    """The worst verdict per label, over the tests that ran (a tag none of whose tests ran,
    all stopped by a time limit in a group that spans tags, has none)."""
    grouped: dict[str, list[str]] = {}
    for v in verdicts:
        key = label(v)
        if key and v.verdict != NOT_RUN:
            grouped.setdefault(key, []).append(v.verdict)
    return {key: worst_verdict(found) for key, found in grouped.items()}


def _worst_per_tag(verdicts: Sequence[TestVerdict]) -> dict[str, str]:
    return _worst_per(verdicts, lambda v: v.tag)


def judgement_from(verdicts: Sequence[TestVerdict]) -> Judgement:
    """Aggregate test verdicts. `passed` counts AC tests; `score` and each group's count also
    credit a wrong answer whose group's rule held, where its checker reports rules by test
    (verdict_credited): one broken convention costs its own rule, not every test."""
    verdicts = sorted(verdicts, key=lambda v: v.index)
    passed = sum(v.verdict == "AC" for v in verdicts)
    credited = sum(verdict_credited(v) for v in verdicts)
    total = len(verdicts)
    return Judgement(
        verdict=worst_verdict([v.verdict for v in verdicts]),
        passed=passed,
        total=total,
        score=round(credited / total, 4) if total else 0.0,
        by_tag=_pass_counts(verdicts, lambda v: v.tag),
        tests=tuple(verdicts),
        by_group=_pass_counts(verdicts, lambda v: v.group, verdict_credited),
        worst_by_tag=_worst_per_tag(verdicts),
        by_rule=_rule_counts(verdicts),
        group_rules=_group_rules(verdicts),
        worst_by_group=_worst_per(verdicts, lambda v: v.group),
    )


def sandbox_modules(spec: GradeSpec) -> dict[str, str] | None:
    """The extra modules a grading writes next to the solution in the sandbox (its support)."""
    return {"support": spec.support_code} if spec.support_code else None


def judge(
    spec: GradeSpec,
    *,
    on_verdict: Callable[[TestVerdict], None] | None = None,
    run_fn: Callable[..., Any] = run,
) -> Judgement:
    """Grade `spec.solution` on `spec.tests`. Raises JudgeError on a platform fault.

    Candidate behaviour never raises: every output gets a verdict. Anything else that goes
    wrong while judging (the sandbox, a callback, a bug here) is a platform fault and surfaces
    as ``JudgeError``, so the caller releases the submission for a retry instead of leaving
    it running.
    """
    try:
        return _judge(spec, on_verdict=on_verdict, run_fn=run_fn)
    except JudgeError:
        raise
    except SandboxError as exc:
        raise JudgeError(f"sandbox failed: {exc}", platform=True) from exc
    except Exception as exc:
        raise JudgeError(f"grading failed: {type(exc).__name__}: {exc}"[:2000]) from exc


def _judge(
    spec: GradeSpec,
    *,
    on_verdict: Callable[[TestVerdict], None] | None,
    run_fn: Callable[..., Any],
) -> Judgement:
    checker = Checker(spec.checker_code, spec.support_code) if spec.checker_code else None
    by_index: dict[int, TestVerdict] = {}

    def handle(outcome: TestOutcome) -> None:
        if outcome.index in by_index or not 0 <= outcome.index < len(spec.tests):
            return  # a duplicate or forged frame can neither add nor replace a verdict
        verdict = verdict_for(
            outcome, spec.tests[outcome.index], outcome.index, spec.compare, checker
        )
        by_index[outcome.index] = verdict
        if on_verdict is not None:
            on_verdict(verdict)

    modules = sandbox_modules(spec)
    result = run_fn(
        solution=spec.solution,
        driver=dict(spec.driver),
        tests=[
            TestInput(name=t.name, input=t.input, stop_group=stop_group(t, spec.stop))
            for t in spec.tests
        ],
        limits=spec.limits,
        image=spec.image,
        gpu=spec.gpu,
        on_outcome=handle,
        modules=modules,
    )
    for outcome in getattr(result, "outcomes", ()):
        handle(outcome)  # outcomes already streamed are skipped as duplicates
    for index, test in enumerate(spec.tests):
        if index not in by_index:
            missing = verdict_for(None, test, index, spec.compare, checker)
            by_index[index] = missing
            if on_verdict is not None:
                on_verdict(missing)
    return judgement_from(list(by_index.values()))
