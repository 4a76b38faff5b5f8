"""Onsite sandbox harness: the program that runs *inside* the sandbox container.

It is started as ``python3 -I /opt/onsite/harness/runner.py`` and speaks the protocol described in
docs/architecture.md ("Harness protocol"): it prints ``@@ready``, reads one JSON line (the job),
runs every test in a forked child and prints one ``@@<nonce> {...}`` frame per test, then
``@@<nonce> {"type": "done"}``.

Only the standard library is used (numpy is imported when present, torch or pandas only when
present and named by ``ONSITE_PRELOAD`` or imported by the job's code) because this file is
copied into a minimal image.

Process layout, and why::

    harness (PID 1, non-dumpable)     holds the nonce (in a pipe) and the job header only
      ├─ job parser (once)           parses the job, stores each input in a memfd, exits
      └─ supervisor (per test)       forks the test, enforces its limits, writes its frame
           └─ test process           RLIMIT_CPU, stdout/stderr capped, runs candidate code

* PID 1 ignores signals it has no handler for when they come from inside the container, so
  a test cannot kill or stop the harness; being non-dumpable, its memory, fds and stdout
  (the attach stream) are out of reach of processes of the same user.
* Every test process is forked from a harness that never held another test's input (they stay
  in the memfd until their own test) nor any test's output (only supervisors see those), so a
  test cannot find other tests' data by scanning the memory it inherited.
* Before each test the working dir, /tmp, /dev/shm, /dev/mqueue and System V IPC are emptied;
  if that fails, the remaining tests are not run (fail closed). After each test every process
  but PID 1 is killed (``kill(-1)``), so daemons die.

Safety: ``kill(-1)`` is only harmless inside the container's PID namespace, so ``main``
refuses to start unless it runs as a non-root user, with ``ONSITE_SANDBOX=1``, as PID 1 or a
child of PID 1.
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import gc
import importlib
import io
import json
import math
import os
import re
import resource
import select
import signal
import struct
import sys
import time
import traceback
from collections import deque
from collections.abc import Mapping
from typing import Any

# Exit codes the worker treats as platform faults (never charged to the candidate).
EXIT_BAD_JOB = 2
EXIT_INTERNAL = 3
EXIT_REFUSED = 4
EXIT_IDLE = 5
EXIT_NO_MEMFD = 6
# Exit code a child uses when it hit MemoryError and could not even report it.
CHILD_EXIT_MEMORY = 71

STATUSES = ("ok", "error", "timeout", "cpu", "memory", "output", "crash", "skipped")
# The statuses that end a test at a time limit: the later tests of its stop group are skipped.
TIME_LIMIT_STATUSES = ("timeout", "cpu")

MAX_JOB_BYTES = 256 * 1024 * 1024
MAX_ERROR_CHARS = 4000
MAX_DEPTH = 100
SCRATCH_DIRS = ("/tmp", "/dev/shm", "/dev/mqueue")  # noqa: S108 (the container's own tmpfs, wiped per test)
RESERVED_MODULES = ("solution", "_onsite_driver")

_THIS_FILE = os.path.abspath(__file__)
_IMPORTLIB_DIR = os.path.dirname(os.path.abspath(importlib.__file__ or "")) + os.sep
# Bound early so candidate code that monkeypatches the json module cannot change how the
# harness serialises (it could only hurt itself anyway: the parent re-validates the result).
_dumps = json.dumps
_loads = json.loads


class ResultTooLarge(Exception):
    """The normalised output exceeds a size or depth limit."""


class UnserialisableOutput(TypeError):
    """The output holds a value that has no JSON form."""


# --------------------------------------------------------------------------------------------
# Output normalisation (pure; unit-tested on the host)
# --------------------------------------------------------------------------------------------


def _top_module(value: Any) -> str:
    return (type(value).__module__ or "").split(".", 1)[0]


def normalise(value: Any, *, max_nodes: int = 2_000_000) -> Any:
    """Turn a candidate's return value into plain JSON data.

    tuples/lists/deques -> lists, sets -> sorted lists, dict keys -> str, numpy/pandas/torch
    values -> ``tolist()``/``item()``, dates -> ISO strings. Subclasses of builtins are converted
    to the exact builtin type, so no candidate-defined ``__eq__`` survives. Raises
    ``ResultTooLarge`` past ``max_nodes`` values or ``MAX_DEPTH`` nesting, ``UnserialisableOutput``
    for anything else.
    """
    budget = [max_nodes]
    return _norm(value, 0, budget)


def _norm(value: Any, depth: int, budget: list[int]) -> Any:
    budget[0] -= 1
    if budget[0] < 0:
        raise ResultTooLarge("result has too many values")
    if depth > MAX_DEPTH:
        raise ResultTooLarge(f"result is nested deeper than {MAX_DEPTH} levels")
    if value is None or type(value) in (bool, int, float):
        return value
    if type(value) is str:
        return clean_text(value)
    if isinstance(value, bool):  # bool cannot be subclassed, kept for clarity
        return bool(value)
    if isinstance(value, int):
        return int.__int__(value)  # exact int, whatever the subclass overrides
    if isinstance(value, float):
        return float.__float__(value)
    if isinstance(value, str):
        return clean_text(str.__str__(value))
    if isinstance(value, (list, tuple, deque, range)):
        return [_norm(item, depth + 1, budget) for item in value]
    if isinstance(value, Mapping):
        out: dict[str, Any] = {}
        for key, item in value.items():
            out[_norm_key(key, depth, budget)] = _norm(item, depth + 1, budget)
        return out
    if isinstance(value, (set, frozenset)):
        items = [_norm(item, depth + 1, budget) for item in value]
        try:
            return sorted(items)
        except TypeError:  # mixed types: order by their JSON text, which is total
            return sorted(items, key=lambda item: _dumps(item, sort_keys=True, allow_nan=True))
    if isinstance(value, (_dt.datetime, _dt.date, _dt.time)):
        return value.isoformat()
    top = _top_module(value)
    if top in ("numpy", "pandas", "torch"):
        if top == "pandas" and hasattr(value, "to_dict") and not hasattr(value, "tolist"):
            return _norm(value.to_dict(orient="list"), depth + 1, budget)  # DataFrame
        for method in ("tolist", "item"):
            if hasattr(value, method):
                plain = getattr(value, method)()
                if _top_module(plain) == top:  # e.g. np.longdouble: item() returns itself
                    return _scalar(plain)
                return _norm(plain, depth + 1, budget)
    raise UnserialisableOutput(f"output value of type {type(value).__name__} has no JSON form")


def _scalar(value: Any) -> Any:
    """A library scalar that has no Python form of its own (np.longdouble, np.clongdouble...)
    as the nearest JSON number; UnserialisableOutput when it is not a real number."""
    import numbers

    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, numbers.Real):
        return float(value)
    raise UnserialisableOutput(f"output value of type {type(value).__name__} has no JSON form")


def clean_text(text: str) -> str:
    """``text`` as valid Unicode: lone surrogates (unencodable anywhere downstream) become '?'."""
    if text.isascii():
        return text
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-8", "replace").decode("utf-8")
    return text


def _norm_key(key: Any, depth: int, budget: list[int]) -> str:
    plain = _norm(key, depth + 1, budget)
    if type(plain) is str:
        return plain
    # Same spelling json.dumps uses for non-str keys (true, null, 1.5), lists as JSON text.
    return _dumps(plain, allow_nan=True, sort_keys=True)


def encode_result(value: Any, result_bytes: int) -> str:
    """Normalise and serialise ``value``; raise ``ResultTooLarge`` past the node or depth
    bounds. A text over ``result_bytes`` is returned as it is: its supervisor sees the size
    on the pipe and decides the status itself (output limit), whatever the child claims."""
    plain = normalise(value, max_nodes=max(1000, result_bytes // 2))
    try:
        return _dumps(plain, allow_nan=True, separators=(",", ":"))
    except ValueError as exc:  # e.g. an int with more digits than int->str allows
        raise ResultTooLarge(str(exc)) from None


MAX_CHAIN = 4
MAX_FRAMES = 30
MAX_MESSAGE_CHARS = 2000


def _message(exc: BaseException) -> str:
    try:
        text = str(exc)
    except BaseException:
        return "<unprintable>"
    return clean_text(text[:MAX_MESSAGE_CHARS] + ("..." if len(text) > MAX_MESSAGE_CHARS else ""))


# The grader's own files in a test's working dir (a custom driver and its modules, such as
# support.py): set in the test's process. Their frames are the grader's, not the candidate's,
# so a traceback leaves them out, and an exception none of whose frames is the candidate's
# was raised by the grader (a custom input it cannot read, a result it cannot use).
_GRADER_FILES: set[str] = set()


def _own_frame(frame: traceback.FrameSummary) -> bool:
    """A frame of the candidate's code: not the harness, not importlib, not the driver."""
    name = frame.filename
    path = os.path.abspath(name)
    return (
        path != _THIS_FILE
        and path not in _GRADER_FILES
        and not name.startswith(("<frozen importlib", _IMPORTLIB_DIR))
    )


