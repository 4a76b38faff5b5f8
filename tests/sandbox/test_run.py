"""``sandbox.run`` against the real image: honest drivers, then every way a solution misbehaves.

Several behaviours share one run (one container) on purpose: it keeps the suite fast and also
proves the harness recovers after each bad test.
"""

from __future__ import annotations

import math
import textwrap

import docker
import pytest

from sandbox import Limits, RunResult, SandboxError, TestInput, TestOutcome, WarmPool, run

pytestmark = pytest.mark.docker

# Generous time limits wherever time is not what a test is about: this machine's 2 cores are
# shared, and a loaded machine must not turn a fast test into a timeout.
FAST = Limits(
    test_wall_seconds=10.0,
    test_cpu_seconds=10.0,
    memory_mb=128,
    output_bytes=4096,
    result_bytes=65536,
)
TIGHT = Limits(test_wall_seconds=1.0, test_cpu_seconds=1.0, memory_mb=128)


def run_cases(image: str, solution: str, cases: list[str], limits: Limits = FAST) -> RunResult:
    """Run ``solve(case)`` for each case name, one test per case (test name = case)."""
    return run(
        solution=textwrap.dedent(solution),
        driver={"kind": "function", "entry": "solve"},
        tests=[TestInput(name=case, input={"args": [case]}) for case in cases],
        limits=limits,
        image=image,
    )


def by_name(result: RunResult) -> dict[str, TestOutcome]:
    return {o.name: o for o in result.outcomes}


def test_function_driver_passes_outputs_through(sandbox_image: str) -> None:
    streamed: list[TestOutcome] = []
    solution = """
        import numpy as np

        def solve(a, b=0, *, scale=1):
            print("adding", a, b)
            return {"sum": (a + b) * scale, "arr": np.arange(3) * scale, "set": {b, a},
                    7: math_nan()}

        def math_nan():
            return float("nan")
    """
    result = run(
        solution=textwrap.dedent(solution),
        driver={"kind": "function", "entry": "solve"},
        tests=[
            TestInput("t0", {"args": [1, 2]}),
            TestInput("t1", {"args": [3], "kwargs": {"scale": 2}}),
        ],
        limits=FAST,
        image=sandbox_image,
        on_outcome=streamed.append,
    )
    assert result.cold_start and result.run_id and result.wall_ms > 0
    assert [o.index for o in streamed] == [0, 1]
    assert streamed == list(result.outcomes)
    first, second = result.outcomes
    assert first.status == "ok", first.error
    assert first.output["sum"] == 3 and first.output["arr"] == [0, 1, 2]
    assert first.output["set"] == [1, 2] and math.isnan(first.output["7"])
    assert first.stdout == "adding 1 2\n"
    assert second.output["sum"] == 6 and second.output["set"] == [0, 3]
    assert first.time_ms > 0 and first.cpu_ms >= 0


def test_ops_driver_snapshots_each_return(sandbox_image: str) -> None:
    solution = """
        class Stack:
            def __init__(self, *items):
                self.items = list(items)
            def push(self, x):
                self.items.append(x)
            def view(self):
                return self.items  # the same list object, mutated by later ops
            def pop(self):
                return self.items.pop()
    """
    ops = [["push", 3], ["view"], ["pop"], ["view"], ["push", (1, 2)]]
    result = run(
        solution=textwrap.dedent(solution),
        driver={"kind": "ops", "entry": "Stack"},
        tests=[TestInput("ops", {"init": [1, 2], "ops": ops})],
        limits=FAST,
        image=sandbox_image,
    )
    (outcome,) = result.outcomes
    assert outcome.status == "ok", outcome.error
    assert outcome.output == [None, [1, 2, 3], 3, [1, 2], None]


