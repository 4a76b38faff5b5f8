"""Collaborative sessions under load: edit-to-watcher latency against a bare websocket relay.

`python -m bench.sessions [--sessions 50] [--rate 5] [--duration 60] [--rounds 1]` starts the
platform's web server (daphne, against a throwaway SQLite file and its own redis-server), opens
N live sessions, and in each one an editor (the candidate) types `rate` edits a second while a
watcher (the interviewer) follows the document, for `duration` seconds. Every edit goes the
whole way: parsed, stored in the database, applied, broadcast through Redis, delivered.

The baseline does the same job the simplest way: a bare websocket server (a separate process,
the `websockets` library) that relays each editor frame to its watcher, nothing stored. Rounds
interleave (platform, relay, platform, relay, ...). Counters: edits sent, delivered (watcher saw
it), acknowledged (server stored it); latencies: p50/p99 edit-to-watcher, and edit-to-ack.

Raw samples go to bench/results/sessions.json; the last printed line is the headline ratio
(platform p50 / relay p50).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import secrets
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "results" / "sessions.json"
EDIT = "x = 1\n"  # every edit inserts this: its clock advance tells the watcher which edit it is
GRACE_SECONDS = 5.0  # after typing stops, how long watchers may still receive late edits


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_port(port: int, seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        with socket.socket() as sock:
            if sock.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.1)
    raise RuntimeError(f"nothing listens on port {port} after {seconds} s")


def percentile(samples: list[float], q: float) -> float:
    if not samples:
        return float("nan")
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


# ------------------------------------------------------------------------------ the platform


@dataclass
class Target:
    """Where editors and watchers connect, and with which headers."""

    name: str
    editor_urls: list[str]
    watcher_urls: list[str]
    editor_headers: list[dict[str, str]]
    watcher_headers: dict[str, str]
    protocol: bool  # True: the y-sync handshake and acks (the platform); False: raw relay


def _process(argv: list[str], env: dict[str, str], log: Path) -> subprocess.Popen[bytes]:
    with log.open("ab") as out:
        return subprocess.Popen(argv, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT,
                                start_new_session=True)


def _stop(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


@contextmanager
def platform(sessions: int, work: Path) -> Iterator[Target]:
    """redis-server, a migrated SQLite database with N live sessions, and daphne."""
    redis_port, web_port = free_port(), free_port()
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "DATABASE_URL": f"sqlite:///{work / 'bench.sqlite3'}",
        "REDIS_URL": f"redis://127.0.0.1:{redis_port}/0",
        "CELERY_BROKER_URL": f"redis://127.0.0.1:{redis_port}/0",
        "DJANGO_SECRET_KEY": secrets.token_urlsafe(40),
        "DJANGO_ALLOWED_HOSTS": "127.0.0.1,localhost",
        "ONSITE_LOG_LEVEL": "WARNING",
        "PYTHONUNBUFFERED": "1",
    }
    procs = [_process(["redis-server", "--port", str(redis_port), "--bind", "127.0.0.1",
                       "--save", "", "--appendonly", "no", "--dir", str(work)],
                      env, work / "redis.log")]
    try:
        wait_port(redis_port)
        os.environ.update({k: env[k] for k in ("DJANGO_SETTINGS_MODULE", "DATABASE_URL",
                                                "REDIS_URL", "CELERY_BROKER_URL",
                                                "DJANGO_SECRET_KEY", "DJANGO_ALLOWED_HOSTS")})
        cookies, interviewer_cookie, session_ids = _seed(sessions)
        procs.append(_process([str(Path(sys.executable).parent / "daphne"), "-b", "127.0.0.1",
                               "-p", str(web_port), "config.web:application"],
                              env, work / "daphne.log"))
        wait_port(web_port)
        base = f"ws://127.0.0.1:{web_port}/ws/sessions"
        origin = f"http://127.0.0.1:{web_port}"
        urls = [f"{base}/{sid}/doc/" for sid in session_ids]
        yield Target(
            name="platform",
            editor_urls=urls,
            watcher_urls=urls,
            editor_headers=[{"Cookie": c, "Origin": origin} for c in cookies],
            watcher_headers={"Cookie": interviewer_cookie, "Origin": origin},
            protocol=True,
        )
    finally:
        for proc in reversed(procs):
            _stop(proc)


def _seed(sessions: int) -> tuple[list[str], str, list[int]]:
    """Migrate, create a problem, one interviewer, N candidates with a live session each."""
    import django

    django.setup()
    from datetime import timedelta

    from django.contrib.auth.models import Group, User
    from django.core.management import call_command
    from django.test import Client

    from interviews import services
    from problems.models import Problem, ProblemVersion

    call_command("migrate", verbosity=0, interactive=False)
    problem = Problem.objects.create(slug="bench", title="Bench", statement_md="-",
                                     starter_code="def solve(x):\n    pass\n",
                                     reference_code="def solve(x):\n    return x\n",
                                     published=True)
    problem.live_version = ProblemVersion.objects.create(
        problem=problem, number=1, tests_hash="bench", driver={"kind": "function",
                                                               "entry": "solve"},
        compare={"mode": "exact"}, limits={}, public_tests=[], hidden_tests=[])
    problem.save()
    interviewer = User.objects.create_user("bench-interviewer", password=secrets.token_hex(8))
    interviewer.groups.add(Group.objects.get_or_create(name="interviewer")[0])

    def cookie_for(user: Any) -> str:
        client = Client()
        client.force_login(user)
        return f"sessionid={client.cookies['sessionid'].value}"

    cookies, ids = [], []
    for n in range(sessions):
        candidate = User.objects.create_user(f"bench-candidate-{n}",
                                             password=secrets.token_hex(8))
        session = services.session_schedule_live(
            interviewer=interviewer, problem_slug="bench", duration=timedelta(hours=2),
            candidate=candidate)
        assert session.invite_token is not None
        services.session_join(token=session.invite_token, user=candidate)
        cookies.append(cookie_for(candidate))
        ids.append(session.pk)
    return cookies, cookie_for(interviewer), ids


@contextmanager
def relay(sessions: int, work: Path) -> Iterator[Target]:
    """The baseline: a bare websocket server relaying editor frames to the watcher."""
    port = free_port()
    proc = _process([sys.executable, "-m", "bench.sessions", "--relay-port", str(port)],
                    dict(os.environ), work / "relay.log")
    try:
        wait_port(port)
        base = f"ws://127.0.0.1:{port}"
        yield Target(
            name="relay",
            editor_urls=[f"{base}/{n}/editor" for n in range(sessions)],
            watcher_urls=[f"{base}/{n}/watcher" for n in range(sessions)],
            editor_headers=[{} for _ in range(sessions)],
            watcher_headers={},
            protocol=False,
        )
    finally:
        _stop(proc)


async def relay_server(port: int) -> None:
    """Forward every message from /<n>/editor to the socket open on /<n>/watcher."""
    from websockets.asyncio.server import ServerConnection, serve

    watchers: dict[str, ServerConnection] = {}

    async def handler(ws: ServerConnection) -> None:
        path = ws.request.path if ws.request else "/"
        _, pair, role = path.split("/")
        if role == "watcher":
            watchers[pair] = ws
            await ws.wait_closed()
            return
        async for message in ws:
            target = watchers.get(pair)
            if target is not None:
                await target.send(message)

    async with serve(handler, "127.0.0.1", port, max_size=None):
        await asyncio.Future()


# ------------------------------------------------------------------------------ the load


@dataclass
class Pair:
    """One session: the editor's send times, and what the watcher saw when."""

    sent_at: list[float] = field(default_factory=list)
    acked_at: list[float] = field(default_factory=list)
    seen_at: dict[int, float] = field(default_factory=dict)
    editor_client: int = 0
    # Updates of the editor's that reached the watcher before one they follow (a reorder):
    # counted from each update's first clock against what the watcher had of the editor.
    out_of_order: int = 0