def _candidate_frames(exc: BaseException) -> bool:
    """Whether any frame of ``exc``'s traceback is the candidate's (a SyntaxError in their
    file counts: it names their line)."""
    if isinstance(exc, SyntaxError):
        return os.path.abspath(exc.filename or "") not in _GRADER_FILES
    try:
        return any(_own_frame(f) for f in traceback.extract_tb(exc.__traceback__))
    except BaseException:
        return True


def format_exception(exc: BaseException) -> str:
    """A bounded traceback of ``exc``: at most a few chained exceptions, their last frames and
    the start of each message. Formatting must not cost more than the limits allow (a message
    can be megabytes, a chain long, a traceback thousands of frames deep)."""
    chain: list[BaseException] = []
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen and len(chain) < MAX_CHAIN:
        seen.add(id(current))
        chain.append(current)
        cause = current.__cause__
        current = (
            cause if cause is not None or current.__suppress_context__ else (current.__context__)
        )
    parts: list[str] = []
    for position, item in enumerate(reversed(chain)):
        if position:
            parts.append("\nWhile handling the above, another exception occurred:\n\n")
        try:
            frames = [f for f in traceback.extract_tb(item.__traceback__) if _own_frame(f)]
        except BaseException:
            frames = []
        if frames:
            parts.append("Traceback (most recent call last):\n")
            if len(frames) > MAX_FRAMES:
                parts.append(f"  ... {len(frames) - MAX_FRAMES} earlier frames ...\n")
            parts.extend(traceback.format_list(frames[-MAX_FRAMES:]))
        name = type(item).__qualname__
        if isinstance(item, SyntaxError):
            try:
                lines = traceback.format_exception_only(type(item), item)
                parts.append(clean_text("".join(lines)[:MAX_MESSAGE_CHARS]))
            except BaseException:
                parts.append(f"{name}: {_message(item)}\n")
        else:
            message = _message(item)
            parts.append(f"{name}: {message}\n" if message else f"{name}\n")
    text = "".join(parts)
    if len(text) > MAX_ERROR_CHARS:
        text = "...\n" + text[-MAX_ERROR_CHARS:]
    return text


# --------------------------------------------------------------------------------------------
# Child side: runs candidate code
# --------------------------------------------------------------------------------------------


def _load_module(name: str) -> Any:
    if name in _PRELOADED:  # imported once by PID 1 (preload_driver): this test's own copy
        sys.modules.update(_PRELOADED)
        return _PRELOADED[name]
    sys.modules.pop(name, None)
    return importlib.import_module(name)


def call_driver(driver: Mapping[str, Any], test_input: Any, result_bytes: int) -> str:
    """Import the solution, run one test through the driver, return the output's JSON text."""
    kind = driver.get("kind")
    # A custom driver (and the support module it imports) is loaded before the solution, so
    # the solution's import-time code cannot replace the driver's file or its `run`.
    run_custom = _load_module("_onsite_driver").run if kind == "custom" else None
    _PHASE[0] = "load"  # an exception from here on is the solution failing to import
    solution = _load_module("solution")
    _PHASE[0] = "run"
    if kind == "function":
        func = getattr(solution, str(driver["entry"]))
        args = test_input.get("args", []) if isinstance(test_input, dict) else []
        kwargs = test_input.get("kwargs", {}) if isinstance(test_input, dict) else {}
        return encode_result(func(*args, **kwargs), result_bytes)
    if kind == "ops":
        cls = getattr(solution, str(driver["entry"]))
        obj = cls(*test_input.get("init", []))
        outputs: list[Any] = []
        budget = max(1000, result_bytes // 2)
        for op in test_input.get("ops", []):
            ret = getattr(obj, str(op[0]))(*op[1:])
            # Normalise each return at once: a later op may mutate what an earlier one returned.
            plain = normalise(ret, max_nodes=budget)
            outputs.append(plain)
        return encode_result(outputs, result_bytes)
    if run_custom is not None:
        return encode_result(run_custom(solution, test_input), result_bytes)
    raise ValueError(f"unknown driver kind {kind!r}")


# Where the test's process is: "driver" (importing the grader's driver), "load" (importing
# the solution: a SyntaxError or an import-time exception, the same in every test), "run".
_PHASE = ["driver"]
NO_STDIN_MESSAGE = (
    "input() is not available: this run has no stdin (the grader passes your code its input "
    "as arguments; use print() to debug)"
)


def _no_stdin(prompt: Any = "") -> str:
    """``input()`` in a test: stdin is closed, so say why at once instead of a bare EOFError."""
    raise EOFError(NO_STDIN_MESSAGE)


_LIBC: list[Any] = []  # libc through ctypes, loaded once by PID 1 ([None]: unavailable)


def _libc() -> Any:
    """libc through ctypes, or None. Loaded once (PID 1 does at start): every supervisor and
    test process forked afterwards inherits it instead of loading it again per test."""
    if not _LIBC:
        try:
            import ctypes

            _LIBC.append(ctypes.CDLL(None, use_errno=True))
        except Exception:
            _LIBC.append(None)
    return _LIBC[0]


def _set_dumpable(flag: int) -> None:
    with contextlib.suppress(Exception):  # no ctypes/libc: the other defences still hold
        _libc().prctl(4, flag, 0, 0, 0)  # PR_SET_DUMPABLE


# The order in which a test's print()s reached stdout and stderr. The two are read from two
# pipes, so their bytes alone cannot say which line came first; each write of sys.stdout and
# sys.stderr also writes a 5-byte record (stream, length) to this descriptor, and the supervisor
# replays the records over the two buffers (`interleave`). What bypasses Python's streams (a
# subprocess, os.write) has no record and follows in arrival order. The records only order what
# is shown: a test that forges them garbles its own output's order, nothing else.
ORDER_FD = 4
ORDER_RECORD = struct.Struct("<BI")
ORDER_MAX_RECORDS = 8192  # past this many writes, the rest follow unordered
STREAM_TAGS = {1: "stdout", 2: "stderr"}


class _OrderedWrites(io.RawIOBase):
    """The raw layer under a test's sys.stdout or sys.stderr: each write, then its record."""

    written = 0  # records sent, both streams together

    def __init__(self, fd: int) -> None:
        super().__init__()
        self.fd = fd

    def writable(self) -> bool:
        return True

    def fileno(self) -> int:
        return self.fd

    def write(self, data: Any) -> int:
        count = os.write(self.fd, data)
        if _OrderedWrites.written < ORDER_MAX_RECORDS and count:
            _OrderedWrites.written += 1
            with contextlib.suppress(OSError):
                os.write(ORDER_FD, ORDER_RECORD.pack(self.fd, count))
        return count


def _ordered_streams() -> None:
    """sys.stdout and sys.stderr as line-buffered text streams over `_OrderedWrites`."""
    for fd, name in STREAM_TAGS.items():
        buffered = io.BufferedWriter(_OrderedWrites(fd), buffer_size=8192)
        setattr(sys, name, io.TextIOWrapper(buffered, encoding="utf-8",
                                            errors="backslashreplace", line_buffering=True))


def interleave(order: bytes, out: bytes, err: bytes) -> list[list[str]] | None:
    """stdout's and stderr's bytes as one sequence of [stream, text] in the order they were
    written (the records of `_OrderedWrites`); None when there is nothing to order (one
    stream empty) or the records do not fit the bytes (forged: each stream stays whole)."""
    if not out or not err:
        return None
    buffers = {1: out, 2: err}
    taken = {1: 0, 2: 0}
    pieces: list[tuple[int, bytes]] = []
    for offset in range(0, len(order) - ORDER_RECORD.size + 1, ORDER_RECORD.size):
        tag, count = ORDER_RECORD.unpack_from(order, offset)
        if tag not in buffers:
            return None
        start = taken[tag]
        end = min(len(buffers[tag]), start + count)
        if end > start:
            pieces.append((tag, buffers[tag][start:end]))
            taken[tag] = end
    for tag, data in buffers.items():  # unrecorded writes (a subprocess's), and the rest
        if taken[tag] < len(data):
            pieces.append((tag, data[taken[tag]:]))
    merged: list[tuple[int, bytearray]] = []
    for tag, data in pieces:
        if merged and merged[-1][0] == tag:
            merged[-1][1].extend(data)
        else:
            merged.append((tag, bytearray(data)))
    return [[STREAM_TAGS[tag], bytes(data).decode("utf-8", "replace")] for tag, data in merged]


def _prepare_child(
    out_w: int, res_w: int, in_r: int, rlimit_cpu_seconds: int, err_w: int | None = None,
    order_w: int | None = None,
) -> None:
    """Rewire fds and limits in the freshly forked child, before any candidate code runs."""
    os.dup2(in_r, 0)  # a pipe whose write end the supervisor closed: a read ends at once (EOF)
    os.dup2(out_w, 1)
    os.dup2(out_w if err_w is None else err_w, 2)  # stderr on its own pipe: shown apart
    if res_w != 3:
        os.dup2(res_w, 3)
    keep = 4
    if order_w is not None:
        if order_w != ORDER_FD:
            os.dup2(order_w, ORDER_FD)
        keep = ORDER_FD + 1
    # Close everything else: the attach stdout, the nonce pipe, the parent's pipe ends. Candidate
    # code must not be able to write frames to the worker through an inherited descriptor.
    soft, _hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    os.closerange(keep, soft if soft != resource.RLIM_INFINITY else 4096)
    # The parent is non-dumpable (so its /proc/<pid>/fd and memory stay private); the child
    # makes itself dumpable again only to be allowed to raise its own OOM score: when the
    # container runs out of memory, the kernel should kill the candidate, never the harness.
    _set_dumpable(1)
    with contextlib.suppress(OSError), open("/proc/self/oom_score_adj", "w") as handle:
        handle.write("1000")
    limit = rlimit_cpu_seconds
    # soft: SIGXCPU; hard: SIGKILL one second later, in case the candidate handles SIGXCPU.
    resource.setrlimit(resource.RLIMIT_CPU, (limit, limit + 1))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGXCPU, signal.SIGPIPE):
        signal.signal(sig, signal.SIG_DFL)