def test_custom_driver_with_support_module(sandbox_image: str) -> None:
    driver = """
        import random
        import support

        def run(solution, input):
            rng = random.Random(input["seed"])
            data = [rng.randint(0, 100) for _ in range(input["n"])]
            return {"digest": support.digest(solution.sort_numbers(data)), "n": len(data)}
    """
    support = """
        import hashlib, json
        def digest(values):
            return hashlib.sha256(json.dumps(values).encode()).hexdigest()[:12]
    """
    solution = "def sort_numbers(xs):\n    return sorted(xs)\n"
    result = run(
        solution=solution,
        driver={"kind": "custom", "source": textwrap.dedent(driver)},
        tests=[TestInput("big", {"n": 100_000, "seed": 7})],
        limits=Limits(test_wall_seconds=10, test_cpu_seconds=10),
        image=sandbox_image,
        modules={"support": textwrap.dedent(support)},
    )
    (outcome,) = result.outcomes
    assert outcome.status == "ok", outcome.error
    assert outcome.output["n"] == 100_000 and len(outcome.output["digest"]) == 12


MISBEHAVING = """
    import os, signal, sys, time

    STATE = {"calls": 0}

    def solve(case):
        STATE["calls"] += 1
        if case == "isolation_write":
            open("/tmp/leftover", "w").write("x")
            open("solution_helper.txt", "w").write("x")
            return STATE["calls"]
        if case == "isolation_read":
            return [STATE["calls"], os.path.exists("/tmp/leftover"),
                    os.path.exists("solution_helper.txt")]
        if case == "stash_everywhere":
            # Read-only dirs (a naive rmtree cannot empty them), a POSIX message queue and a
            # System V shared-memory segment: all would outlive the test's processes.
            os.makedirs("/tmp/stash/deep")
            open("/tmp/stash/deep/data", "w").write("x")
            os.chmod("/tmp/stash/deep", 0o500)
            os.chmod("/tmp/stash", 0o500)
            os.close(os.open("/dev/mqueue/stash", os.O_CREAT | os.O_RDWR, 0o600))
            return libc().shmget(0xA7AC, 4096, 0o1600) >= 0
        if case == "deep_dirs":  # deeper than PATH_MAX
            os.chdir("/tmp")
            for _ in range(2100):
                os.mkdir("d")
                os.chdir("d")
            return len(os.getcwd()) > 4096
        if case == "stash_check":
            return [os.listdir("/tmp"), os.path.exists("/dev/mqueue/stash"),
                    libc().shmget(0xA7AC, 0, 0) >= 0]
        if case == "raise":
            return helper()
        if case == "sys_exit":
            sys.exit(0)
        if case == "keyboard_interrupt":
            raise KeyboardInterrupt
        if case == "sleep":
            time.sleep(30)
        if case == "stdin_read":
            return sys.stdin.read()
        if case == "sigstop_self":
            os.kill(os.getpid(), signal.SIGSTOP)
            return "resumed?"
        if case == "exit_mid_run":
            os._exit(0)
        if case == "segfault":
            os.kill(os.getpid(), signal.SIGSEGV)
        if case == "print_flood":
            while True:
                print("spam" * 100)
        if case == "huge_return":
            return "x" * 200_000
        if case == "oom":
            hog = [bytearray(32 * 1024 * 1024) for _ in range(64)]
            return len(hog)
        if case == "memory_error":
            return len(bytearray(1 << 47))
        if case == "unserialisable":
            return object()
        if case == "recursion":
            return solve(case)
        if case == "daemon":
            if os.fork() == 0:
                os.setsid()
                if os.fork() == 0:
                    while True:
                        time.sleep(0.05)
                os._exit(0)
            os.wait()
            return "spawned"
        if case == "others_alive":
            me, parent = os.getpid(), os.getppid()
            return sorted(int(p) for p in os.listdir("/proc")
                          if p.isdigit() and int(p) not in (1, me, parent))
        if case == "fork_bomb":
            children = 0
            try:
                while True:
                    if os.fork() == 0:
                        time.sleep(60)
                        os._exit(0)
                    children += 1
            except OSError:
                return children > 0
        return "ok"

    def helper():
        raise ValueError("boom")

    def libc():
        import ctypes
        return ctypes.CDLL(None, use_errno=True)
"""


