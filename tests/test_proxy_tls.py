"""The production proxy (platform/prod/nginx.conf.template, rendered by its entrypoint), run
with the host's real nginx in front of a header-echoing upstream: HTTPS with the configured
certificate, HTTP redirected, and the scheme and the client's address passed on as
core/clientaddr.py expects them. (`make prod-test` drives the same image in the whole stack.)"""

from __future__ import annotations

import http.client
import json
import os
import shutil
import socket
import ssl
import subprocess
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from tests.processes import ROOT
from tests.services import free_port

PROD = ROOT / "platform" / "prod"
pytestmark = pytest.mark.skipif(
    not (shutil.which("nginx") or Path("/usr/sbin/nginx").exists()) or not shutil.which("openssl"),
    reason="needs nginx and openssl (platform/bin/ensure-packages.sh installs them)",
)


class Echo(BaseHTTPRequestHandler):
    """Answers every GET with the path and the headers it got, as JSON."""

    def do_GET(self) -> None:
        body = json.dumps({"path": self.path, "headers": dict(self.headers.items())}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@dataclass(frozen=True)
class Proxy:
    https_port: int
    http_port: int
    pinned_port: int
    tls: ssl.SSLContext  # trusts the proxy's certificate only


def self_signed(directory: Path) -> tuple[Path, Path]:
    cert, key = directory / "cert.pem", directory / "key.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-sha256", "-nodes", "-days", "2",
         "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1",
         "-keyout", str(key), "-out", str(cert)],
        check=True, capture_output=True,
    )  # fmt: skip
    return cert, key


def listening(port: int) -> bool:
    with socket.socket() as sock:
        if sock.connect_ex(("127.0.0.1", port)) != 0:
            return False
        return sock.getsockname() != sock.getpeername()  # not a TCP self-connection


@pytest.fixture(scope="module")
def proxy(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Proxy]:
    work = tmp_path_factory.mktemp("nginx")
    cert, key = self_signed(work)
    upstream = ThreadingHTTPServer(("127.0.0.1", 0), Echo)
    threading.Thread(target=upstream.serve_forever, daemon=True).start()
    up = f"127.0.0.1:{upstream.server_address[1]}"
    https_port, http_port, pinned_port = free_port(), free_port(), free_port()
    env = {
        **os.environ,
        "NGINX_LISTEN": f"127.0.0.1:{https_port}",
        "NGINX_HTTP_LISTEN": f"127.0.0.1:{http_port}",
        "NGINX_UPSTREAMS": up,
        "NGINX_PINNED": f"127.0.0.1:{pinned_port}={up}",
        "NGINX_TLS_CERT": str(cert),
        "NGINX_TLS_KEY": str(key),
        "NGINX_TEMPLATE": str(PROD / "nginx.conf.template"),
        "NGINX_CONF": str(work / "nginx.conf"),
        "NGINX_PID": str(work / "nginx.pid"),
    }
    log = (work / "nginx.log").open("wb")
    nginx = subprocess.Popen(["sh", str(PROD / "nginx-entrypoint.sh")], env=env,
                             stdout=log, stderr=subprocess.STDOUT)  # fmt: skip
    try:
        deadline = time.monotonic() + 30
        while not all(listening(p) for p in (https_port, http_port, pinned_port)):
            assert nginx.poll() is None, (work / "nginx.log").read_text()
            assert time.monotonic() < deadline, "nginx did not listen in 30 s"
            time.sleep(0.1)
        yield Proxy(https_port, http_port, pinned_port, ssl.create_default_context(cafile=cert))
    finally:
        nginx.terminate()
        nginx.wait(timeout=30)
        upstream.shutdown()
        log.close()


def get(proxy: Proxy, port: int, path: str, headers: dict[str, str] | None = None,
        *, tls: bool = True) -> http.client.HTTPResponse:  # fmt: skip
    connection: http.client.HTTPConnection = (
        http.client.HTTPSConnection("127.0.0.1", port, context=proxy.tls, timeout=30)
        if tls else http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    )  # fmt: skip
    connection.request("GET", path, headers=headers or {})
    return connection.getresponse()


def test_plain_http_is_redirected_to_https_and_never_proxied(proxy: Proxy) -> None:
    answer = get(proxy, proxy.http_port, "/problems/?page=2", tls=False)
    assert answer.status == 301
    assert answer.getheader("Location") == f"https://127.0.0.1:{proxy.https_port}/problems/?page=2"


def test_https_serves_with_the_certificate_and_passes_scheme_and_client(proxy: Proxy) -> None:
    # The client forges the scheme and its own X-Forwarded-For; nginx verifies as TLS (the
    # context trusts the configured certificate alone) and passes on what it knows.
    answer = get(proxy, proxy.https_port, "/accounts/login/",
                 {"X-Forwarded-Proto": "http", "X-Forwarded-For": "6.6.6.6",
                  "X-Real-IP": "6.6.6.6"})  # fmt: skip
    assert answer.status == 200
    seen = json.loads(answer.read())
    headers = {name.lower(): value for name, value in seen["headers"].items()}
    assert seen["path"] == "/accounts/login/"
    assert headers["x-forwarded-proto"] == "https"
    assert headers["x-real-ip"] == "127.0.0.1"
    # Appended, so the right-most hop is the one nginx saw (core.clientaddr reads it so).
    assert headers["x-forwarded-for"] == "6.6.6.6, 127.0.0.1"
    assert headers["host"] == f"127.0.0.1:{proxy.https_port}"


def test_a_pinned_port_reaches_its_web_process_over_tls_too(proxy: Proxy) -> None:
    answer = get(proxy, proxy.pinned_port, "/sessions/")
    assert answer.status == 200
    assert json.loads(answer.read())["headers"]["X-Forwarded-Proto"] == "https"
    # Plain HTTP sent to a TLS port: sent on to the same URL over HTTPS.
    plain = get(proxy, proxy.pinned_port, "/sessions/", tls=False)
    assert plain.status == 301
    assert plain.getheader("Location") == f"https://127.0.0.1:{proxy.pinned_port}/sessions/"
