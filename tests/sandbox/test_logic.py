"""Pure logic of the sandbox, no Docker: normalisation, classification, framing, limits."""

from __future__ import annotations

import json
import math
import os
import signal
import struct
import subprocess
import sys
from collections import OrderedDict, deque
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from sandbox import Limits, Status, TestInput
from sandbox.docker_runner import _Demux, _outcome_from_frame, _parse_frame
from sandbox.execute import stop_group_numbers
from sandbox.harness import runner
from sandbox.types import validate_request

ROOT = Path(__file__).resolve().parents[2]


class LyingInt(int):
    def __eq__(self, other: object) -> bool:
        return True

    __hash__ = int.__hash__


class LyingList(list):  # type: ignore[type-arg]
    def __eq__(self, other: object) -> bool:
        return True


def test_normalise_containers_and_keys() -> None:
    value = {
        "t": (1, 2),
        "s": {3, 1, 2},
        1: "int key",
        None: "none key",
        (1, 2): "tuple key",
        "d": deque([1]),
        "o": OrderedDict(a=1),
    }
    assert runner.normalise(value) == {
        "t": [1, 2],
        "s": [1, 2, 3],
        "1": "int key",
        "null": "none key",
        "[1, 2]": "tuple key",
        "d": [1],
        "o": {"a": 1},
    }


def test_normalise_numpy_values() -> None:
    assert runner.normalise(np.arange(3)) == [0, 1, 2]
    assert runner.normalise(np.float32(1.5)) == 1.5
    assert type(runner.normalise(np.int64(7))) is int
    assert runner.normalise({"m": np.eye(2)}) == {"m": [[1.0, 0.0], [0.0, 1.0]]}


def test_normalise_strips_lying_subclasses() -> None:
    out = runner.normalise([LyingInt(3), LyingList([1])])
    assert out == [3, [1]]
    assert type(out[0]) is int and type(out[1]) is list
    assert json.loads(runner.encode_result(LyingInt(5), 1000)) == 5


def test_normalise_mixed_set_and_special_floats() -> None:
    assert runner.normalise({1, "a"}) == ["a", 1]  # mixed types: ordered by their JSON text
    text = runner.encode_result([math.nan, math.inf, -math.inf], 1000)
    assert text == "[NaN,Infinity,-Infinity]"
    assert runner.normalise(True) is True and runner.normalise(1) == 1


def test_normalise_limits() -> None:
    nested: list[object] = []
    cursor = nested
    for _ in range(runner.MAX_DEPTH + 5):
        inner: list[object] = []
        cursor.append(inner)
        cursor = inner
    with pytest.raises(runner.ResultTooLarge):
        runner.normalise(nested)
    loop: list[object] = []
    loop.append(loop)
    with pytest.raises(runner.ResultTooLarge):
        runner.normalise(loop)
    # Over the byte cap the text still travels: the supervisor sees the size and says OLE.
    assert len(runner.encode_result("x" * 2000, 1000)) == 2002
    with pytest.raises(runner.UnserialisableOutput):
        runner.normalise(object())


