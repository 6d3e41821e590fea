"""The studio on an open network (issue 32), attacks on the connection itself, over real sockets on
127.0.0.1: request bodies bounded before any form is parsed, slow clients timed out and capped,
connections per address, and `studio serve` passing those limits on. Each test failed on the code before its fix."""

from __future__ import annotations

import os
import socket
import time

import httpx

from tests.studio.conftest import EXAMPLES
from tests.studio.helpers import client_for, form_fields
from voxjudge.studio.limits import Limits
from voxjudge.studio.study import init_study


def _raw(port: int, data: bytes, timeout: float = 10.0) -> bytes:
    """Send ``data`` on a fresh connection and read until the server closes it (or the timeout)."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
        s.sendall(data)
        got = b""
        try:
            while chunk := s.recv(65536):
                got += chunk
        except (TimeoutError, ConnectionResetError):
            pass
        return got


def _status(reply: bytes) -> int:
    return int(reply.split(b" ", 2)[1]) if reply.startswith(b"HTTP/1.1 ") else 0


# --- 1. request bodies are bounded before any form is parsed --------------------------------------


def test_a_huge_body_is_413_before_it_is_read(serve_pairwise):
    server, store = serve_pairwise()
    port = server.port
    # a 900 MB body announced, 64 kB sent: refused at once, not read (before: parsed whole, 3.5 GB)
    head = (
        b"POST /signout HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-www-form-urlencoded\r\n"
        b"Content-Length: 943718400\r\n\r\n"
    )
    t0 = time.monotonic()
    reply = _raw(port, head + b"a=" + b"x" * 65536, timeout=10)
    assert _status(reply) == 413 and b"Too large" in reply and time.monotonic() - t0 < 5
    # chunked, no length: refused once it passes the limit
    chunk = b"x" * 8192
    body = b"".join(b"%x\r\n%s\r\n" % (len(chunk), chunk) for _ in range(12)) + b"0\r\n\r\n"
    reply = _raw(
        port,
        b"POST /signout HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-www-form-urlencoded\r\n"
        b"Transfer-Encoding: chunked\r\n\r\n" + body,
    )
    assert _status(reply) == 413
    # multipart (which spools files to disk) is not parsed at all
    r = httpx.post(server.url + "/signout", files={"f": ("a.bin", b"x" * 1000)})
    assert r.status_code == 415 and r.headers["x-content-type-options"] == "nosniff"
    # a small form is still a form
    ann = client_for(server, store.invite("ann"))
    csrf = form_fields(ann.get("/item/1").text)["csrf"]
    assert ann.post("/signout", data={"csrf": csrf}, headers={"Origin": server.url}).status_code == 200


def test_a_stalled_body_is_408(serve_pairwise):
    server, _ = serve_pairwise(limits=Limits(idle_timeout=0.5))
    head = (
        b"POST /signout HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-www-form-urlencoded\r\n"
        b"Content-Length: 1000\r\n\r\ncsrf="
    )
    t0 = time.monotonic()
    reply = _raw(server.port, head, timeout=10)
    assert _status(reply) == 408 and time.monotonic() - t0 < 5


# --- 2. slow clients cannot exhaust the server ------------------------------------------------------


def _open_fds() -> int:
    return len(os.listdir("/proc/self/fd"))


def test_slow_clients_are_timed_out_and_capped(serve_pairwise):
    limits = Limits(header_timeout=3.0, max_connections=40, connections_per_address=0)
    server, _ = serve_pairwise(limits=limits)
    before = _open_fds()
    slow = []
    for _ in range(120):  # connections that never finish their headers (the attack: 1,100 of them)
        s = socket.create_connection(("127.0.0.1", server.port), timeout=10)
        s.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
        slow.append(s)
    try:
        time.sleep(0.3)
        # the server holds at most its cap, however many connect
        assert _open_fds() - before <= 120 + limits.max_connections + 10  # (our own 120 sockets are here too)
        r = httpx.get(server.url + "/", timeout=5)  # over the cap: a 429 at once, not a hang
        assert r.status_code == 429 and "retry-after" in r.headers
        replies = []
        for s in slow:
            try:
                replies.append(s.recv(4096))
            except (TimeoutError, ConnectionResetError):
                replies.append(b"")
        statuses = [_status(x) for x in replies]
        # the ones over the cap were refused at once; the others ran out of time for their headers
        assert statuses.count(429) >= 120 - limits.max_connections
        assert statuses.count(408) <= limits.max_connections and set(statuses) <= {408, 429}
        assert statuses.count(408) >= limits.max_connections - 5
        assert httpx.get(server.url + "/", timeout=5).status_code == 200  # and the door is open again
    finally:
        for s in slow:
            s.close()


def test_connections_per_address(serve_pairwise):
    server, _ = serve_pairwise(limits=Limits(connections_per_address=5, header_timeout=2.0))
    held = [socket.create_connection(("127.0.0.1", server.port), timeout=5) for _ in range(5)]
    try:
        time.sleep(0.2)
        assert httpx.get(server.url + "/", timeout=5).status_code == 429
    finally:
        for s in held:
            s.close()
    time.sleep(0.2)
    assert httpx.get(server.url + "/", timeout=5).status_code == 200


def test_cli_serve_passes_the_limits(tmp_path, monkeypatch):
    from voxjudge.cli.main import main
    from voxjudge.studio import server as server_mod

    init_study(tmp_path / "s", "pairwise", EXAMPLES / "pairwise/pairs.jsonl", per_item=1)
    ran = []
    monkeypatch.setattr(server_mod, "serve", lambda app, host, port, limits, **kw: ran.append((limits, kw)))
    assert main(["studio", "serve", str(tmp_path / "s"), "--max-body", "1000", "--signins-per-minute", "3"]) == 0
    limits, kw = ran[0]
    assert limits.max_body == 1000 and limits.signins_per_minute == 3 and limits.header_timeout == 10.0
    assert kw == {"behind_proxy": False}
    assert main(["studio", "serve", str(tmp_path / "s"), "--max-body", "0"]) == 2
    assert len(ran) == 1
