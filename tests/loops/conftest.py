"""Fixtures of the loop tests: the SMTP inbox of the interviews tests, and a webhook receiver
(a real HTTP server on 127.0.0.1; Celery eager, so deliveries land before the test reads)."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from config.celery import app
from tests.interviews.conftest import inbox

__all__ = ["inbox"]

SECRET = "whsec-loops-5678"


@dataclass
class Receiver:
    url: str = ""
    received: list[tuple[dict[str, str], bytes]] = field(default_factory=list)

    def events(self, name: str) -> list[bytes]:
        return [body for headers, body in self.received if headers["x-onsite-event"] == name]


@pytest.fixture
def hooks(settings: Any) -> Iterator[Receiver]:
    state = Receiver()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers["Content-Length"]))
            state.received.append(({k.lower(): v for k, v in self.headers.items()}, body))
            self.send_response(204)
            self.end_headers()

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    state.url = f"http://127.0.0.1:{server.server_address[1]}/hook"
    settings.ONSITE_WEBHOOK_URLS = [state.url]
    settings.ONSITE_WEBHOOK_SECRET = SECRET
    settings.ONSITE_WEBHOOK_MAX_ATTEMPTS = 2
    settings.ONSITE_WEBHOOK_BACKOFF_SECONDS = 0.01
    eager = app.conf.task_always_eager
    app.conf.task_always_eager = True
    try:
        yield state
    finally:
        app.conf.task_always_eager = eager
        server.shutdown()
        server.server_close()