# The inputs memfd starts with a table of (offset, length, stop group) per test, 24 bytes
# each, then the inputs. Only the process of test ``i`` reads entry ``i``'s input, and PID 1
# reads only its stop group, just before test ``i``: no process ever holds another test's
# position, size, input or group in its memory.
_ENTRY = struct.Struct("<QQq")
NO_STOP_GROUP = -1


def _entry(inputs_fd: int, index: int) -> tuple[int, int, int]:
    offset, length, group = _ENTRY.unpack(os.pread(inputs_fd, _ENTRY.size, index * _ENTRY.size))
    return offset, length, group


def load_input(inputs_fd: int, index: int) -> Any:
    """Test ``index``'s input, read from the inputs memfd."""
    offset, length, _group = _entry(inputs_fd, index)
    data = os.pread(inputs_fd, length, offset)
    return _loads(data.decode("utf-8", "surrogatepass"))


def load_stop_group(inputs_fd: int, index: int) -> int:
    """Test ``index``'s stop group (``NO_STOP_GROUP``: it always runs), from the memfd."""
    return _entry(inputs_fd, index)[2]


def rlimit_cpu_seconds(cpu_seconds: float, *, metered: bool) -> int:
    """The test process's RLIMIT_CPU (whole seconds, its own CPU time only).

    Where the supervisor meters the cgroup, the meter decides (every process of the test, to
    the sampling interval) and RLIMIT_CPU, a second later, only backs it up (a supervisor the
    test stopped samples nothing). The kernel's clock for it runs tens of milliseconds ahead
    of the cgroup's, so at the same second it would fire first and the test would show less
    CPU time than the limit it was stopped at."""
    return max(1, math.ceil(cpu_seconds)) + (1 if metered else 0)


def child_main(
    ctx: dict[str, Any],
    index: int,
    out_w: int,
    res_w: int,
    in_r: int,
    rlimit_cpu: int,
    err_w: int | None = None,
    order_w: int | None = None,
) -> None:
    """Body of the forked child; never returns."""
    code = 0
    try:
        # Read the input while the memfd is still open; _prepare_child closes it.
        test_input = load_input(ctx["inputs_fd"], index)
        _prepare_child(out_w, res_w, in_r, rlimit_cpu, err_w, order_w)
        # print() lines reach the pipe as they are printed, as in a terminal, not at exit, and
        # each write says which stream it went to (the order of stdout and stderr together).
        if order_w is not None:
            _ordered_streams()
        else:
            with contextlib.suppress(BaseException):
                sys.stdout.reconfigure(line_buffering=True)  # type: ignore[union-attr]
        import builtins

        builtins.input = _no_stdin
        workdir = ctx["workdir"]
        _GRADER_FILES.update(
            os.path.join(workdir, name + ".py") for name in ("_onsite_driver", *ctx["modules"])
        )
        os.chdir(ctx["workdir"])
        sys.path.insert(0, ctx["workdir"])
        sys.dont_write_bytecode = True  # no __pycache__ in /work (wiped anyway)
        sys.argv = ["solution"]
        result_bytes = int(ctx["result_bytes"])
        driver = ctx["driver"]
        try:
            message: dict[str, Any] = {
                "status": "ok",
                "output_json": call_driver(driver, test_input, result_bytes),
            }
        except MemoryError:
            message = {"status": "error", "error": "MemoryError", "exc_type": "MemoryError"}
        except ResultTooLarge as exc:  # the candidate's own RecursionError stays an error
            message = {
                "status": "error",
                "error": f"the result cannot be returned: {exc}"[:MAX_ERROR_CHARS],
                "exc_type": "ResultTooLarge",
            }
        except BaseException as exc:  # SystemExit, KeyboardInterrupt... are the candidate's too
            message = {
                "status": "error",
                # Paths as the candidate knows them ("solution.py"), not the sandbox's "/work".
                "error": format_exception(exc).replace(f'File "{workdir}/', 'File "'),
                "exc_type": type(exc).__name__,
                "phase": _PHASE[0],
                # No frame of the candidate's: the grader's driver raised it (an input it
                # cannot read, a result it cannot use), named so in what the candidate sees.
                "by": "candidate" if _candidate_frames(exc) else "grader",
            }
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(BaseException):
                stream.flush()
        _send_result(message)
    except MemoryError:
        code = CHILD_EXIT_MEMORY
    except BaseException:
        code = 70
    os._exit(code)


def _send_result(message: dict[str, Any]) -> None:
    output_json = message.pop("output_json", None)
    body = _dumps(message, allow_nan=True, separators=(",", ":"))
    if output_json is not None:  # splice the already-serialised output, no second dump
        body = body[:-1] + ',"output":' + output_json + "}"
    data = body.encode("utf-8", "surrogatepass")
    view = memoryview(data)
    while view:
        written = os.write(3, view)
        view = view[written:]


# --------------------------------------------------------------------------------------------
# Parent side: one child per test
# --------------------------------------------------------------------------------------------


# Where the container's memory cgroup counts that its limit was hit: (file, key or "" for a
# file that holds one number, which count it adds to). A count is the kernel's, so no process
# of the test can move it without really reaching the limit.
_MEMORY_COUNTERS = (
    ("/sys/fs/cgroup/memory/memory.oom_control", "oom_kill", "kills"),  # v1
    ("/sys/fs/cgroup/memory/memory.failcnt", "", "hits"),  # v1: charges that hit the limit
    ("/sys/fs/cgroup/memory/memory.memsw.failcnt", "", "hits"),
    ("/sys/fs/cgroup/memory.events", "oom_kill", "kills"),  # v2
    ("/sys/fs/cgroup/memory.events", "oom", "hits"),  # v2: an allocation was about to fail
    ("/sys/fs/cgroup/memory.events", "max", "hits"),  # v2: usage reached memory.max
)


def _read_counter(path: str, key: str) -> int | None:
    try:
        fd = os.open(path, os.O_RDONLY)
        try:
            data = os.read(fd, 65536)
        finally:
            os.close(fd)
        if not key:
            return int(data)
        for line in data.splitlines():
            name, _, count = line.partition(b" ")
            if name == key.encode():
                return int(count)
    except (OSError, ValueError):
        return None
    return None


_PRESENT_COUNTERS: list[tuple[str, str, str]] = []


def memory_counters() -> tuple[tuple[str, str, str], ...]:
    """The entries of _MEMORY_COUNTERS whose file exists in this container: looked up once
    (PID 1 does before the first test), since a cgroup's files never come or go; every
    supervisor then opens only those, twice per test, instead of every candidate file."""
    if not _PRESENT_COUNTERS:
        present = [entry for entry in _MEMORY_COUNTERS if os.path.exists(entry[0])]
        _PRESENT_COUNTERS.extend(present or [("", "", "")])
    return tuple(entry for entry in _PRESENT_COUNTERS if entry[0])


