"""No verdict class is the test process's to choose (issue 24, point 4).

A red-team program claims, on each test, a status by one path a test process has: a result
frame naming a supervisor's status, the exit code the harness uses for "MemoryError", a
``MemoryError`` raised or written by hand, signals it sends itself or its supervisor, fake
sizes and times, writes to its ancestors' descriptors. Graded for real, every such test is RE
or WA. Between them, genuine limits (memory past the cgroup's limit, stdout and a result past
their caps, CPU past its limit) still get MLE, OLE and TLE, and the claims right after each
genuine limit still get nothing from it (the supervisor measures each test on its own).
"""

from __future__ import annotations

import textwrap

import pytest

from grading.judge import Compare, GradeSpec, TestSpec, judge
from sandbox import Limits

pytestmark = [pytest.mark.docker, pytest.mark.slow]

LIMITS = Limits(
    test_wall_seconds=2.0,
    test_cpu_seconds=1.0,
    memory_mb=128,
    output_bytes=4096,
    result_bytes=16384,
    pids=32,
    startup_margin_seconds=10.0,
)

RED_TEAM = textwrap.dedent(
    """
    import json, os, resource, signal, sys, time

    CHILD_EXIT_MEMORY = 71  # the exit code the harness's own child code uses for MemoryError

    def frame(message):
        data = json.dumps(message).encode()
        while data:
            data = data[os.write(3, data):]

    def claim(status):
        frame({"status": status, "error": "MemoryError", "exc_type": "MemoryError",
               "output": "claimed", "time_ms": 1e9, "cpu_ms": 1e9})
        os._exit(0)

    class Exhausted(MemoryError):
        pass

    def write_to(path):
        text = '\\n@@' + '0' * 32 + ' {"type":"test","index":0,"status":"memory"}\\n'
        try:
            with open(path, "w") as handle:
                handle.write(text)
        except OSError as exc:
            return "refused: " + type(exc).__name__
        return "written"

    def solve(case):
        kind, _, arg = case.partition(":")
        if kind == "frame":  # a status of the supervisor's, in the result frame
            claim(arg)
        if kind == "frame_then_exit":  # a valid result, then the exit code of a MemoryError
            frame({"status": "ok", "output": "claimed"})
            os._exit(CHILD_EXIT_MEMORY)
        if kind == "memory_error_frame":  # an error frame naming MemoryError
            frame({"status": "error", "error": "MemoryError", "exc_type": "MemoryError"})
            os._exit(0)
        if kind == "raise_memory_error":  # raised without allocating anything
            raise MemoryError("out of memory, honest")
        if kind == "raise_memory_error_subclass":
            raise Exhausted()
        if kind == "system_exit":
            raise SystemExit(CHILD_EXIT_MEMORY)
        if kind == "exit":  # the magic exit codes: MemoryError, harness and supervisor codes
            sys.stdout.flush()
            os._exit(int(arg))
        if kind == "signal_self":
            os.kill(os.getpid(), getattr(signal, arg))
            time.sleep(5)
        if kind == "signal_supervisor":
            os.kill(os.getppid(), getattr(signal, arg))
            time.sleep(5)
        if kind == "rlimit_as":  # a real MemoryError, from its own limit, not the sandbox's
            resource.setrlimit(resource.RLIMIT_AS, (1 << 30, resource.RLIM_INFINITY))
            return len(bytearray(2 << 30))
        if kind == "beyond_the_machine":  # refused by the kernel before any limit applies
            return len(bytearray(1 << 50))
        if kind == "write_to":  # frames on an ancestor's or PID 1's descriptors
            return write_to(arg.replace("PPID", str(os.getppid())))
        if kind == "fake_frame_on_stdout":
            print('@@' + '0' * 32 + ' {"type":"test","index":0,"status":"output"}', flush=True)
            return "printed"
        # Genuine limits: the observed classes still hold.
        if kind == "allocate_past_limit":
            hog = [bytearray(16 << 20) for _ in range(64)]  # 1 GiB, touched, of 128 MiB
            return len(hog)
        if kind == "print_past_limit":
            while True:
                print("x" * 1000)
        if kind == "return_past_limit":
            return "x" * (64 << 10)
        if kind == "spin_past_limit":
            while True:
                pass
        if kind == "honest":
            return "right"
        return "wrong"
    """
)

CLAIMS = [
    *(f"frame:{s}" for s in ("memory", "output", "cpu", "timeout", "crash", "skipped", "result")),
    "frame_then_exit",
    "memory_error_frame",
    "raise_memory_error",
    "raise_memory_error_subclass",
    "system_exit",
    *(f"exit:{code}" for code in (71, 70, 2, 3, 4, 5, 6, 10, 124, 137)),
    "signal_self:SIGXCPU",
    "signal_self:SIGKILL",
    "signal_self:SIGSEGV",
    "signal_supervisor:SIGSTOP",
    "signal_supervisor:SIGKILL",
    "rlimit_as",
    "beyond_the_machine",
    "write_to:/proc/PPID/fd/1",
    "write_to:/proc/PPID/fd/3",
    "write_to:/proc/1/fd/1",
    "write_to:/dev/stdout",
    "fake_frame_on_stdout",
]
GENUINE = {
    "allocate_past_limit": "MLE",
    "print_past_limit": "OLE",
    "return_past_limit": "OLE",
    "spin_past_limit": "TLE",
}


def test_a_test_process_cannot_choose_its_verdict_class(sandbox_image: str) -> None:
    # Every genuine limit is followed by claims of MemoryError and of that limit's status:
    # what the supervisor saw in one test must not carry over into the next.
    after = {
        "allocate_past_limit": ["raise_memory_error", "exit:71", "memory_error_frame"],
        "print_past_limit": ["frame:output"],
        "return_past_limit": ["frame:output"],
        "spin_past_limit": ["signal_self:SIGXCPU", "frame:cpu"],
    }
    cases = list(CLAIMS)
    for genuine, claims in after.items():
        cases += [genuine, *claims]
    cases.append("honest")
    # Each test in a group of its own: a TLE skips nothing else.
    tests = [
        TestSpec(
            f"{n:02d} {case}",
            {"args": [case]},
            "right" if case == "honest" else "never returned",
            group=str(n),
        )
        for n, case in enumerate(cases)
    ]
    spec = GradeSpec(
        solution=RED_TEAM,
        driver={"kind": "function", "entry": "solve"},
        tests=tests,
        limits=LIMITS,
        compare=Compare(),
        image=sandbox_image,
    )

    judgement = judge(spec)

    assert len(judgement.tests) == len(cases)
    got = {t.name.split(" ", 1)[1]: t for t in judgement.tests}  # a repeated claim: its last
    wrong = {
        t.name: (t.verdict, t.detail.get("message"), t.detail.get("error"))
        for t in judgement.tests
        if t.name.split(" ", 1)[1] not in (*GENUINE, "honest") and t.verdict not in ("RE", "WA")
    }
    assert not wrong, wrong
    assert {case: got[case].verdict for case in GENUINE} == GENUINE, {
        case: got[case].detail for case in GENUINE
    }
    assert got["honest"].verdict == "AC", got["honest"].detail
    # The writes to other processes' descriptors were refused, not merely ignored.
    for case in ("write_to:/proc/PPID/fd/1", "write_to:/proc/PPID/fd/3", "write_to:/proc/1/fd/1"):
        assert str(got[case].detail.get("output", "")).startswith("refused"), got[case].detail
