"""An audio response streamed from the descriptor that ``media.open_audio`` checked, with byte
ranges (players seek with them) and a report of the bytes that actually went out.

No ETag and no Last-Modified: they would name the file, so a rater could tell that two items play
the same clip (a blinding leak). For the same reason a WAV clip may be served with ``pad`` bytes
more (a JUNK chunk after its audio, the RIFF size field patched to match), a length the app draws
per annotator and item, so the same clip served for two items has two lengths. A HEAD sends no
body, and so reports nothing.
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


def wav_padding(opened: Opened, pad: int) -> tuple[bytes, bytes] | None:
    """(new RIFF size field, JUNK chunk of ``pad`` bytes) that lengthen a well-formed WAV file without
    changing its audio (players skip JUNK chunks), or None (no padding, or not a plain WAV)."""
    if opened.kind != "wav" or pad < 8:
        return None
    head = os.pread(opened.fd, 8, 0)
    if len(head) < 8 or int.from_bytes(head[4:8], "little") != opened.size - 8 or opened.size % 2:
        return None
    pad -= pad % 2
    riff = (opened.size - 8 + pad).to_bytes(4, "little")
    return riff, b"JUNK" + (pad - 8).to_bytes(4, "little") + bytes(pad - 8)


class AudioResponse:
    """ASGI response for an opened audio file; closes the descriptor when done. ``on_sent(start, end,
    size, first_at)`` is called (in a worker thread) with the bytes handed to the connection while the
    client was still there."""

    def __init__(
        self,
        opened: Opened,
        range_header: str | None,
        on_sent: Callable[[int, int, int, float], None] | None = None,
        pad: int = 0,
    ):
        self.opened = opened
        self.riff = wav_padding(opened, pad)
        self.size = opened.size + (len(self.riff[1]) if self.riff else 0)
        self.range = byte_range(range_header, self.size)
        self.on_sent = on_sent

    def read(self, pos: int, n: int) -> bytes:
        """Bytes [pos, pos + n) of what is served: the file, with (WAV padding) its RIFF size patched
        and the JUNK chunk after it."""
        real = self.opened.size
        out = os.pread(self.opened.fd, min(n, real - pos), pos) if pos < real else b""
        if self.riff:
            header, tail = self.riff
            if pos < 8:
                patched = bytearray(out)
                for i in range(max(pos, 4), min(pos + len(out), 8)):
                    patched[i - pos] = header[i - 4]
                out = bytes(patched)
            if pos + n > real and (pos >= real or len(out) == real - pos):
                lo = max(0, pos - real)
                out += tail[lo : lo + n - len(out)]
        return out

    async def __call__(self, scope, receive, send) -> None:
        size = self.size
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
            await self._stream(receive, send, start, end, size)
        finally:
            self.opened.close()

    async def _stream(self, receive, send, start: int, end: int, size: int) -> None:
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
                chunk = await run_in_threadpool(self.read, pos, min(CHUNK, end - pos))
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