def read_memory_marks() -> dict[str, int]:
    """The container memory cgroup's counters of its limit being hit: ``kills`` (OOM kills)
    and ``hits`` (charges that reached the limit); a counter it cannot read is absent."""
    marks: dict[str, int] = {}
    for path, key, kind in memory_counters():
        count = _read_counter(path, key)
        if count is not None:
            marks[kind] = marks.get(kind, 0) + count
    return marks


def memory_limit_seen(before: Mapping[str, int], after: Mapping[str, int]) -> tuple[bool, bool]:
    """(OOM-killed, limit hit) between two ``read_memory_marks``: whether the kernel killed a
    process at the limit, and whether it saw the limit reached at all (a kill included)."""

    def moved(kind: str) -> bool:
        return kind in before and kind in after and after[kind] > before[kind]

    killed = moved("kills")
    return killed, killed or moved("hits")


def _read_oom_kills() -> int | None:
    """The container memory cgroup's OOM-kill counter (cgroup v1, then v2), or None."""
    return read_memory_marks().get("kills")


def _wipe_dir(root: str) -> bool:
    """Delete everything under ``root`` (not ``root`` itself); True when it ends up empty.

    Walks with one directory fd at a time, relative to it (a test may leave a chain of nested
    dirs deeper than PATH_MAX or than the fd limit), and chmods each directory before entering
    it (a test may leave read-only ones). Every process of the test is dead by now, so nothing
    renames or re-creates entries meanwhile.
    """
    flags = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW
    try:
        fd = os.open(root, flags)
    except FileNotFoundError:
        return True  # e.g. no /dev/mqueue in this container
    except OSError:
        return False
    names: list[str] = []  # the path from root to where fd is, as names
    stuck: set[int] = set()  # inodes of dirs that would not go: never enter them again
    try:
        while True:
            subdir = None
            try:
                entries = list(os.scandir(fd))
            except OSError:
                entries = []
            for entry in entries:
                try:
                    if not entry.is_dir(follow_symlinks=False):
                        os.unlink(entry.name, dir_fd=fd)
                    elif entry.inode() not in stuck:
                        subdir = entry.name
                        break
                except OSError:
                    pass
            if subdir is not None:
                try:
                    os.chmod(subdir, 0o700, dir_fd=fd)
                    child = os.open(subdir, flags, dir_fd=fd)
                except OSError:
                    with contextlib.suppress(OSError):
                        stuck.add(os.stat(subdir, dir_fd=fd, follow_symlinks=False).st_ino)
                    continue
                os.close(fd)
                fd = child
                names.append(subdir)
                continue
            if not names:
                break
            parent = os.open("..", flags, dir_fd=fd)
            inode = os.fstat(fd).st_ino
            os.close(fd)
            fd = parent
            try:
                os.rmdir(names.pop(), dir_fd=fd)
            except OSError:
                stuck.add(inode)
        return not os.listdir(fd)
    except OSError:
        return False
    finally:
        os.close(fd)


_IPC_RMID = 0


def _remove_sysv_ipc() -> bool:
    """Remove System V shared memory, semaphores and message queues (they outlive processes
    and would carry data from one test to the next); True when none is left."""
    libc = _libc()
    left = False
    for kind in ("shm", "sem", "msg"):
        try:
            with open(f"/proc/sysvipc/{kind}") as handle:
                rows = handle.read().splitlines()[1:]
        except OSError:
            continue
        for row in rows:
            fields = row.split()
            if len(fields) < 2:
                continue
            ident = int(fields[1])
            if libc is None:
                left = True
            elif kind == "shm":
                left |= libc.shmctl(ident, _IPC_RMID, None) != 0
            elif kind == "sem":
                left |= libc.semctl(ident, 0, _IPC_RMID) != 0
            else:
                left |= libc.msgctl(ident, _IPC_RMID, None) != 0
    return not left


def _write_file(path: str, text: str) -> None:
    with open(path, "w", encoding="utf-8", errors="surrogatepass") as handle:
        handle.write(text)


def prepare_workdir(ctx: dict[str, Any]) -> bool:
    """Fresh working dir, scratch dirs and IPC for each test: nothing a test leaves survives.

    False when the sandbox could not be reset: the caller then fails the remaining tests
    instead of running them in a state an earlier test controls (fail closed).
    """
    workdir = ctx["workdir"]
    clean = all([_wipe_dir(path) for path in (workdir, *SCRATCH_DIRS)])
    clean = _remove_sysv_ipc() and clean
    if not clean:
        return False
    try:
        _write_job_files(ctx)
    except OSError:
        return False
    return True


def _write_job_files(ctx: dict[str, Any], *, solution: bool = True) -> None:
    """The job's files in the working dir: the solution (unless told not to), its modules and
    a custom driver."""
    workdir = ctx["workdir"]
    if solution:
        _write_file(os.path.join(workdir, "solution.py"), ctx["solution"])
    for name, source in ctx["modules"].items():
        _write_file(os.path.join(workdir, name + ".py"), source)
    if ctx["driver"].get("kind") == "custom":
        _write_file(os.path.join(workdir, "_onsite_driver.py"), str(ctx["driver"]["source"]))


def _fork(kill_strays: bool = True) -> int:
    # A fork bomb from the previous test may still hold pids until they are reaped.
    for attempt in range(50):
        try:
            return os.fork()
        except BlockingIOError:
            if kill_strays:
                _kill_strays()
            time.sleep(0.02 * (attempt + 1))
    return os.fork()


def _signal_all() -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.kill(-1, signal.SIGKILL)


def _other_pids() -> list[int]:
    me = os.getpid()
    try:
        return [int(p) for p in os.listdir("/proc") if p.isdigit() and int(p) not in (1, me)]
    except OSError:
        return []


def _reap_zombies() -> None:
    while True:
        try:
            pid, _status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def _kill_strays(timeout: float = 2.0) -> None:
    """SIGKILL every process we may signal (all but PID 1 and ourselves): daemons die here.

    Repeated until none is left (a process forked while kill(-1) walked the task list can
    escape one sweep) and until init has reaped the corpses, so the next test starts alone and
    with every pid of the pids limit free.
    """
    deadline = time.monotonic() + timeout
    while True:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(-1, signal.SIGKILL)
        _reap_zombies()  # orphans are ours to reap if we are PID 1 (no init)
        if not _other_pids() or time.monotonic() > deadline:
            return
        time.sleep(0.002)


def _pidfd(pid: int) -> int | None:
    try:
        return os.pidfd_open(pid)  # type: ignore[attr-defined,unused-ignore]
    except (AttributeError, OSError):
        return None  # old kernel or seccomp profile: fall back to polling wait4


def _drain(fd: int, buf: bytearray, cap: int) -> bool:
    """Read what is buffered on a non-blocking fd; False once EOF. Stops past ``cap``."""
    while len(buf) <= cap:
        try:
            data = os.read(fd, 65536)
        except BlockingIOError:
            return True
        except OSError:
            return False
        if not data:
            return False
        buf += data
    return True


def _not_run(message: str, status: str = "crash") -> dict[str, Any]:
    return {
        "status": status,
        "output": None,
        "error": message,
        "exc_type": "",
        "time_ms": 0.0,
        "cpu_ms": 0.0,
        "stdout": "",
        "stderr": "",
    }