PRELOAD_SUPPORT = """
    import os, secrets

    # Who ran this module's top level, and a token that differs on every import.
    LOADED = {"pid": os.getpid(), "token": secrets.token_hex(8)}

    def fail():
        raise ValueError("from support")
"""
PRELOAD_DRIVER = """
    import os, sys
    import support

    def run(solution, test_input):
        if test_input == "fail":
            support.fail()
        support.LOADED["seen"] = True  # this test's copy only
        return {**support.LOADED, "me": os.getpid(), "one": sys.modules["support"] is support,
                "answer": solution.answer()}
"""


def _preload_run(image: str, support: str, driver: str = PRELOAD_DRIVER) -> RunResult:
    return run(
        solution="import support\n\ndef answer():\n    return 42\n",
        driver={"kind": "custom", "source": textwrap.dedent(driver)},
        tests=[TestInput("a", None), TestInput("b", None), TestInput("c", "fail")],
        limits=FAST,
        image=image,
        modules={"support": textwrap.dedent(support)},
    )


def test_a_custom_driver_and_its_support_module_are_imported_once_before_the_tests(
    sandbox_image: str,
) -> None:
    a, b, c = _preload_run(sandbox_image, PRELOAD_SUPPORT).outcomes
    assert a.status == b.status == "ok", (a.error, b.error)
    # Imported by PID 1 before the first test, so every test starts with the same import...
    assert a.output["pid"] == b.output["pid"] == 1
    assert a.output["token"] == b.output["token"]
    # ...in its own process, with its own copy (what one test changes, the next never sees),
    # the one module the solution imports too.
    assert a.output["me"] != 1 and b.output["me"] != a.output["me"]
    assert a.output["seen"] and b.output["seen"] and a.output["one"] and b.output["one"]
    assert a.output["answer"] == b.output["answer"] == 42
    # An error of the grader's own files is the grader's: no frame of theirs is shown as if it
    # were the candidate's (issue 26), and the frame says who raised it.
    assert c.status == "error" and c.exc_type == "ValueError" and c.raised_by == "grader"
    assert "support.py" not in c.error and "ValueError: from support" in c.error


def test_a_driver_that_cannot_be_preloaded_is_imported_by_each_test(sandbox_image: str) -> None:
    # Output at import belongs to each test's stdout; a driver that needs the solution at
    # import cannot be loaded without it: each falls back to an import in every test.
    noisy = textwrap.dedent(PRELOAD_SUPPORT) + 'print("support imported")\n'
    a, b, _ = _preload_run(sandbox_image, noisy).outcomes
    assert a.status == b.status == "ok", (a.error, b.error)
    assert a.output["pid"] == a.output["me"] and b.output["pid"] == b.output["me"]
    assert a.output["token"] != b.output["token"]
    assert a.stdout.strip() == b.stdout.strip() == "support imported"
    eager = "import solution\n" + textwrap.dedent(PRELOAD_DRIVER)
    a, b, _ = _preload_run(sandbox_image, PRELOAD_SUPPORT, eager).outcomes
    assert a.status == b.status == "ok", (a.error, b.error)
    assert a.output["pid"] == a.output["me"] != 1 and a.output["answer"] == 42