def update_start(update: bytes) -> tuple[int, int] | None:
    """(client, first clock) of an update's first client, from its header; None when the
    update holds no structs (a deletion only) or cannot be read."""
    from interviews.collab import MalformedMessage, Reader

    try:
        reader = Reader(update)
        if reader.var_uint() == 0:
            return None
        reader.var_uint()  # that client's count of structs
        return reader.var_uint(), reader.var_uint()
    except MalformedMessage:
        return None


def _editor_clock(state_vector: bytes, client: int) -> int:
    from interviews.collab import state_vector_parse

    return state_vector_parse(state_vector).get(client, 0)


async def _handshake(ws: Any, doc: Any) -> None:
    """The page's sync: send our state vector, answer the server's, wait for its step 2 and
    for the acknowledgement of our answer (so no handshake ack is mistaken for an edit's)."""
    from interviews import collab

    await ws.send(collab.sync_step1_frame(doc.get_state()))
    pending, synced = 0, False
    while not (synced and pending == 0):
        frame = await ws.recv()
        if isinstance(frame, str):
            pending -= json.loads(frame).get("type") == "ack"
            continue
        message = collab.parse_message(frame)
        if message.kind == "step1":
            pending += 1
            await ws.send(collab.sync_step2_frame(doc.get_update(message.payload)))
        elif message.kind == "step2":
            doc.apply_update(message.payload)
            synced = True


