"""What a test's process prints and raises, as the candidate reads it (issue 26, point 3):
stdout and stderr captured apart, print() lines as printed, ``input()`` failing at once, a
solution that does not load said to be one, and tracebacks holding no harness or driver frame.
Real image, real harness; several cases share one run (one container).
"""

from __future__ import annotations

import textwrap

import pytest

from sandbox import Limits, TestInput, run

pytestmark = pytest.mark.docker

FAST = Limits(test_wall_seconds=10.0, test_cpu_seconds=10.0, memory_mb=128, output_bytes=4096)


def _run(image: str, solution: str, cases: list[str], driver: dict | None = None):  # type: ignore[no-untyped-def]
    return run(
        solution=textwrap.dedent(solution),
        driver=driver or {"kind": "function", "entry": "solve"},
        tests=[TestInput(name=case, input={"args": [case]}) for case in cases],
        limits=FAST,
        image=image,
    ).outcomes


def test_stdout_and_stderr_apart_and_input_fails_at_once(sandbox_image: str) -> None:
    solution = """
        import sys

        def solve(case):
            if case == "streams":
                print("first to stdout")
                print("to stderr", file=sys.stderr)
                print("second to stdout")
                return 1
            if case == "input":
                return input("your name? ")
            if case == "read":
                return sys.stdin.read()
            if case == "boom":
                return helper()

        def helper():
            return 1 / 0
    """
    streams, asked, read, boom = _run(sandbox_image, solution, ["streams", "input", "read", "boom"])
    assert streams.status == "ok"
    assert streams.stdout == "first to stdout\nsecond to stdout\n"
    assert streams.stderr == "to stderr\n"
    # stdin is closed: input() says why at once (no wall backstop), a read is plain EOF.
    assert asked.status == "error" and asked.exc_type == "EOFError", asked
    assert "input() is not available: this run has no stdin" in asked.error
    assert read.status == "ok" and read.output == ""
    # The traceback is the candidate's: their two frames, none of the harness's.
    assert boom.status == "error" and boom.raised_by == "candidate" and boom.phase == "run"
    assert "runner.py" not in boom.error and "importlib" not in boom.error
    assert 'File "solution.py"' in boom.error and "/work/" not in boom.error  # their own name
    assert boom.error.count('solution.py", line') == 2 and "ZeroDivisionError" in boom.error


def test_a_solution_that_does_not_load_says_so(sandbox_image: str) -> None:
    broken = """
        def solve(case):
            return case +
    """
    first, second = _run(sandbox_image, broken, ["a", "b"])
    for outcome in (first, second):
        assert outcome.status == "error" and outcome.exc_type == "SyntaxError"
        assert outcome.phase == "load" and outcome.raised_by == "candidate"
        assert 'solution.py", line 3' in outcome.error and "runner.py" not in outcome.error
    importing = "import no_such_module_here\n\ndef solve(case):\n    return case\n"
    (missing,) = _run(sandbox_image, importing, ["a"])
    assert missing.phase == "load" and missing.exc_type == "ModuleNotFoundError"
    assert 'solution.py", line 1' in missing.error


def test_an_error_of_the_custom_driver_is_the_graders(sandbox_image: str) -> None:
    driver_source = textwrap.dedent(
        """
        def run(solution, test_input):
            capacity = test_input["capacity"]  # a custom input without it: the driver's KeyError
            return solution.Engine(capacity).go()
        """
    )
    solution = """
        class Engine:
            def __init__(self, capacity):
                self.capacity = capacity

            def go(self):
                return [1][self.capacity]
    """
    outcomes = run(
        solution=textwrap.dedent(solution),
        driver={"kind": "custom", "source": driver_source},
        tests=[TestInput("no capacity", {"size": 2}), TestInput("bad capacity", {"capacity": 5})],
        limits=FAST,
        image=sandbox_image,
    ).outcomes
    malformed, candidate = outcomes
    assert malformed.status == "error" and malformed.raised_by == "grader", malformed
    assert "_onsite_driver" not in malformed.error and "KeyError: 'capacity'" in malformed.error
    # The candidate's IndexError keeps their frame, without the driver's frame above it.
    assert candidate.raised_by == "candidate" and "IndexError" in candidate.error
    assert "_onsite_driver" not in candidate.error and 'solution.py", line 7' in candidate.error


def test_stdout_and_stderr_keep_their_order_and_forged_records_only_lose_it(
    sandbox_image: str,
) -> None:
    # Issue 36: `out1, err2, out3, err4` was shown as `out1, out3`, then `err2, err4`.
    solution = """
        import os
        import subprocess
        import sys

        def solve(case):
            if case == "alternate":
                for n in range(1, 7):
                    print(f"{'out' if n % 2 else 'err'}{n}",
                          file=sys.stdout if n % 2 else sys.stderr)
                return 1
            if case == "forged":
                print("out1")
                print("err2", file=sys.stderr)
                os.write(4, b"\\x07garbage")  # the order descriptor, written by hand
                print("out3")
                return 1
            if case == "subprocess":
                print("before")
                sys.stdout.flush()
                subprocess.run(["/bin/sh", "-c", "echo from-shell 1>&2"], check=True)
                return 1
    """
    alternate, forged, shell = _run(sandbox_image, solution, ["alternate", "forged", "subprocess"])
    assert alternate.status == "ok"
    assert alternate.streams == (
        ("stdout", "out1\n"),
        ("stderr", "err2\n"),
        ("stdout", "out3\n"),
        ("stderr", "err4\n"),
        ("stdout", "out5\n"),
        ("stderr", "err6\n"),
    )
    assert alternate.stdout == "out1\nout3\nout5\n" and alternate.stderr == "err2\nerr4\nerr6\n"
    # Records that do not fit the bytes are no order at all: each stream stays whole, and the
    # test's verdict is its own.
    assert forged.status == "ok" and forged.output == 1
    assert forged.stdout == "out1\nout3\n" and forged.stderr == "err2\n"
    assert forged.streams == ()
    # What bypasses Python's streams (a subprocess) follows what was recorded.
    assert shell.status == "ok"
    assert shell.streams == (("stdout", "before\n"), ("stderr", "from-shell\n"))
