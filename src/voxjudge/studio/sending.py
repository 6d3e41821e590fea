"""An audio response streamed from the descriptor that ``media.open_audio`` checked, with byte
ranges (players seek with them) and a report of the bytes that actually went out.

No ETag and no Last-Modified: they would name the file, so a rater could tell that two items play
the same clip (a blinding leak). A HEAD sends no body, and so reports nothing.
"""

from __future__ import annotations

import asyncio
import os
import re
import time
from collections.abc import Callable

from starlette.concurrency import run_in_threadpool

from voxjudge.studio.media import CONTENT_TYPES, Opened

CHUNK = 64 * 1024
_RANGE = re.compile(r"bytes=(\d{0,18})-(\d{0,18})")


def byte_range(header: str | None, size: int) -> tuple[int, int] | None | str:
    """[start, end) asked for by a Range header: None for the whole file (no header, or a form we do
    not serve partially, such as several ranges), "unsatisfiable" for a range past the end."""
    if not header:
        return None
    m = _RANGE.fullmatch(header.strip())
    if not m or (not m.group(1) and not m.group(2)):
        return None
    if not m.group(1):  # the last N bytes
        n = int(m.group(2))
        return (max(0, size - n), size) if n else "unsatisfiable"
    start = int(m.group(1))
    end = min(size, int(m.group(2)) + 1) if m.group(2) else size
    if start >= size or end <= start:
        return "unsatisfiable"
    return start, end


class AudioResponse:
    """ASGI response for an opened audio file; closes the descriptor when done. ``on_sent(start, end,
    size, first_at)`` is called (in a worker thread) with the bytes handed to the connection while the
    client was still there."""

    def __init__(
        self,
        opened: Opened,
        range_header: str | None,
        on_sent: Callable[[int, int, int, float], None] | None = None,
    ):
        self.opened = opened
        self.range = byte_range(range_header, opened.size)
        self.on_sent = on_sent

    async def __call__(self, scope, receive, send) -> None:
        size, fd = self.opened.size, self.opened.fd
        headers = [
            (b"content-type", CONTENT_TYPES[self.opened.kind].encode()),
            (b"accept-ranges", b"bytes"),
            (b"cache-control", b"no-store"),
        ]
        try:
            if self.range == "unsatisfiable":
                headers.append((b"content-range", f"bytes */{size}".encode()))
                headers.append((b"content-length", b"0"))
                await send({"type": "http.response.start", "status": 416, "headers": headers})
                await send({"type": "http.response.body", "body": b""})
                return
            start, end = self.range or (0, size)
            status = 206 if self.range else 200
            if self.range:
                headers.append((b"content-range", f"bytes {start}-{end - 1}/{size}".encode()))
            headers.append((b"content-length", str(end - start).encode()))
            await send({"type": "http.response.start", "status": status, "headers": headers})
            if scope["method"] == "HEAD":
                await send({"type": "http.response.body", "body": b""})
                return
            await self._stream(receive, send, fd, start, end, size)
        finally:
            self.opened.close()

    async def _stream(self, receive, send, fd: int, start: int, end: int, size: int) -> None:
        gone = asyncio.Event()

        async def watch() -> None:  # the client may leave halfway: what was sent after that is not heard
            while True:
                message = await receive()
                if message["type"] == "http.disconnect":
                    gone.set()
                    return

        watcher = asyncio.ensure_future(watch())
        pos, first_at = start, None
        try:
            while pos < end and not gone.is_set():
                chunk = await run_in_threadpool(os.pread, fd, min(CHUNK, end - pos), pos)
                if not chunk:  # the file shrank under us: the response ends short
                    break
                await send({"type": "http.response.body", "body": chunk, "more_body": True})
                if gone.is_set():
                    break
                first_at = first_at if first_at is not None else time.time()
                pos += len(chunk)
            if not gone.is_set():
                await send({"type": "http.response.body", "body": b"", "more_body": False})
        finally:
            watcher.cancel()
            if self.on_sent is not None and first_at is not None and pos > start:
                await run_in_threadpool(self.on_sent, start, pos, size, first_at)
