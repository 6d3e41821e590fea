"""What one client may cost the studio, as configuration with safe defaults, and the refusals.

Connections (how many, how long to send the headers, how long idle) are held by the server
(``studio.server``: uvicorn's own keep-alive timeout and h11's header-size limit, plus a header
deadline and connection caps in its HTTP protocol); request bodies by ``BodyLimit`` here, before
any form is parsed; sessions per person and failed sign-ins by the app. What a limit refuses is a
small 408/413/415/429 page, never a 500.
"""

from __future__ import annotations

import html
import threading
import time
from collections import deque
from dataclasses import dataclass, fields
from typing import Any

from voxjudge.errors import InputError


@dataclass(frozen=True)
class Limits:
    max_body: int = 64 * 1024  # bytes of a request body (the largest form is a few kB)
    header_timeout: float = 10.0  # seconds a connection has to send its request headers
    idle_timeout: float = 5.0  # seconds a kept-alive connection may idle, and a request body may stall
    max_connections: int = 512  # open connections in all
    connections_per_address: int = 64  # open connections from one client address (0: no cap of its own)
    sessions_per_person: int = 5  # live sign-ins per person; a new one ends the oldest
    signins_per_minute: int = 10  # failed sign-ins one address may make in a minute before it is refused

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            if f.name.endswith("timeout"):
                ok, need = value > 0, "more than 0"
            else:
                low = 0 if f.name == "connections_per_address" else 1
                ok, need = value >= low and value == int(value), f"a whole number of at least {low}"
            if not ok:
                raise InputError(f"{{{f.name}}} must be {need} (got {value:g})", options={f.name: f.name})


def refusal_page(status: int, title: str, message: str) -> bytes:
    """The HTML of a refusal: small, static, no script (served before any app code runs)."""
    return (
        f'<!doctype html><html lang="en"><meta charset="utf-8"><title>{html.escape(title)}</title>'
        f"<h1>{html.escape(title)}</h1><p>{html.escape(message)}</p></html>"
    ).encode()


REFUSALS = {
    408: ("Too slow", "The request took too long to arrive. Try again."),
    413: ("Too large", "The request is larger than this studio accepts."),
    415: ("Not a form", "The studio accepts only its own forms."),
    429: ("Too many requests", "Too many requests from here; wait a minute and try again."),
}


async def send_refusal(send, status: int, message: str | None = None, retry_after: int | None = None) -> None:
    title, default = REFUSALS[status]
    body = refusal_page(status, title, message or default)
    headers = [
        (b"content-type", b"text/html; charset=utf-8"),
        (b"content-length", str(len(body)).encode()),
        (b"connection", b"close"),
    ]
    if retry_after is not None:
        headers.append((b"retry-after", str(retry_after).encode()))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


class TooLarge(Exception):
    """A request body passed ``max_body`` while the app read it (a 413)."""


class Stalled(Exception):
    """A request body stalled longer than ``idle_timeout`` while the app read it (a 408)."""


async def refuse_body(request, exc) -> Any:
    """Starlette exception handler for TooLarge and Stalled: the refusal page (the app's error
    middleware would otherwise turn them into a 500)."""
    from starlette.responses import HTMLResponse

    status = 413 if isinstance(exc, TooLarge) else 408
    title, message = REFUSALS[status]
    return HTMLResponse(refusal_page(status, title, message), status_code=status, headers={"Connection": "close"})


FORM_TYPE = "application/x-www-form-urlencoded"


class BodyLimit:
    """ASGI middleware: a request body over ``max_body`` bytes is a 413 (by its Content-Length before a
    byte of it is read, or as soon as a chunked body passes the limit); a body that stalls longer than
    ``idle_timeout`` between chunks is a 408 (raised while the app reads it: the app turns them into
    pages with ``refuse_body``, or this middleware does when they reach it); a body that is not an
    urlencoded form is a 415 (the studio's forms are all urlencoded, so multipart, which spools files
    to disk, is never parsed)."""

    def __init__(self, app, limits: Limits):
        self.app = app
        self.limits = limits

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http" or scope["method"] in ("GET", "HEAD", "OPTIONS"):
            return await self.app(scope, receive, send)
        length, ctypes = None, []
        for k, v in scope["headers"]:
            if k == b"content-length":
                length = v
            elif k == b"content-type":  # every line: Starlette parses the first one, not the last
                ctypes.append(v.decode("latin-1").split(";", 1)[0].strip().lower())
        if length is not None:
            if not length.isdigit() or len(length) > 18:
                return await send_refusal(send, 413)
            if int(length) > self.limits.max_body:
                return await send_refusal(send, 413)
        if any(ctype and ctype != FORM_TYPE for ctype in ctypes):
            return await send_refusal(send, 415)
        import asyncio

        seen = 0
        started = False

        async def bounded_receive():
            nonlocal seen
            try:
                message = await asyncio.wait_for(receive(), self.limits.idle_timeout)
            except asyncio.TimeoutError:
                raise Stalled from None
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.limits.max_body:
                    raise TooLarge
            return message

        async def watched_send(message):
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, bounded_receive, watched_send)
        except (TooLarge, Stalled) as e:
            if started:  # too late for a page: the connection just ends
                raise
            await send_refusal(send, 413 if isinstance(e, TooLarge) else 408)


class Throttle:
    """At most ``per_minute`` events per key in any 60 seconds (failed sign-ins per client address).
    Memory is bounded: keys whose events are all older than a minute are dropped as they are met,
    and at most ``max_keys`` keys are kept (the oldest go first)."""

    def __init__(self, per_minute: int, max_keys: int = 100_000, clock=time.monotonic):
        self.per_minute = per_minute
        self.max_keys = max_keys
        self.clock = clock
        self._events: dict[str, deque] = {}
        self._lock = threading.Lock()

    def _recent(self, key: str, now: float) -> deque:
        q = self._events.get(key)
        if q is None:
            return deque()
        while q and now - q[0] >= 60:
            q.popleft()
        if not q:
            del self._events[key]
        return q

    def blocked(self, key: str) -> int:
        """Seconds until ``key`` may try again (0: now)."""
        with self._lock:
            now = self.clock()
            q = self._recent(key, now)
            return 0 if len(q) < self.per_minute else max(1, int(60 - (now - q[0])) + 1)

    def note(self, key: str) -> None:
        with self._lock:
            now = self.clock()
            self._recent(key, now)
            if key not in self._events and len(self._events) >= self.max_keys:
                del self._events[next(iter(self._events))]
            self._events.setdefault(key, deque()).append(now)