def test_classify_statuses() -> None:
    def make(**kw: object) -> str:
        args: dict[str, object] = dict(
            reason="",
            status=0,
            res_buf=b"",
            cpu_ms=1.0,
            cpu_limit_s=1.0,
            wall_s=1.0,
            oom_killed=False,
            out_cap=10,
        )
        args.update(kw)
        return str(runner.classify(**args)["status"])  # type: ignore[arg-type]

    ok = b'{"status":"ok","output":[1]}'
    assert make(res_buf=ok) == "ok"
    assert make(reason="timeout") == "timeout"
    assert make(reason="timeout", cpu_ms=1000.0) == "cpu"
    assert make(reason="output") == "output"
    assert make(status=signal.SIGXCPU, cpu_ms=1000.0) == "cpu"
    assert make(status=signal.SIGKILL, oom_killed=True) == "memory"
    assert make(status=signal.SIGKILL, cpu_ms=1500.0) == "cpu"
    assert make(status=signal.SIGSEGV) == "crash"
    assert make(status=0) == "crash"  # exited 0 without a result: os._exit(0)
    assert make(status=0, res_buf=b"garbage") == "crash"
    assert make(status=runner.CHILD_EXIT_MEMORY << 8, limit_hit=True) == "memory"
    assert make(res_buf=b'{"status":"ok","output":1}', cpu_ms=2500.0) == "cpu"
    assert make(res_buf=ok, cpu_ms=600.0, cpu_limit_s=0.5) == "cpu"  # fractional limits hold
    assert make(reason="cpu") == "cpu"  # all the test's processes, from the cgroup
    # The test process reports ok or error only: it cannot choose MLE/OLE for itself.
    assert make(res_buf=b'{"status":"memory","error":"x"}') == "crash"
    assert make(res_buf=b'{"status":"output","error":"x"}') == "crash"
    assert make(reason="result") == "output"  # the supervisor saw the size itself


def test_classify_takes_no_class_from_the_test_process() -> None:
    """MLE, OLE and TLE come from what the supervisor observed (the memory cgroup's counters,
    its byte counts, its CPU accounting); every claim the test process can make by itself is
    an error (RE) or a crash (RE), whatever it names."""

    def make(**kw: object) -> str:
        args: dict[str, object] = dict(
            reason="", status=0, res_buf=b"", cpu_ms=1.0, cpu_limit_s=1.0, wall_s=1.0,
            oom_killed=False, limit_hit=False, out_cap=10,
        )  # fmt: skip
        args.update(kw)
        return str(runner.classify(**args)["status"])  # type: ignore[arg-type]

    # Frames naming a status of the supervisor's: no result at all.
    for status in ("memory", "output", "cpu", "timeout", "crash", "skipped", "result"):
        frame = json.dumps({"status": status, "error": "x", "exc_type": "MemoryError"})
        assert make(res_buf=frame.encode()) == "crash", status
    # A MemoryError it raised (or only wrote) is its own error while no limit was seen.
    memory_error = b'{"status":"error","error":"MemoryError","exc_type":"MemoryError"}'
    assert make(res_buf=memory_error) == "error"
    assert make(status=runner.CHILD_EXIT_MEMORY << 8) == "crash"
    # Signals it can send itself: TLE only with the CPU time to show for it.
    assert make(status=signal.SIGXCPU) == "crash"
    assert make(status=signal.SIGKILL) == "crash"
    # With the observation behind it, the same ending gets its class.
    assert make(res_buf=memory_error, limit_hit=True) == "memory"
    assert make(res_buf=memory_error, oom_killed=True, limit_hit=True) == "memory"
    # An OOM kill of one of its processes is MLE for a test that then failed.
    value_error = b'{"status":"error","error":"boom","exc_type":"ValueError"}'
    assert make(res_buf=value_error, oom_killed=True, limit_hit=True) == "memory"
    # Reaching the limit (page cache, say) makes no other exception an MLE, nor a result one.
    assert make(res_buf=value_error, limit_hit=True) == "error"
    assert make(res_buf=b'{"status":"ok","output":1}', oom_killed=True) == "ok"


def test_memory_limit_seen_only_when_a_counter_moved() -> None:
    seen = runner.memory_limit_seen
    assert seen({"kills": 1, "hits": 5}, {"kills": 1, "hits": 5}) == (False, False)
    assert seen({"kills": 1, "hits": 5}, {"kills": 1, "hits": 6}) == (False, True)
    assert seen({"kills": 1, "hits": 5}, {"kills": 2, "hits": 5}) == (True, True)
    # A counter unreadable on either side is no observation.
    assert seen({}, {"kills": 3, "hits": 3}) == (False, False)
    assert seen({"kills": 0}, {}) == (False, False)