def test_misbehaving_solutions_get_their_status(sandbox_image: str) -> None:
    cases = [
        "isolation_write", "isolation_read", "stash_everywhere", "deep_dirs", "stash_check",
        "raise",
        "sys_exit", "keyboard_interrupt",
        "exit_mid_run", "segfault", "print_flood", "huge_return", "oom", "memory_error",
        "unserialisable", "recursion", "daemon", "others_alive", "fork_bomb", "others_alive",
        "plain",
    ]  # fmt: skip
    result = run_cases(sandbox_image, MISBEHAVING, cases)
    assert [o.name for o in result.outcomes] == cases
    out = by_name(result)
    status = {name: o.status for name, o in out.items()}
    # Fresh process per test: module globals and files do not leak into the next test.
    assert out["isolation_write"].output == 1
    assert out["isolation_read"].output == [1, False, False]
    assert out["stash_everywhere"].output is True, out["stash_everywhere"].error
    assert out["deep_dirs"].output is True
    assert out["stash_check"].output == [[], False, False]
    assert status["raise"] == "error" and out["raise"].exc_type == "ValueError"
    assert "Traceback" in out["raise"].error and "boom" in out["raise"].error
    assert "solution.py" in out["raise"].error and "runner.py" not in out["raise"].error
    assert (status["sys_exit"], out["sys_exit"].exc_type) == ("error", "SystemExit")
    assert out["keyboard_interrupt"].exc_type == "KeyboardInterrupt"
    assert status["exit_mid_run"] == status["segfault"] == "crash"
    assert "SIGSEGV" in out["segfault"].error
    assert status["print_flood"] == "output" and len(out["print_flood"].stdout) <= 4096
    assert status["huge_return"] == "output"
    assert status["oom"] == "memory"  # OOM-killed, never RE
    # A MemoryError the kernel raised before the sandbox's limit was reached (a request larger
    # than the machine) is the exception it is, RE: the test process reports ok or error only,
    # and MLE needs the memory cgroup to have seen its limit hit.
    assert (status["memory_error"], out["memory_error"].exc_type) == ("error", "MemoryError")
    assert status["unserialisable"] == "error"
    assert (status["recursion"], out["recursion"].exc_type) == ("error", "RecursionError")
    assert status["daemon"] == "ok"
    # The daemon and the fork bomb's children were killed after their tests.
    assert [o.output for o in result.outcomes if o.name == "others_alive"] == [[], []]
    assert status["fork_bomb"] == "ok" and out["fork_bomb"].output is True
    assert status["plain"] == "ok" and out["plain"].output == "ok"


def test_wall_limit(sandbox_image: str) -> None:
    cases = ["sleep", "stdin_read", "sigstop_self", "plain"]
    result = run_cases(sandbox_image, MISBEHAVING, cases, TIGHT)
    # stdin is closed (EOF at once): reading it cannot block, so it is no wall-limit case.
    assert [o.status for o in result.outcomes] == ["timeout", "ok", "timeout", "ok"]
    assert result.outcomes[1].output == ""


def test_cpu_limit(sandbox_image: str) -> None:
    solution = """
        import signal

        def solve(case):
            if case == "handles_sigxcpu":
                signal.signal(signal.SIGXCPU, lambda *a: None)
            while True:
                pass
    """
    # The wall limit is far above the CPU limit so that CPU time, however slowly it accrues on a
    # busy machine, is what ends both tests (one second of CPU, two for the SIGXCPU handler).
    limits = Limits(test_wall_seconds=30.0, test_cpu_seconds=1.0, memory_mb=128)
    result = run_cases(sandbox_image, solution, ["busy", "handles_sigxcpu"], limits)
    assert [o.status for o in result.outcomes] == ["cpu", "cpu"]
    # CPU time was measured (rusage is tick-sampled: no exact bound is asserted).
    assert all(o.cpu_ms > 0 for o in result.outcomes), result.outcomes