class CpuMeter:
    """CPU time of every process in the container, from its cgroup (v1 cpuacct, then v2).

    A test's CPU time is the container's usage over the test minus its supervisor's own:
    PID 1 sleeps meanwhile, so what is left is the test process, its children, and any
    process it forked and never reaped (which ``wait4`` and ``RLIMIT_CPU`` do not count).
    """

    PATHS = (
        ("/sys/fs/cgroup/cpuacct/cpuacct.usage", ""),  # v1: nanoseconds
        ("/sys/fs/cgroup/cpu,cpuacct/cpuacct.usage", ""),
        ("/sys/fs/cgroup/cpu.stat", "usage_usec"),  # v2: microseconds
    )

    # The file found by the first meter of this process (PID 1 makes one before the first
    # test, so each test's supervisor inherits it instead of probing the paths again).
    _found: tuple[str, str] | None = None

    def __init__(self) -> None:
        self.path, self.key = "", ""
        # Only where the worker says this cgroup is the sandbox's own (a container): run as a
        # bare process, /sys/fs/cgroup would be the host's, and count everyone's CPU.
        if os.environ.get("ONSITE_OWN_CGROUP") != "1":
            return
        found = CpuMeter._found
        if found is not None:
            self.path, self.key = found
            if self._usage_ms() is not None:
                return
        for path, key in self.PATHS:
            self.path, self.key = path, key
            if self._usage_ms() is not None:
                CpuMeter._found = (path, key)
                return
        self.path = ""

    @property
    def available(self) -> bool:
        return bool(self.path)

    def _usage_ms(self) -> float | None:
        try:
            with open(self.path, "rb") as handle:
                text = handle.read().decode("ascii")
        except (OSError, ValueError):
            return None
        try:
            if not self.key:
                return int(text) / 1e6
            for line in text.splitlines():
                name, _, value = line.partition(" ")
                if name == self.key:
                    return int(value) / 1e3
        except ValueError:
            return None
        return None

    def start(self) -> None:
        self._start = self._usage_ms() or 0.0
        self._own_start = self._own_ms()

    @staticmethod
    def _own_ms() -> float:
        usage = resource.getrusage(resource.RUSAGE_SELF)
        return (usage.ru_utime + usage.ru_stime) * 1000.0

    def used_ms(self) -> float:
        """CPU milliseconds the container used since ``start``, less this process's own."""
        now = self._usage_ms()
        if now is None:
            return 0.0
        return max(0.0, now - self._start - (self._own_ms() - self._own_start))


# How often a running test's CPU and wall time are sampled: a test is killed at most this late.
CPU_POLL_SECONDS = 0.02
# CPUs this machine has (the container's share is at most that): its processes together use at
# most this many CPU seconds per second. Unknown: as many as ever matter (never skips a check).
CPUS = os.cpu_count() or 1_000_000


def _starved_seconds() -> float:
    """How long the test's most starved process waited runnable for a CPU (run_delay of
    /proc/<pid>/schedstat), over every process but PID 1 and this supervisor: each of them
    was born during this test. 0 where schedstat is unreadable (the backstop is then plain
    wall time)."""
    worst = 0
    for pid in _other_pids():
        try:
            with open(f"/proc/{pid}/schedstat", "rb") as handle:
                worst = max(worst, int(handle.read().split()[1]))
        except (OSError, ValueError, IndexError):
            continue
    return worst / 1e9


def run_test(ctx: dict[str, Any], index: int, deadline: float) -> dict[str, Any]:
    """Run one test in a forked child and classify how it ended (in the test's supervisor).

    The test ends at its wall backstop or at ``deadline`` (monotonic), whichever is first,
    and as soon as its processes together used more CPU than its limit."""
    out_r, out_w = os.pipe()
    err_r, err_w = os.pipe()
    res_r, res_w = os.pipe()
    in_r, in_w = os.pipe()
    ord_r, ord_w = os.pipe()
    wall = float(ctx["test_wall_seconds"])
    cpu_limit = float(ctx["test_cpu_seconds"])
    cpu_limit_ms = cpu_limit * 1000.0
    out_cap = int(ctx["output_bytes"])
    res_cap = int(ctx["result_bytes"]) + MAX_ERROR_CHARS * 8 + 4096
    memory_before = read_memory_marks()
    meter = CpuMeter()
    rlimit_cpu = rlimit_cpu_seconds(cpu_limit, metered=meter.available)
    meter.start()
    started = time.monotonic()
    pid = _fork(kill_strays=False)
    if pid == 0:
        child_main(ctx, index, out_w, res_w, in_r, rlimit_cpu, err_w, ord_w)
        os._exit(70)  # not reached
    # stdin's write end too: the test reads EOF at once (input() says there is no stdin)
    # instead of blocking until its wall backstop.
    for fd in (out_w, err_w, res_w, in_r, in_w, ord_w):
        os.close(fd)
    for fd in (out_r, err_r, res_r, ord_r):
        os.set_blocking(fd, False)
    pidfd = _pidfd(pid)
    out_buf = bytearray()
    err_buf = bytearray()
    res_buf = bytearray()
    ord_buf = bytearray()
    # stdout and stderr share the one output cap (their bytes together).
    buffers = {out_r: (out_buf, out_cap), err_r: (err_buf, out_cap), res_r: (res_buf, res_cap),
               ord_r: (ord_buf, ORDER_RECORD.size * ORDER_MAX_RECORDS)}
    reason = ""
    waited: tuple[int, int, Any] | None = None
    poller = select.poll()
    open_fds = {out_r, err_r, res_r, ord_r}
    for fd in open_fds:
        poller.register(fd, select.POLLIN)
    if pidfd is not None:
        poller.register(pidfd, select.POLLIN)
    # The wall backstop counts only time the test was not waiting for a CPU: on a loaded host
    # a runnable program queues behind other sandboxes, and that must not make it TLE. Its
    # hard stop is ``deadline`` (the budget both sides agree on), whatever the waiting.
    # (Time spent waiting is never negative: /proc is scanned for it only once the plain wall
    # time is past the backstop, not at every wake-up.)
    ends = deadline
    while True:
        now = time.monotonic()
        remaining = ends - now
        if remaining <= 0 or (now - started > wall and now - started - _starved_seconds() > wall):
            reason = "timeout"
            break
        # The container cannot have used more CPU than CPUS times the wall time so far: the
        # cgroup is read only from then on (until then it cannot be past the limit).
        if (meter.available and (now - started) * 1000.0 * CPUS > cpu_limit_ms
                and meter.used_ms() > cpu_limit_ms):
            reason = "cpu"
            break
        tick = min(remaining, CPU_POLL_SECONDS)
        events = poller.poll(max(1, int(tick * 1000)))
        for fd, _event in events:
            if fd == pidfd:
                continue
            buf, cap = buffers[fd]
            if not _drain(fd, buf, cap):
                poller.unregister(fd)
                open_fds.discard(fd)
        if len(out_buf) + len(err_buf) > out_cap:
            reason = "output"
            break
        if len(res_buf) > res_cap:
            reason = "result"
            break
        # The child may have exited while a grandchild keeps the pipes open: do not wait for
        # EOF, ask the kernel whether *the child* is gone.
        if pidfd is not None and not any(fd == pidfd for fd, _ in events):
            continue
        got_pid, status, usage = os.wait4(pid, os.WNOHANG)
        if got_pid == pid:
            waited = (got_pid, status, usage)
            break
    if waited is None:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
        waited = os.wait4(pid, 0)
    elapsed_ms = (time.monotonic() - started) * 1000.0
    for fd in open_fds:
        _drain(fd, *buffers[fd])
    _signal_all()  # the test's daemons stop now; PID 1 reaps and re-checks after us
    for fd in (out_r, err_r, res_r, ord_r) + ((pidfd,) if pidfd is not None else ()):
        os.close(fd)
    _, status, usage = waited
    # Every process of the test, reaped or not; wait4's rusage only where no cgroup is readable.
    rusage_ms = (usage.ru_utime + usage.ru_stime) * 1000.0
    cpu_ms = meter.used_ms() if meter.available else rusage_ms
    oom_killed, limit_hit = memory_limit_seen(memory_before, read_memory_marks())
    outcome = classify(
        reason=reason,
        status=status,
        res_buf=bytes(res_buf),
        cpu_ms=cpu_ms,
        cpu_limit_s=cpu_limit,
        wall_s=wall,
        oom_killed=oom_killed,
        limit_hit=limit_hit,
        out_cap=out_cap,
        result_bytes=int(ctx["result_bytes"]),
    )
    outcome["time_ms"] = round(elapsed_ms, 3)
    outcome["cpu_ms"] = round(cpu_ms, 3)
    out_bytes = bytes(out_buf[:out_cap])
    err_bytes = bytes(err_buf[: max(0, out_cap - len(out_buf))])
    outcome["stdout"] = out_bytes.decode("utf-8", "replace")
    outcome["stderr"] = err_bytes.decode("utf-8", "replace")
    streams = interleave(bytes(ord_buf), out_bytes, err_bytes)
    if streams is not None:
        outcome["streams"] = streams
    return outcome


# Of a test's budget (worker and harness share one formula: Limits.test_budget_seconds), the
# last part is kept for ending it: the supervisor stops the test this long before the budget
# ends, PID 1 stops a stuck supervisor half as long before, then kills strays and writes.
END_RESERVE_SECONDS = 0.5
SUPERVISOR_OOM_SCORE = "500"
# How a supervisor that wrote its frame tells PID 1 the one fact PID 1 needs of it (whether
# the test ended at a time limit) without the frame passing through PID 1's memory.
SUPERVISOR_WROTE = 0
SUPERVISOR_WROTE_TIME_LIMIT = 10