def test_build_header_keeps_inputs_sizes_and_names_out_of_the_header() -> None:
    job = {
        "nonce": "0" * 32,
        "solution": "def f(): pass",
        "driver": {"kind": "function", "entry": "f"},
        "inputs": [{"args": [1]}, {"secret": "s" * 1234}],
        "limits": {"test_wall_seconds": 1, "test_cpu_seconds": 1},
    }
    fd = os.memfd_create("test-inputs")
    try:
        header = runner.build_header(json.dumps(job).encode(), fd)
        text = json.dumps(header)
        assert "secret" not in text and "1234" not in text and "offset" not in text
        assert header["count"] == 2
        assert runner.load_input(fd, 1) == {"secret": "s" * 1234}
        assert runner.load_input(fd, 0) == {"args": [1]}
        assert runner.load_stop_group(fd, 0) == runner.NO_STOP_GROUP  # none sent: always run
    finally:
        os.close(fd)
    fd = os.memfd_create("test-inputs")
    try:
        header = runner.build_header(json.dumps({**job, "stop_groups": [None, 3]}).encode(), fd)
        assert "stop_groups" not in json.dumps(header)  # kept in the memfd, next to the inputs
        assert runner.load_stop_group(fd, 0) == runner.NO_STOP_GROUP
        assert runner.load_stop_group(fd, 1) == 3
        assert runner.load_input(fd, 1) == {"secret": "s" * 1234}
    finally:
        os.close(fd)
    bads: list[dict[str, Any]] = [
        {"driver": {"kind": "nope"}},
        {"modules": {"solution": "x"}},
        {"inputs": {}},
        {"stop_groups": [0]},  # one per input
        {"stop_groups": [0, "a"]},
        {"stop_groups": [0, -1]},
        {"stop_groups": [True, 0]},
    ]
    for bad in bads:
        fd = os.memfd_create("test-inputs")
        try:
            with pytest.raises(ValueError):
                runner.build_header(json.dumps({**job, **bad}).encode(), fd)
        finally:
            os.close(fd)


def test_stop_groups_are_numbered_in_order_of_first_appearance() -> None:
    tests = [
        TestInput("a", 1, stop_group="run"),
        TestInput("b", 2),
        TestInput("c", 3, stop_group="edge"),
        TestInput("d", 4, stop_group="run"),
    ]
    assert stop_group_numbers(tests) == [0, None, 1, 0]


def test_rlimit_cpu_backs_the_meter_up_a_second_later() -> None:
    assert runner.rlimit_cpu_seconds(2.0, metered=False) == 2
    assert runner.rlimit_cpu_seconds(0.5, metered=False) == 1
    assert runner.rlimit_cpu_seconds(2.0, metered=True) == 3


def test_without_memfd_the_run_fails_closed(monkeypatch: pytest.MonkeyPatch) -> None:
    def missing(*args: object) -> int:
        raise OSError(38, "Function not implemented")

    monkeypatch.setattr(os, "memfd_create", missing)
    buf = bytearray(b'{"nonce": "' + b"a" * 32 + b'", "inputs": []}')
    with pytest.raises(runner.NoMemfd):
        runner.parse_job(buf, len(buf))


def test_preload_follows_the_problem_code() -> None:
    driver = {"kind": "custom", "source": "def run(s, i):\n    import torch\n    return 1\n"}
    assert runner.preload_names("import pandas as pd\n", driver, {}) == ["pandas", "torch"]
    assert runner.preload_names("x = 'import torch'\n", {"kind": "function"}, {}) == []
    assert runner.preload_names("", {}, {"support": "from numpy import array\n"}) == ["numpy"]


