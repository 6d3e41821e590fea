"""The attacks the studio bench runs beside its annotators, from another loopback address: slow
clients that never finish their request headers, and bodies that announce 900 MB. Each counts what
the server answered in ``seen`` (status code -> times, and a few events)."""

from __future__ import annotations

import asyncio
import time

ATTACKER = "127.0.0.2"  # loopback too: the attacks' connections count against their own address


def status_of(reply: bytes) -> str:
    """The status code of an HTTP/1.1 reply, or "closed" when the server sent none."""
    return reply.split(b" ", 2)[1].decode() if reply.startswith(b"HTTP/1.1 ") else "closed"


def tick(seen: dict, what: str, n: int = 1) -> None:
    seen[what] = seen.get(what, 0) + n


async def slow_client(port: int, deadline: float, seen: dict) -> None:
    """Connections that never finish their headers, reopened whenever the server drops one."""
    while time.monotonic() < deadline:
        try:
            reader, writer = await asyncio.open_connection("127.0.0.1", port, local_addr=(ATTACKER, 0))
        except OSError:
            tick(seen, "connect failed")
            await asyncio.sleep(1)
            continue
        tick(seen, "opened")
        try:
            writer.write(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
            while time.monotonic() < deadline:
                try:
                    got = await asyncio.wait_for(reader.read(4096), 3.0)
                except asyncio.TimeoutError:
                    writer.write(b"a")  # one more byte of a header that never ends
                    continue
                status = status_of(got)
                tick(seen, status)
                if status != "408":
                    await asyncio.sleep(1)  # refused at once: come back a second later, as a bot would
                break
        except OSError:
            tick(seen, "reset")
        finally:
            writer.close()


async def big_body(port: int, deadline: float, seen: dict) -> None:
    """POST /signout announcing 900 MB (no sign-in needed), streamed until the server answers."""
    chunk = b"x" * 65536
    while time.monotonic() < deadline:
        try:
            reader, writer = await asyncio.open_connection("127.0.0.1", port, local_addr=(ATTACKER, 0))
        except OSError:
            await asyncio.sleep(1)
            continue
        sent = 0
        answer = asyncio.ensure_future(reader.read(4096))
        try:
            writer.write(
                b"POST /signout HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-www-form-urlencoded\r\n"
                b"Content-Length: 943718400\r\n\r\n"
            )
            while sent < 943718400 and time.monotonic() < deadline and not answer.done():
                writer.write(chunk)
                await asyncio.wait_for(writer.drain(), 10)
                sent += len(chunk)
            status = status_of(await asyncio.wait_for(answer, 10))
        except (OSError, asyncio.TimeoutError):
            status = "reset" if answer.done() or sent else "timeout"
            if answer.done() and not answer.exception() and answer.result().startswith(b"HTTP/1.1 "):
                status = answer.result().split(b" ", 2)[1].decode()
        finally:
            answer.cancel()
            writer.close()
        tick(seen, status)
        tick(seen, "bytes sent", sent)