def supervise(ctx: dict[str, Any], index: int, nonce: Nonce) -> bool:
    """Run one test under a short-lived supervisor process that reports its frame; True when
    the test ended at a time limit (its stop group's later tests are then skipped).

    The supervisor forks the test's process, collects its output and result, classifies and
    writes the frame, then exits. So no test's output or stdout ever passes through this
    process's memory, which every later test's process is forked from. Whatever the test does
    to its supervisor (stop it, trace it, starve it), this returns within the test's budget.
    """
    began = time.monotonic()
    deadline = began + float(ctx["test_budget_seconds"])
    base = {"type": "test", "index": index}
    if ctx.get("poisoned") or not prepare_workdir(ctx):
        ctx["poisoned"] = True
        message = "not run: an earlier test left the sandbox in a state it cannot be reset from"
        nonce.write_frame({**base, **_not_run(message)})
        return False
    oom_before = _read_oom_kills()
    started = time.monotonic()
    pid = _fork()
    if pid == 0:
        code = SUPERVISOR_WROTE
        try:
            # Preferred over PID 1 by the OOM killer (the test's own process is at 1000).
            with contextlib.suppress(OSError), open("/proc/self/oom_score_adj", "w") as handle:
                handle.write(SUPERVISOR_OOM_SCORE)
            outcome = run_test(ctx, index, deadline - END_RESERVE_SECONDS)
            nonce.write_frame({**base, **outcome})
            if outcome["status"] in TIME_LIMIT_STATUSES:
                code = SUPERVISOR_WROTE_TIME_LIMIT
        except BaseException:
            code = EXIT_INTERNAL
        os._exit(code)
    status = _wait_for(pid, max(0.0, deadline - END_RESERVE_SECONDS / 2 - time.monotonic()))
    if status is not None and os.WIFSTOPPED(status):
        # The test stopped its supervisor: nothing measures or reports it any more, so it
        # ends now rather than at its budget's hard stop (which would cost tens of seconds).
        # No limit was seen to be reached (the test chose to stop it): a crash, never a TLE.
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        outcome = _not_run("no result: the test stopped its supervisor")
        outcome["time_ms"] = round((time.monotonic() - started) * 1000.0, 3)
        _kill_strays(timeout=max(0.05, deadline - time.monotonic()))
        nonce.write_frame({**base, **outcome})
        return False
    wrote = (SUPERVISOR_WROTE, SUPERVISOR_WROTE_TIME_LIMIT)
    if status is not None and os.WIFEXITED(status) and os.WEXITSTATUS(status) in wrote:
        _kill_strays(timeout=max(0.05, deadline - time.monotonic()))
        return os.WEXITSTATUS(status) == SUPERVISOR_WROTE_TIME_LIMIT  # it wrote the frame
    elapsed_ms = round((time.monotonic() - started) * 1000.0, 3)
    if status is None:  # stopped or stuck (the test's process may SIGSTOP its parent)
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        outcome = _not_run(f"wall time limit of {ctx['test_wall_seconds']:g} s exceeded")
        outcome["status"] = "timeout"
    else:
        oom_after = _read_oom_kills()
        if oom_before is not None and oom_after is not None and oom_after > oom_before:
            outcome = _not_run("memory limit exceeded (killed by the OOM killer)")
            outcome["status"] = "memory"
        else:
            outcome = _not_run("the test's supervisor was killed (by the test's own process)")
    outcome["time_ms"] = elapsed_ms
    _kill_strays(timeout=max(0.05, deadline - time.monotonic()))
    # A partial frame the supervisor left is garbage without a newline-terminated JSON; this
    # frame starts on a new line, and a duplicate index is ignored by the worker.
    nonce.write_frame({**base, **outcome})
    return outcome["status"] in TIME_LIMIT_STATUSES


SKIPPED_MESSAGE = "not run: an earlier test of its group exceeded a time limit"


def run_tests(ctx: dict[str, Any], count: int, nonce: Nonce) -> None:
    """Every test in order, one frame each. A test that ends at a time limit stops its stop
    group: the group's later tests are reported ``skipped`` at once (no wipe, no fork), so a
    program that loops costs one limit per group, not one per test. PID 1 keeps only the
    numbers of the stopped groups: a fact about the candidate's own runs, not about a test."""
    stopped: set[int] = set()
    for index in range(count):
        group = load_stop_group(ctx["inputs_fd"], index)
        if group != NO_STOP_GROUP and group in stopped:
            frame = {"type": "test", "index": index, **_not_run(SKIPPED_MESSAGE, "skipped")}
            nonce.write_frame(frame)
        elif supervise(ctx, index, nonce) and group != NO_STOP_GROUP:
            stopped.add(group)


# How often PID 1 looks whether a supervisor was stopped (a pidfd wakes only on exit).
STOP_POLL_SECONDS = 0.1


def _wait_for(pid: int, timeout: float) -> int | None:
    """waitpid with a timeout: the exit or stop status (``WIFSTOPPED``: the process was
    SIGSTOPped), or None if ``pid`` is still running."""
    deadline = time.monotonic() + timeout
    pidfd = _pidfd(pid)
    try:
        while True:
            got, status = os.waitpid(pid, os.WNOHANG | os.WUNTRACED)
            if got == pid:
                return status
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return None
            if pidfd is not None:
                select.select([pidfd], [], [], min(remaining, STOP_POLL_SECONDS))
            else:
                time.sleep(min(remaining, 0.005))
    finally:
        if pidfd is not None:
            os.close(pidfd)


def classify(
    *,
    reason: str,
    status: int,
    res_buf: bytes,
    cpu_ms: float,
    cpu_limit_s: float,
    wall_s: float,
    oom_killed: bool,
    out_cap: int,
    result_bytes: int = 1_048_576,
    limit_hit: bool = False,
) -> dict[str, Any]:
    """Map how the child ended to a protocol status (pure).

    The class of a failed test comes from the supervisor's own observations only: ``reason``
    (its byte counts on the pipes, its CPU meter, its clock), the CPU time it measured, and
    the memory cgroup's counters (``oom_killed``: the kernel killed at the limit; ``limit_hit``:
    it saw the limit reached). Whatever the test process claims (a frame's status, an exit
    code, a signal it sends itself, a ``MemoryError`` it raises) is at most an error (RE).
    """

    def made(kind: str, error: str = "", exc_type: str = "", output: Any = None) -> dict[str, Any]:
        return {"status": kind, "output": output, "error": error, "exc_type": exc_type}

    # RLIMIT_CPU counts whole seconds (ceil of the limit); the exact, possibly fractional,
    # limit is applied here to whatever the child used.
    cpu_limit_ms = cpu_limit_s * 1000.0
    cpu_message = f"CPU time limit of {cpu_limit_s:g} s exceeded"
    if reason == "output":
        return made("output", f"stdout/stderr exceeded {out_cap} bytes")
    if reason == "result":
        return made("output", "result exceeded the result cap")
    if reason == "cpu":
        return made("cpu", f"{cpu_message} (all its processes)")
    if reason == "timeout":
        if cpu_ms >= cpu_limit_ms:
            return made("cpu", cpu_message)
        return made("timeout", f"wall time limit of {wall_s:g} s exceeded")
    signalled = os.WIFSIGNALED(status)
    sig = os.WTERMSIG(status) if signalled else 0
    code = os.WEXITSTATUS(status) if os.WIFEXITED(status) else -1
    if code == 0:
        message = _parse_result(res_buf, result_bytes)
        if message is not None:
            if cpu_ms > cpu_limit_ms:  # finished, but over the limit
                return made("cpu", cpu_message)
            # An error is MLE only where the kernel saw the limit: an OOM kill during the test
            # (of any of its processes), or a MemoryError while the limit was reached. A
            # MemoryError without that is the test's own (raised by hand, or a request larger
            # than the whole machine that the kernel refused before any limit applied): RE.
            if message["status"] == "error" and (
                oom_killed or (limit_hit and message["exc_type"] == "MemoryError")
            ):
                how = "a process of the test OOM-killed" if oom_killed else "MemoryError"
                return made("memory", f"memory limit exceeded ({how})")
            return message
    # A signal or exit code alone proves nothing: the test can send itself SIGXCPU or SIGKILL
    # and exit with CHILD_EXIT_MEMORY. Each counts only with the observation behind it.
    if sig == signal.SIGXCPU and cpu_ms >= cpu_limit_ms:
        return made("cpu", cpu_message)
    if oom_killed:
        return made("memory", "memory limit exceeded (killed by the OOM killer)")
    if code == CHILD_EXIT_MEMORY and limit_hit:
        return made("memory", "memory limit exceeded (MemoryError)")
    if sig == signal.SIGKILL and cpu_ms >= cpu_limit_ms:
        return made("cpu", cpu_message)
    if signalled:
        try:
            name = signal.Signals(sig).name
        except ValueError:
            name = f"signal {sig}"
        return made("crash", f"process killed by {name}")
    if code == 0:
        return made("crash", "process exited without a result")
    return made("crash", f"process exited with code {code} without a result")