async def _watch(target: Target, n: int, pair: Pair, ready: asyncio.Event,
                 stop: asyncio.Event) -> None:
    import pycrdt
    from websockets.asyncio.client import connect

    from interviews import collab

    doc: pycrdt.Doc[Any] = pycrdt.Doc()
    async with connect(target.watcher_urls[n], additional_headers=target.watcher_headers,
                       max_size=None) as ws:
        if target.protocol:
            await _handshake(ws, doc)
        ready.set()
        while not stop.is_set():
            try:
                frame = await asyncio.wait_for(ws.recv(), timeout=0.5)
            except TimeoutError:
                continue
            now = time.perf_counter()
            if isinstance(frame, str):
                continue
            message = collab.parse_message(frame)
            if message.kind not in ("update", "step2"):
                continue
            start = update_start(message.payload)
            had = _editor_clock(doc.get_state(), pair.editor_client)
            if start is not None and start[0] == pair.editor_client and start[1] > had:
                pair.out_of_order += 1
            doc.apply_update(message.payload)
            edits = _editor_clock(doc.get_state(), pair.editor_client) // len(EDIT)
            for index in range(len(pair.seen_at), edits):
                pair.seen_at.setdefault(index, now)


async def _edit(target: Target, n: int, pair: Pair, rate: float, duration: float,
                start: asyncio.Event) -> None:
    import pycrdt
    from websockets.asyncio.client import connect

    from interviews import collab

    doc: pycrdt.Doc[Any] = pycrdt.Doc()
    text = doc.get(collab.TEXT_NAME, type=pycrdt.Text)
    pair.editor_client = doc.client_id
    async with connect(target.editor_urls[n], additional_headers=target.editor_headers[n],
                       max_size=None) as ws:
        if target.protocol:
            await _handshake(ws, doc)

        async def acks() -> None:
            async for frame in ws:
                if isinstance(frame, str) and json.loads(frame).get("type") == "ack":
                    pair.acked_at.append(time.perf_counter())

        reader = asyncio.create_task(acks())
        await start.wait()
        await asyncio.sleep(random.random() / rate)  # spread the sessions' phases
        began = time.perf_counter()
        index = 0
        while time.perf_counter() - began < duration:
            before = doc.get_state()
            text += EDIT
            update = doc.get_update(before)
            pair.sent_at.append(time.perf_counter())
            await ws.send(collab.update_frame(update))
            index += 1
            await asyncio.sleep(max(0.0, began + index / rate - time.perf_counter()))
        await asyncio.sleep(GRACE_SECONDS)
        reader.cancel()


async def run_load(target: Target, sessions: int, rate: float, duration: float) -> list[Pair]:
    pairs = [Pair() for _ in range(sessions)]
    stop, start = asyncio.Event(), asyncio.Event()
    readies = [asyncio.Event() for _ in range(sessions)]
    watchers = [asyncio.create_task(_watch(target, n, pairs[n], readies[n], stop))
                for n in range(sessions)]
    await asyncio.wait_for(asyncio.gather(*(r.wait() for r in readies)), timeout=120)
    editors = [asyncio.create_task(_edit(target, n, pairs[n], rate, duration, start))
               for n in range(sessions)]
    await asyncio.sleep(1.0)  # every editor connected and synced
    start.set()
    await asyncio.gather(*editors)
    stop.set()
    await asyncio.gather(*watchers)
    return pairs