def test_a_time_limit_stops_its_stop_group(sandbox_image: str) -> None:
    """A test that ends at a time limit (CPU or wall) stops the later tests of its stop group:
    they are reported skipped and never run (no marker printed), while other groups and
    tests without a group still run. Its CPU time is reported, at or past the limit."""
    solution = """
        import time

        def solve(case):
            print("ran", case, flush=True)
            if case.startswith("loop"):
                while True:
                    pass
            if case.startswith("sleep"):
                time.sleep(60)
            return case
    """
    plan = [
        ("loop_a", "a"),
        ("after_loop_a", "a"),
        ("first_b", "b"),
        ("sleep_b", "b"),
        ("after_sleep_b", "b"),
        ("no_group", None),
        ("last_a", "a"),
    ]
    limits = Limits(test_wall_seconds=0.5, test_cpu_seconds=0.5, memory_mb=128)
    result = run(
        solution=textwrap.dedent(solution),
        driver={"kind": "function", "entry": "solve"},
        tests=[TestInput(name=n, input={"args": [n]}, stop_group=g) for n, g in plan],
        limits=limits,
        image=sandbox_image,
    )
    out = by_name(result)
    assert {name: o.status for name, o in out.items()} == {
        "loop_a": "cpu",
        "after_loop_a": "skipped",
        "first_b": "ok",
        "sleep_b": "timeout",
        "after_sleep_b": "skipped",
        "no_group": "ok",
        "last_a": "skipped",
    }
    for name in ("loop_a", "first_b", "sleep_b", "no_group"):
        assert f"ran {name}" in out[name].stdout, out[name]
    for name in ("after_loop_a", "after_sleep_b", "last_a"):
        skipped = out[name]
        assert "ran" not in skipped.stdout and skipped.output is None, skipped
        assert skipped.time_ms == 0 and skipped.cpu_ms == 0, skipped
        assert "not run" in skipped.error, skipped
    # The meter decided the TLE, so the reported CPU time does not contradict it.
    assert out["loop_a"].cpu_ms >= limits.test_cpu_seconds * 1000, out["loop_a"]


def test_tests_cannot_kill_or_stop_the_harness(sandbox_image: str) -> None:
    # The harness is PID 1 of its container: signals from inside do not reach it. A test's
    # direct parent is a per-test supervisor: killing or stopping it only fails that test,
    # and as a crash (RE), never as a limit it did not reach.
    solution = """
        import os, signal
        SIGNALS = {"kill": signal.SIGKILL, "stop": signal.SIGSTOP, "int": signal.SIGINT,
                   "term": signal.SIGTERM}

        def solve(case):
            target, _, name = case.partition("_")
            if target == "pid1":
                os.kill(1, SIGNALS[name])
            elif target == "supervisor":
                os.kill(os.getppid(), SIGNALS[name])
            return case
    """
    cases = ["pid1_kill", "pid1_stop", "pid1_int", "pid1_term", "supervisor_kill",
             "supervisor_stop", "after"]  # fmt: skip
    result = run_cases(sandbox_image, solution, cases, TIGHT)
    statuses = [o.status for o in result.outcomes]
    assert statuses == ["ok", "ok", "ok", "ok", "crash", "crash", "ok"]
    assert [o.output for o in result.outcomes if o.status == "ok"] == [*cases[:4], "after"]


def test_a_stuck_sandbox_hits_the_run_deadline(
    docker_client: docker.DockerClient, sandbox_image: str
) -> None:
    # Freeze the container after the first outcome (a platform hiccup): the worker's own
    # deadline ends the run and the tests without a result are timeouts. The container comes
    # warm from a pool so that startup does not eat the short deadline on a busy machine.
    limits = Limits(test_wall_seconds=0.5, test_cpu_seconds=0.5, startup_margin_seconds=2.0)
    pool = WarmPool(size=1)
    try:
        spec = pool.prewarm(sandbox_image, limits)
        assert pool.wait_idle(spec, 1, timeout=60)
        (container_id,) = pool.idle_container_ids(spec)

        def freeze(outcome: TestOutcome) -> None:
            if outcome.index == 0:
                docker_client.api.pause(container_id)

        result = run(
            solution="import time\ndef solve(case):\n    time.sleep(0.3)\n    return case\n",
            driver={"kind": "function", "entry": "solve"},
            tests=[TestInput(n, {"args": [n]}) for n in ("first", "frozen", "never")],
            limits=limits,
            image=sandbox_image,
            pool=pool,
            on_outcome=freeze,
        )
    finally:
        pool.close()
    assert not result.cold_start
    assert [o.status for o in result.outcomes] == ["ok", "timeout", "timeout"]
    assert "total time limit" in result.outcomes[1].error