def test_exotic_numpy_scalars_normalise_to_numbers() -> None:
    assert runner.normalise(np.longdouble(1.5)) == 1.5
    assert type(runner.normalise(np.longdouble(2))) is float
    assert runner.normalise(np.array([np.longdouble(0.25)], dtype=np.longdouble)) == [0.25]
    assert runner.normalise(np.uint64(2**63)) == 2**63
    with pytest.raises(runner.UnserialisableOutput):
        runner.normalise(np.clongdouble(1 + 2j))


def test_nonce_is_lifted_out_of_the_raw_job() -> None:
    nonce = "ab12" * 8
    buf = bytearray(json.dumps({"nonce": nonce, "x": 1}).encode() + b"\n")
    length = buf.index(b"\n")
    holder = runner.Nonce.extract(buf, length)
    assert nonce.encode() not in buf
    assert json.loads(bytes(buf[:length]))["nonce"] == "0" * 32
    read_fd, write_fd = os.pipe()
    saved = os.dup(1)
    try:
        os.dup2(write_fd, 1)
        holder.write_frame({"type": "done"})
    finally:
        os.dup2(saved, 1)
        os.close(saved)
        os.close(write_fd)
    line = os.read(read_fd, 4096)
    os.close(read_fd)
    assert line == f'\n@@{nonce} {{"type":"done"}}\n'.encode()
    with pytest.raises(ValueError):
        runner.Nonce.extract(bytearray(b'{"x": 1, "nonce": "' + b"a" * 32 + b'"}'), 50)


def test_harness_refuses_to_run_outside_a_container() -> None:
    # kill(-1) on the host would be a disaster: the guard must hold even with the env marker.
    result = subprocess.run(
        [sys.executable, "-I", str(ROOT / "sandbox/harness/runner.py")],
        input=b"",
        capture_output=True,
        env={"ONSITE_SANDBOX": "1"},
        timeout=30,
        check=False,
    )
    assert result.returncode == runner.EXIT_REFUSED
    assert b"refusing" in result.stderr


def test_demux_and_frames() -> None:
    demux = _Demux()
    raw = struct.pack(">BxxxL", 1, 5) + b"hello" + struct.pack(">BxxxL", 2, 3) + b"err"
    assert demux.feed(raw[:7]) == []
    assert demux.feed(raw[7:]) == [(1, b"hello"), (2, b"err")]
    prefix = b"@@n0nce "
    assert _parse_frame(b"@@other {}", prefix) is None
    assert _parse_frame(b"@@n0nce {bad", prefix) is None
    tests = [TestInput("a", 1), TestInput("b", 2)]
    frame = {
        "type": "test",
        "index": 0,
        "status": "ok",
        "output": [1],
        "time_ms": 1.5,
        "cpu_ms": True,
        "stdout": "x" * 100,
        "error": 3,
    }
    outcome = _outcome_from_frame(frame, 0, tests, Limits(output_bytes=10))
    assert outcome is not None
    assert (outcome.output, outcome.cpu_ms, outcome.stdout, outcome.error) == (
        [1],
        0.0,
        "x" * 10,
        "",
    )
    assert _outcome_from_frame({**frame, "index": 1}, 0, tests, Limits()) is None  # out of order
    assert _outcome_from_frame(frame, 0, tests, Limits()).name == "a"  # type: ignore[union-attr]
    weird = _outcome_from_frame({**frame, "status": "bogus"}, 0, tests, Limits())
    assert weird is not None and weird.status == Status.CRASH and weird.output is None


