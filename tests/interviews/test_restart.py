"""A real server restart: daphne is killed (SIGKILL, no graceful shutdown) right after the
server acknowledged some edits, and a fresh daphne serves the same document with all of them.
"""

from __future__ import annotations

import json
import signal
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta
from pathlib import Path
from typing import Any

import pycrdt
import pytest
from django.test import Client
from websockets.sync.client import ClientConnection, connect

from interviews import collab, services
from tests.factories import tiny_problem, user_with_role
from tests.processes import BIN, ROOT, platform_env, stop, wait_for
from tests.services import free_port

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]


@contextmanager
def daphne(port: int, log: Path) -> Iterator[subprocess.Popen[bytes]]:
    with log.open("ab") as out:
        proc = subprocess.Popen(
            [str(BIN / "daphne"), "-b", "127.0.0.1", "-p", str(port), "config.web:application"],
            cwd=ROOT,
            env=platform_env(),
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        wait_for(lambda: _listening(port), timeout=60, what="daphne")
        yield proc
    finally:
        stop(proc, signal.SIGKILL)


def _listening(port: int) -> bool:
    import socket

    with socket.socket() as sock:
        return sock.connect_ex(("127.0.0.1", port)) == 0


class SyncYClient:
    """The page's protocol over a real websocket (blocking)."""

    def __init__(self, socket: ClientConnection) -> None:
        self.doc: pycrdt.Doc[Any] = pycrdt.Doc()
        self.text = self.doc.get(collab.TEXT_NAME, type=pycrdt.Text)
        self.socket = socket
        self.pending = 0
        self.synced = False
        self.socket.send(collab.sync_step1_frame(self.doc.get_state()))
        self.pump(lambda: self.synced and self.pending == 0)

    def pump(self, done: Any, timeout: float = 10) -> None:
        deadline = time.monotonic() + timeout
        while not done():
            frame = self.socket.recv(timeout=max(0.1, deadline - time.monotonic()))
            if isinstance(frame, str):
                if json.loads(frame)["type"] in ("ack", "refused"):
                    self.pending -= 1
                continue
            message = collab.parse_message(frame)
            if message.kind == "step1":
                self.pending += 1
                self.socket.send(collab.sync_step2_frame(self.doc.get_update(message.payload)))
            elif message.kind in ("step2", "update"):
                self.doc.apply_update(message.payload)
                self.synced = self.synced or message.kind == "step2"

    def type(self, text: str) -> None:
        before = self.doc.get_state()
        self.text += text
        self.pending += 1
        self.socket.send(collab.update_frame(self.doc.get_update(before)))
        self.pump(lambda: self.pending == 0)  # acknowledged: stored


def test_acknowledged_edits_survive_killing_the_server(tmp_path: Path) -> None:
    problem = tiny_problem()
    candidate = user_with_role("cand", "candidate")
    session = services.session_start_solo(
        candidate=candidate, problem_slug=problem.slug, duration=timedelta(minutes=10)
    )
    client = Client()
    client.force_login(candidate)
    cookie = f"sessionid={client.cookies['sessionid'].value}"
    port = free_port()
    origin = f"http://127.0.0.1:{port}"
    url = f"ws://127.0.0.1:{port}/ws/sessions/{session.pk}/doc/"

    headers = {"Cookie": cookie, "Origin": origin}
    with (
        daphne(port, tmp_path / "daphne.log") as server,
        connect(url, additional_headers=headers) as ws,
    ):
        writer = SyncYClient(ws)
        for ch in "return x + 1":
            writer.type(ch)
        # Killed mid-connection with no chance to flush anything: only what was stored
        # before each acknowledgement counts.
        stop(server, signal.SIGKILL)

    with daphne(port, tmp_path / "daphne.log"), connect(url, additional_headers=headers) as ws:
        reader = SyncYClient(ws)
        assert str(reader.text) == problem.starter_code + "return x + 1"