def test_candidate_cannot_find_nonce_or_other_inputs(sandbox_image: str) -> None:
    # Scan the whole address space of the test process for another test's input and for any
    # @@<32 hex> frame prefix; also try to forge frames through PID 1's stdout.
    solution = r"""
        import re

        def scan(pattern):
            hits = 0
            with open("/proc/self/maps") as maps, open("/proc/self/mem", "rb", 0) as mem:
                for line in maps:
                    span, perms = line.split()[:2]
                    if "r" not in perms:
                        continue
                    start, end = (int(v, 16) for v in span.split("-"))
                    try:
                        mem.seek(start)
                        data = mem.read(end - start)
                    except (OSError, ValueError, OverflowError):
                        continue
                    hits += len(pattern.findall(data))
            return hits

        def solve(case):
            # Patterns that do not match their own source text (which is in memory too).
            marker = re.compile(b"SECRET_HIDDEN_INPU[T]")
            nonce = re.compile(b"@[@][0-9a-f]{32} ")
            forged = 0
            try:
                with open("/proc/1/fd/1", "w") as out:
                    out.write("@@ready\n@@" + "g" * 32 + ' {"type": "done"}\n')
                    forged = 1
            except OSError:
                pass
            try:
                open(f"/proc/{__import__('os').getppid()}/fd/1", "w")
                parent_fd = "open"
            except OSError:
                parent_fd = "denied"
            return {"marker": scan(marker), "nonce": scan(nonce), "parent_fd": parent_fd,
                    "forged": forged}
    """
    tests = [
        TestInput("public", {"args": ["public"]}),
        TestInput("hidden", {"args": ["SECRET_HIDDEN_INPUT"]}),
    ]
    result = run(
        solution=textwrap.dedent(solution),
        driver={"kind": "function", "entry": "solve"},
        tests=tests,
        limits=Limits(test_wall_seconds=10, test_cpu_seconds=10),
        image=sandbox_image,
    )
    public, hidden = result.outcomes
    assert public.status == hidden.status == "ok", (public.error, hidden.error)
    assert public.output["marker"] == 0  # the hidden test's input is nowhere in memory
    assert public.output["nonce"] == hidden.output["nonce"] == 0
    assert public.output["parent_fd"] == "denied"
    assert hidden.output["marker"] >= 1  # sanity: the scan does find what is there
    # Writing to PID 1's stdout reaches the worker, but frames without the nonce are ignored
    # (both outcomes above are the real ones, and the forged "done" ended nothing).


def test_missing_image_is_a_sandbox_error(docker_client: object) -> None:
    with pytest.raises(SandboxError):
        run_cases("onsite-sandbox:does-not-exist", "def solve(c): return c", ["a"])


def test_docker_down_is_a_sandbox_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DOCKER_HOST", "unix:///nonexistent/docker.sock")
    with pytest.raises(SandboxError):
        run_cases("onsite-sandbox:any", "def solve(c): return c", ["a"])


def test_image_without_harness_is_a_sandbox_error(sandbox_image: str) -> None:
    from sandbox.image import base_tag

    with pytest.raises(SandboxError, match="harness"):
        run_cases(base_tag(), "def solve(c): return c", ["a"])


def test_bad_request_is_a_value_error(sandbox_image: str) -> None:
    with pytest.raises(ValueError):
        run(solution="", driver={"kind": "nope"}, tests=[], limits=FAST, image=sandbox_image)
    with pytest.raises(ValueError):
        run(
            solution="",
            driver={"kind": "function", "entry": "f"},
            tests=[TestInput("x", {"args": [object()]})],
            limits=FAST,
            image=sandbox_image,
        )


def test_syntax_error_in_the_solution(sandbox_image: str) -> None:
    result = run_cases(sandbox_image, "def solve(case)\n    return case\n", ["a", "b"])
    assert [(o.status, o.exc_type) for o in result.outcomes] == [("error", "SyntaxError")] * 2
    error = result.outcomes[0].error
    assert "solution.py" in error and "line 1" in error
    assert "importlib" not in error and "runner.py" not in error