def summarize(pairs: list[Pair]) -> dict[str, Any]:
    latencies, ack_latencies = [], []
    sent = delivered = acked = 0
    for pair in pairs:
        sent += len(pair.sent_at)
        for index, sent_at in enumerate(pair.sent_at):
            if index in pair.seen_at:
                delivered += 1
                latencies.append((pair.seen_at[index] - sent_at) * 1000)
        acked += min(len(pair.acked_at), len(pair.sent_at))
        ack_latencies += [(a - s) * 1000 for s, a in zip(pair.sent_at, pair.acked_at,
                                                          strict=False)]
    return {
        "sent": sent,
        "delivered": delivered,
        "delivered_ratio": delivered / sent if sent else 0.0,
        "acked": acked,
        "p50_ms": percentile(latencies, 0.5),
        "p99_ms": percentile(latencies, 0.99),
        "ack_p50_ms": percentile(ack_latencies, 0.5),
        "ack_p99_ms": percentile(ack_latencies, 0.99),
        "latencies_ms": latencies,
    }


# ------------------------------------------------------------------------------ main


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.sessions", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sessions", type=int, default=50)
    parser.add_argument("--rate", type=float, default=5.0, help="edits per second per editor")
    parser.add_argument("--duration", type=float, default=60.0, help="seconds of typing")
    parser.add_argument("--rounds", type=int, default=1,
                        help="interleaved platform/relay pairs")
    parser.add_argument("--out", type=Path, default=RESULTS)
    parser.add_argument("--relay-port", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args([] if argv is None else argv)
    if args.relay_port:
        asyncio.run(relay_server(args.relay_port))
        return 0
    if shutil.which("redis-server") is None:
        print("redis-server is not installed", file=sys.stderr)
        return 2

    rounds: list[dict[str, Any]] = []
    work = Path(tempfile.mkdtemp(prefix="onsite-bench-sessions-"))
    try:
        with platform(args.sessions, work) as system:
            for number in range(args.rounds):
                measured = {}
                for target_cm in (None, "relay"):
                    if target_cm is None:
                        pairs = asyncio.run(run_load(system, args.sessions, args.rate,
                                                     args.duration))
                        measured["platform"] = summarize(pairs)
                    else:
                        with relay(args.sessions, work) as baseline:
                            pairs = asyncio.run(run_load(baseline, args.sessions, args.rate,
                                                         args.duration))
                        measured["relay"] = summarize(pairs)
                measured["ratio_p50"] = measured["platform"]["p50_ms"] / measured["relay"]["p50_ms"]
                measured["ratio_p99"] = measured["platform"]["p99_ms"] / measured["relay"]["p99_ms"]
                rounds.append(measured)
                _print_round(number, measured)
    finally:
        shutil.rmtree(work, ignore_errors=True)

    ratios = [r["ratio_p50"] for r in rounds]
    report = {
        "config": {"sessions": args.sessions, "rate": args.rate, "duration": args.duration,
                   "rounds": args.rounds, "edit_chars": len(EDIT)},
        "rounds": rounds,
        "median_ratio_p50": statistics.median(ratios),
        "median_ratio_p99": statistics.median(r["ratio_p99"] for r in rounds),
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=1))
    print(f"sessions: edit-to-watcher p50 platform/relay = {report['median_ratio_p50']:.2f}x "
          f"(min {min(ratios):.2f}, max {max(ratios):.2f}, {len(ratios)} round(s)); "
          f"raw samples in {args.out}")
    return 0


def _print_round(number: int, measured: dict[str, Any]) -> None:
    for name in ("platform", "relay"):
        m = measured[name]
        print(f"round {number} {name:8s}: delivered {m['delivered']}/{m['sent']} "
              f"({m['delivered_ratio']:.3f}), p50 {m['p50_ms']:.1f} ms, p99 {m['p99_ms']:.1f} ms"
              + (f", acked {m['acked']}, ack p50 {m['ack_p50_ms']:.1f} ms"
                 if name == "platform" else ""), flush=True)


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