def _parse_result(raw: bytes, result_bytes: int) -> dict[str, Any] | None:
    """Validate the child's message: candidate code can write anything to that pipe (deep
    nesting, giant ints, lone surrogates...), so the output is normalised once more here."""
    try:
        message = _loads(raw.decode("utf-8", "surrogatepass"))
    except (ValueError, RecursionError, UnicodeDecodeError):
        return None
    if not isinstance(message, dict):
        return None
    kind = message.get("status")
    # Only these two come from the test process; every other status (cpu, timeout, memory,
    # output, crash) is decided by the supervisor from what it observed.
    if kind not in ("ok", "error"):
        return None
    error = message.get("error", "")
    exc_type = message.get("exc_type", "")
    output = None
    if kind == "ok":
        try:
            output = normalise(message.get("output"), max_nodes=max(1000, result_bytes // 2))
        except (ResultTooLarge, UnserialisableOutput, RecursionError):
            return None  # our child never sends that: forged or corrupt, hence no result
    parsed = {
        "status": kind,
        "output": output,
        "error": clean_text(error[: MAX_ERROR_CHARS * 2]) if isinstance(error, str) else "",
        "exc_type": clean_text(exc_type[:200]) if isinstance(exc_type, str) else "",
    }
    # Where an error came from (display only: the verdict is RE whatever they say).
    if kind == "error" and message.get("phase") in ("driver", "load", "run"):
        parsed["phase"] = message["phase"]
    if kind == "error" and message.get("by") in ("candidate", "grader"):
        parsed["by"] = message["by"]
    return parsed


# --------------------------------------------------------------------------------------------
# Protocol I/O and the nonce
# --------------------------------------------------------------------------------------------


def _zero(buf: bytearray) -> None:
    """Overwrite a bytearray in place (same-size slice assignment never reallocates)."""
    buf[:] = bytes(len(buf))


def _write_all(fd: int, data: bytes | bytearray | memoryview) -> None:
    view = memoryview(data)
    while view:
        try:
            written = os.write(fd, view)
        except InterruptedError:
            continue
        view = view[written:]


# The worker writes the nonce as the job's first key. The harness lifts it out of the raw bytes
# before any parsing, so no Python str/bytes copy of it exists in memory a forked child inherits:
# candidate code that writes to PID 1's stdout (the same attach stream) cannot forge frames.
_NONCE_RE = re.compile(rb'\A\s*\{\s*"nonce"\s*:\s*"([0-9A-Za-z]{16,128})"')


class Nonce:
    """Keeps the nonce in a kernel pipe, never in Python memory between frames."""

    def __init__(self, read_fd: int, write_fd: int, size: int) -> None:
        self._r = read_fd
        self._w = write_fd
        self._buf = bytearray(size)
        # Preallocated so building the prefix never reallocates (a freed block would keep a copy).
        self._prefix = bytearray(size + 4)

    @classmethod
    def extract(cls, buf: bytearray, length: int) -> Nonce:
        """Move the nonce from ``buf[:length]`` into a pipe and blank it in ``buf``."""
        match = _NONCE_RE.match(buf, 0, length)
        if match is None:
            raise ValueError('the job must start with {"nonce": "<16-128 alphanumerics>"')
        start, end = match.span(1)
        del match
        read_fd, write_fd = os.pipe()
        with memoryview(buf) as view:
            _write_all(write_fd, view[start:end])
        buf[start:end] = b"0" * (end - start)
        return cls(read_fd, write_fd, end - start)

    def write_frame(self, frame: dict[str, Any]) -> None:
        """Write ``@@<nonce> <json>\\n`` on stdout."""
        body = _dumps(frame, allow_nan=True, separators=(",", ":"), ensure_ascii=True)
        size = len(self._buf)
        try:
            os.readv(self._r, [self._buf])
            _write_all(self._w, self._buf)
            # A leading newline ends any partial line someone else wrote to our stdout.
            self._prefix[0:3] = b"\n@@"
            self._prefix[3 : 3 + size] = self._buf
            self._prefix[3 + size :] = b" "
            _write_all(1, self._prefix)  # tiny: one atomic pipe write
        finally:
            _zero(self._buf)
            _zero(self._prefix)
        _write_all(1, body.encode("ascii") + b"\n")


def read_job_line(idle_seconds: float) -> tuple[bytearray, int]:
    """Read one line from stdin into a bytearray that can be wiped; returns (buffer, length).

    Grows by hand, zeroing the old buffer, because ``bytearray +=`` may leave copies behind.
    Exits when no job arrives within ``idle_seconds`` (0: wait forever) or stdin closes, so a
    pooled container whose worker died ends on its own.
    """
    buf = bytearray(1 << 16)
    size = 0
    deadline = time.monotonic() + idle_seconds if idle_seconds > 0 else None
    while True:
        if size == len(buf):
            if size >= MAX_JOB_BYTES:
                sys.stderr.write("harness: job line too long\n")
                sys.exit(EXIT_BAD_JOB)
            bigger = bytearray(size * 2)
            bigger[:size] = buf
            _zero(buf)
            buf = bigger
        if deadline is not None:
            ready, _, _ = select.select([0], [], [], max(0.0, deadline - time.monotonic()))
            if not ready:
                sys.stderr.write("harness: no job before the idle limit\n")
                sys.exit(EXIT_IDLE)
        try:
            with memoryview(buf) as view:
                count = os.readv(0, [view[size:]])
        except InterruptedError:
            continue
        if count == 0:
            sys.stderr.write("harness: stdin closed before a job arrived\n")
            sys.exit(EXIT_IDLE)
        newline = buf.find(b"\n", size, size + count)
        size += count
        if newline >= 0:
            return buf, newline


def build_header(raw: bytes, inputs_fd: int) -> dict[str, Any]:
    """Parse and validate the job text; store each test's input in ``inputs_fd``.

    Runs in a short-lived parser child: the parent only ever holds this header (solution,
    driver, limits and the number of tests), never an input, a size or where one lies, so no
    test's process can find another test's data anywhere in its memory. Tests have no names
    here: the worker addresses them by index and keeps their names to itself.
    """
    job = _loads(raw.decode("utf-8"))
    if not isinstance(job, dict):
        raise ValueError("job must be a JSON object")
    driver = job.get("driver")
    if not isinstance(driver, dict) or driver.get("kind") not in ("function", "ops", "custom"):
        raise ValueError("driver must be an object with kind function|ops|custom")
    if driver["kind"] == "custom" and not isinstance(driver.get("source"), str):
        raise ValueError("a custom driver needs its source")
    if driver["kind"] != "custom" and not isinstance(driver.get("entry"), str):
        raise ValueError("function/ops drivers need an entry name")
    solution = job.get("solution")
    if not isinstance(solution, str):
        raise ValueError("solution must be a string")
    modules = job.get("modules") or {}
    if not isinstance(modules, dict) or not all(
        isinstance(k, str) and k.isidentifier() and k not in RESERVED_MODULES and isinstance(v, str)
        for k, v in modules.items()
    ):
        raise ValueError("modules must map identifiers to sources")
    inputs = job.get("inputs")
    if not isinstance(inputs, list):
        raise ValueError("inputs must be a list (one input per test)")
    limits = job.get("limits")
    if not isinstance(limits, dict):
        raise ValueError("limits must be an object")
    groups = job.get("stop_groups")
    if groups is None:
        groups = [None] * len(inputs)
    if (
        not isinstance(groups, list)
        or len(groups) != len(inputs)
        or not all(g is None or (type(g) is int and 0 <= g < 2**62) for g in groups)
    ):
        raise ValueError("stop_groups must hold one group number (or null) per input")
    offset = _ENTRY.size * len(inputs)
    table = bytearray()
    for item, group in zip(inputs, groups, strict=True):
        data = _dumps(item, allow_nan=True).encode("utf-8", "surrogatepass")
        os.pwrite(inputs_fd, data, offset)
        table += _ENTRY.pack(offset, len(data), NO_STOP_GROUP if group is None else group)
        offset += len(data)
    os.pwrite(inputs_fd, bytes(table), 0)
    wall = float(limits.get("test_wall_seconds", 2.0))
    cpu = float(limits.get("test_cpu_seconds", 2.0))
    budget = float(limits.get("test_budget_seconds", wall + 1.0))
    if not (wall > 0 and cpu > 0 and budget >= wall):
        raise ValueError("time limits must be positive, the budget at least the wall limit")
    ctx: dict[str, Any] = {
        "solution": solution,
        "driver": driver,
        "modules": modules,
        "workdir": os.environ.get("ONSITE_WORKDIR", "/work"),
        "test_wall_seconds": wall,
        "test_cpu_seconds": cpu,
        "test_budget_seconds": budget,
        "output_bytes": int(limits.get("output_bytes", 65536)),
        "result_bytes": int(limits.get("result_bytes", 1_048_576)),
        "preload": preload_names(solution, driver, modules),
    }
    return {"ctx": ctx, "count": len(inputs)}


class NoMemfd(Exception):
    """memfd_create is unavailable: inputs would have to stay in the harness's memory."""


def parse_job(buf: bytearray, length: int) -> tuple[dict[str, Any], int]:
    """Parse the job in a forked parser child; returns (run context, number of tests).

    Without ``memfd_create`` the run fails closed (NoMemfd): the inputs would otherwise have
    to sit in memory every test's process inherits."""
    try:
        inputs_fd = os.memfd_create("onsite-inputs", 0)
    except (AttributeError, OSError) as exc:
        raise NoMemfd(str(exc)) from None
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:
        code = 0
        try:
            os.close(read_fd)
            try:
                header = build_header(bytes(memoryview(buf)[:length]), inputs_fd)
            except (ValueError, TypeError, KeyError, UnicodeDecodeError, RecursionError) as exc:
                header = {"error": f"{type(exc).__name__}: {exc}"}
            _write_all(write_fd, _dumps(header, allow_nan=True).encode("utf-8", "surrogatepass"))
        except BaseException:
            code = 1
        os._exit(code)
    os.close(write_fd)
    _zero(buf)  # the parent keeps no copy of the raw job
    data = bytearray()
    while True:
        chunk = os.read(read_fd, 1 << 20)
        if not chunk:
            break
        data += chunk
    os.close(read_fd)
    _, status = os.waitpid(pid, 0)
    if status != 0 or not data:
        raise ValueError("the job parser died")
    header = _loads(data.decode("utf-8", "surrogatepass"))
    if "error" in header:
        raise ValueError(header["error"])
    ctx: dict[str, Any] = header["ctx"]
    ctx["inputs_fd"] = inputs_fd
    return ctx, int(header["count"])


# Libraries worth importing once in the harness, before tests fork, when the problem's code
# uses them: each would otherwise be imported inside every test's time (torch: ~1.2 s).
PRELOADABLE = ("numpy", "pandas", "torch")
_IMPORT_RE = re.compile(r"^[ \t]*(?:import|from)[ \t]+(numpy|pandas|torch)\b", re.MULTILINE)


def preload_names(
    solution: str, driver: Mapping[str, Any], modules: Mapping[str, str]
) -> list[str]:
    """The PRELOADABLE libraries the driver, its modules or the solution import."""
    sources = [solution, str(driver.get("source", "")), *modules.values()]
    found = {match.group(1) for text in sources for match in _IMPORT_RE.finditer(text)}
    return [name for name in PRELOADABLE if name in found]


def _preload(names: tuple[str, ...] | list[str] = ()) -> None:
    """Import heavy libraries once in the parent so every forked test starts with them.

    Called twice: before ``@@ready`` with the libraries the container was made for
    (``ONSITE_PRELOAD``, comma-separated: a pooled container holds them before its job
    arrives), and after the job with what its code imports (already loaded ones are skipped).
    A library that fails to import is left to the test that imports it (its own error)."""
    wanted = ["numpy", *names, *os.environ.get("ONSITE_PRELOAD", "").split(",")]
    for name in wanted:
        if name in PRELOADABLE and name not in sys.modules:
            with contextlib.suppress(Exception):
                importlib.import_module(name)


# Modules the harness imported once, before the first test (a custom driver and what it
# imports from the working dir): each test's process starts with its own copy of them.
_PRELOADED: dict[str, Any] = {}


def preload_driver(ctx: dict[str, Any]) -> bool:
    """Import a custom driver (and the job's modules it imports, e.g. ``support``) once in
    PID 1, before the first test, instead of compiling them again in every test (~13 ms of
    each test's CPU on the PyTorch problems). Every test imported the driver before the
    solution anyway, so each still starts with the driver as its import left it, and the
    solution still comes after it. The files are those every test gets (the working dir is
    wiped and written again before each test); the solution is not among them.

    Fails soft, and then every test imports them itself as before: when the import raises
    or writes anything to stdout/stderr (that output belongs in each test's own). A driver
    or module must not start anything at import that a fork does not carry over (a CUDA
    context): it runs once, before the tests fork. True when preloaded."""
    if ctx["driver"].get("kind") != "custom":
        return False
    workdir = ctx["workdir"]
    try:
        _write_job_files(ctx, solution=False)  # the first test's wipe removes them again
    except OSError:
        return False
    before = set(sys.modules)
    saved = (list(sys.path), os.getcwd(), sys.dont_write_bytecode, sys.stdout, sys.stderr)
    sink = _Sink()
    ok = False
    try:
        sys.path.insert(0, workdir)
        os.chdir(workdir)
        sys.dont_write_bytecode = True
        sys.stdout = sys.stderr = sink
        importlib.import_module("_onsite_driver")
        ok = not sink.written
    except BaseException:
        ok = False
    finally:
        sys.path[:], cwd, sys.dont_write_bytecode, sys.stdout, sys.stderr = saved
        with contextlib.suppress(OSError):
            os.chdir(cwd)
    for name in set(sys.modules) - before:
        origin = getattr(sys.modules[name], "__file__", None)
        if not (isinstance(origin, str) and origin.startswith(os.path.join(workdir, ""))):
            continue  # a library the driver imported (torch...): it stays, as a preload
        module = sys.modules.pop(name)
        if ok:
            _PRELOADED[name] = module  # back into sys.modules in each test (_load_module)
    # Each test looks at the working dir afresh, as before (its files are written again).
    sys.path_importer_cache.pop(workdir, None)
    importlib.invalidate_caches()
    return ok


class _Sink:
    """Swallows what a preloaded module prints, remembering that it did."""

    written = False

    def write(self, text: str) -> int:
        self.written = self.written or bool(text)
        return len(text)

    def flush(self) -> None:
        pass


def _safe_to_run() -> bool:
    # kill(-1, SIGKILL) would take down a whole host session: only inside the sandbox.
    return (
        os.environ.get("ONSITE_SANDBOX") == "1"
        and os.getuid() != 0
        and os.geteuid() != 0
        and (os.getpid() == 1 or os.getppid() == 1)
    )


def main() -> int:
    """Harness entry point (see the module docstring)."""
    if not _safe_to_run():
        sys.stderr.write("harness: refusing to run outside the sandbox container\n")
        return EXIT_REFUSED
    _preload()
    # Non-dumpable: /proc/<pid>/fd, /mem, /environ of the harness become unreachable for the
    # candidate's processes, although they run as the same user.
    _set_dumpable(0)
    # As PID 1 of the container (no docker-init), signals the harness has no handler for are
    # not delivered from inside the namespace: SIGKILL/SIGSTOP from a test cannot touch it.
    # Python's default SIGINT handler would be one: ignore it (children reset it).
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _write_all(1, b"@@ready\n")
    idle = float(os.environ.get("ONSITE_IDLE_SECONDS", "0") or 0)
    buf, length = read_job_line(idle)
    try:
        nonce = Nonce.extract(buf, length)
        ctx, count = parse_job(buf, length)
    except NoMemfd as exc:
        sys.stderr.write(f"harness: memfd_create is unavailable ({exc}): refusing to run\n")
        return EXIT_NO_MEMFD
    except ValueError as exc:
        sys.stderr.write(f"harness: bad job: {exc}\n")
        return EXIT_BAD_JOB
    finally:
        _zero(buf)
    _preload(ctx["preload"])
    preload_driver(ctx)
    # Looked up once here, inherited by every test's supervisor (see each).
    CpuMeter()
    memory_counters()
    # What PID 1 holds now is every forked process's start: frozen, the collector of a
    # supervisor or a test never walks it (nor writes to its pages: fewer copy-on-write
    # faults per test). Objects made later are collected as before.
    gc.collect()
    gc.freeze()
    try:
        run_tests(ctx, count, nonce)
        nonce.write_frame({"type": "done"})
    except BrokenPipeError:
        return EXIT_INTERNAL  # the worker went away
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except SystemExit:
        raise
    except BaseException:
        traceback.print_exc()
        sys.exit(EXIT_INTERNAL)