def test_limits() -> None:
    limits = Limits(test_wall_seconds=2.0, test_cpu_seconds=1.0, startup_margin_seconds=10.0)
    # The wall limit is a backstop derived from the CPU limit (3 * 1 + 2), the author's value
    # only a floor; it counts time not spent waiting for a CPU. Worker and harness share one
    # per-test budget: the hard stop, waiting included (10 backstops), plus 1 s slack.
    assert limits.test_backstop_seconds == 5.0
    assert Limits(test_wall_seconds=9.0, test_cpu_seconds=1.0).test_backstop_seconds == 9.0
    assert limits.test_budget_seconds == 51.0
    assert limits.total_wall_seconds(3) == pytest.approx(10.0 + 3 * 51.0)
    sent = limits.harness_limits()
    assert (sent["test_wall_seconds"], sent["test_budget_seconds"]) == (5.0, 51.0)
    assert limits.harness_limits()["output_bytes"] == 65536
    with pytest.raises(ValueError):
        Limits(test_wall_seconds=0)
    with pytest.raises(ValueError):
        Limits(memory_mb=8)
    with pytest.raises(ValueError):
        validate_request({"kind": "ops"}, None)
    with pytest.raises(ValueError):
        validate_request({"kind": "function", "entry": "f"}, {"solution": "x"})
    validate_request({"kind": "custom", "source": "def run(s, i): pass"}, {"support": ""})


def test_sandbox_never_imports_django() -> None:
    code = "import sys, sandbox, sandbox.image, sandbox.pool; print('django' in sys.modules)"
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=True,
        timeout=60,
    )
    assert out.stdout.strip() == "False"


def test_wipe_empties_deep_and_read_only_trees(tmp_path: Path) -> None:
    root = tmp_path / "scratch"
    root.mkdir()
    (root / "file").write_text("x")
    (root / "link").symlink_to("/etc/passwd")  # removed as a link, never followed
    locked = root / "locked" / "inner"
    locked.mkdir(parents=True)
    (locked / "data").write_text("x")
    locked.chmod(0o500)
    (root / "locked").chmod(0o500)
    # A chain deeper than PATH_MAX, built relative to a directory fd.
    fd = os.open(root, os.O_RDONLY)
    for _ in range(2100):
        os.mkdir("dd", dir_fd=fd)
        child = os.open("dd", os.O_RDONLY, dir_fd=fd)
        os.close(fd)
        fd = child
    os.close(fd)
    assert runner._wipe_dir(str(root)) is True
    assert os.listdir(root) == []
    assert Path("/etc/passwd").exists()
    assert runner._wipe_dir(str(tmp_path / "missing")) is True


