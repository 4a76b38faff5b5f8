"""A webhook receiver for tests: a real HTTP server on 127.0.0.1 that records each delivery
(headers and raw body) and can fail the first ones; `hooks` points the settings at it, with
Celery eager (retries included) so the receiver sees every attempt."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from config.celery import app

SECRET = "whsec-test-1234"


@dataclass
class Receiver:
    url: str
    fail_first: int = 0
    received: list[tuple[dict[str, str], bytes]] = field(default_factory=list)

    def events(self, name: str) -> list[bytes]:
        """The bodies of the deliveries of one event, in the order they came."""
        return [body for headers, body in self.received if headers["x-onsite-event"] == name]


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    state = Receiver(url="")

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers["Content-Length"]))
            state.received.append(({k.lower(): v for k, v in self.headers.items()}, body))
            status = 500 if len(state.received) <= state.fail_first else 204
            self.send_response(status)
            self.end_headers()

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    state.url = f"http://127.0.0.1:{server.server_address[1]}/hook"
    yield state
    server.shutdown()
    server.server_close()


@pytest.fixture
def hooks(settings: Any, receiver: Receiver) -> Iterator[Receiver]:
    settings.ONSITE_WEBHOOK_URLS = [receiver.url]
    settings.ONSITE_WEBHOOK_SECRET = SECRET
    settings.ONSITE_WEBHOOK_MAX_ATTEMPTS = 4
    settings.ONSITE_WEBHOOK_BACKOFF_SECONDS = 0.01
    eager = app.conf.task_always_eager
    app.conf.task_always_eager = True
    yield receiver
    app.conf.task_always_eager = eager