def test_cpu_meter_reads_a_cgroup_only_when_it_is_the_sandboxs_own(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("ONSITE_OWN_CGROUP", raising=False)
    assert not runner.CpuMeter().available  # a bare process: the host's cgroup is not ours
    monkeypatch.setenv("ONSITE_OWN_CGROUP", "1")
    meter = runner.CpuMeter()
    if meter.available:  # this host's cgroup, read as the container would read its own
        meter.start()
        assert meter.used_ms() >= 0.0


# -- what a container preloads, and when the pool refills (no Docker: fake containers) ------


TORCH_DRIVER = {"kind": "custom", "source": "import support\n\ndef run(s, i):\n    return 1\n"}
TORCH_SUPPORT = {"support": "def model():\n    import torch\n    return torch.zeros(1)\n"}


def test_a_container_preloads_what_the_problem_code_imports_not_the_solution() -> None:
    from sandbox.docker_runner import ContainerSpec, container_environment

    limits = Limits(memory_mb=2048)
    spec = ContainerSpec.for_job("img", limits, False, TORCH_DRIVER, TORCH_SUPPORT)
    assert spec.preload == ("torch",)
    assert container_environment(spec, 60)["ONSITE_PRELOAD"] == "torch"
    # numpy is always imported, so it never makes a shape of its own; a function driver
    # (every cpu problem but two) asks for nothing: the shape the cpu pool keeps warm.
    plain = ContainerSpec.for_job("img", Limits(), False, {"kind": "function", "entry": "f"})
    numpy_driver = {"kind": "custom", "source": "import numpy as np\n"}
    assert ContainerSpec.for_job("img", Limits(), False, numpy_driver) == plain
    assert plain.preload == () and "ONSITE_PRELOAD" not in container_environment(plain, 60)
    # A gpu container always preloads torch (as the GPU image did before shapes had preloads).
    assert ContainerSpec.for_run("img", limits, True).preload == ("torch",)


def test_the_harness_preloads_the_libraries_its_container_names(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    imported: list[str] = []
    monkeypatch.setenv("ONSITE_PRELOAD", "pandas,torch,os")  # os: not preloadable, ignored
    monkeypatch.setattr(runner.importlib, "import_module", imported.append)
    for name in ("numpy", "pandas", "torch", "os"):
        monkeypatch.delitem(sys.modules, name, raising=False)
    runner._preload()
    assert imported == ["numpy", "pandas", "torch"]


class FakeContainer:
    """Stands in for sandbox.docker_runner.Attached in the pool's bookkeeping."""

    count = 0

    def __init__(self) -> None:
        FakeContainer.count += 1
        self.container_id = f"fake{FakeContainer.count}"
        import time

        self.created_at = time.monotonic()

    def is_alive(self) -> bool:
        return True

    def close_socket(self) -> None:
        pass

    def destroy(self) -> None:
        pass


def test_refills_wait_while_a_run_is_in_flight(monkeypatch: pytest.MonkeyPatch) -> None:
    """A shape that still has a ready container is not refilled while a run is in flight
    (starting one, a torch import among it, would compete with the run for the cores), nor
    in the quiet moment after it; a shape with none left is refilled at once."""
    import time

    from sandbox import WarmPool
    from sandbox import pool as pool_module

    started: list[str] = []

    def start(client: object, spec: object, **kwargs: object) -> FakeContainer:
        container = FakeContainer()
        started.append(container.container_id)
        return container

    monkeypatch.setattr(pool_module, "start_attached", start)
    pool = WarmPool(size=2, refill_quiet_seconds=0.3, client=object())  # type: ignore[arg-type]
    try:
        spec = pool.prewarm("img", Limits())
        assert pool.wait_idle(spec, 2, timeout=5) and len(started) == 2
        first = pool.acquire(spec)
        assert first is not None
        time.sleep(0.5)
        assert len(started) == 2, "refilled while a run was in flight"
        second = pool.acquire(spec)  # the last ready one: refilled at once, run or not
        assert second is not None and pool.wait_idle(spec, 1, timeout=5)
        assert len(started) == 3
        pool.retire(second)  # type: ignore[arg-type]
        time.sleep(0.5)
        assert len(started) == 3, "refilled while a run was in flight"
        pool.retire(first)  # type: ignore[arg-type]
        assert pool.idle_count(spec) == 1  # not at once: the quiet moment after a run...
        assert pool.wait_idle(spec, 2, timeout=5) and len(started) == 4  # ...then refilled
    finally:
        pool.close()


def test_interleave_replays_the_write_records_over_both_streams() -> None:
    record = runner.ORDER_RECORD.pack
    order = record(1, 5) + record(2, 5) + record(1, 5) + record(2, 3)
    assert runner.interleave(order, b"out1\nout3\n", b"err2\ne") == [
        ["stdout", "out1\n"],
        ["stderr", "err2\n"],
        ["stdout", "out3\n"],
        ["stderr", "e"],
    ]
    # Unrecorded bytes (a subprocess's) follow; adjacent pieces of one stream are one piece.
    assert runner.interleave(record(1, 2) + record(1, 2), b"abcdXY", b"E") == [
        ["stdout", "abcdXY"],
        ["stderr", "E"],
    ]
    # Nothing to order with one stream empty; a record of no known stream spoils the order.
    assert runner.interleave(record(1, 3), b"abc", b"") is None
    assert runner.interleave(record(9, 3), b"abc", b"e") is None
    # Records longer than the bytes they claim (output cut at the cap) take what is there.
    assert runner.interleave(record(2, 99) + record(1, 99), b"o", b"e") == [
        ["stderr", "e"],
        ["stdout", "o"],
    ]
