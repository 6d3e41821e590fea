"""The studio's HTTP server: uvicorn with h11, bounded per connection.

uvicorn already bounds the header size (h11's incomplete-event limit) and how long a kept-alive
connection may idle (``timeout_keep_alive``). It does not bound how long a client may take to
send its headers, nor how many connections may be open (``limit_concurrency`` answers 503 only
once a request's headers are in, so connections that never finish them pile up until the process
runs out of file descriptors). The protocol below adds both: a deadline for the request headers
(408, connection closed) and caps on open connections, in all and per client address (429 and
closed at once, before anything is read).
"""

from __future__ import annotations

import resource
from http import HTTPStatus

from uvicorn.protocols.http.h11_impl import H11Protocol

from voxjudge.errors import InputError
from voxjudge.studio.limits import REFUSALS, Limits, refusal_page

HEADER_BYTES = 16 * 1024  # the largest request head h11 buffers (its own default)
FD_MARGIN = 64  # descriptors kept for the database, the audio files and the listening socket


def raw_refusal(status: int, retry_after: int | None = None) -> bytes:
    title, message = REFUSALS[status]
    body = refusal_page(status, title, message)
    head = [
        f"HTTP/1.1 {status} {HTTPStatus(status).phrase}",
        "content-type: text/html; charset=utf-8",
        f"content-length: {len(body)}",
        "connection: close",
        "x-content-type-options: nosniff",
        "content-security-policy: default-src 'none'",
        "cache-control: no-store",
    ]
    if retry_after is not None:
        head.append(f"retry-after: {retry_after}")
    return ("\r\n".join(head) + "\r\n\r\n").encode() + body


def protocol_for(limits: Limits, per_address: bool = True) -> type:
    """An H11Protocol class with the header deadline and the connection caps of ``limits``;
    ``per_address=False`` behind a proxy (every connection comes from the proxy's address)."""

    by_address: dict[str, int] = {}

    class StudioH11(H11Protocol):
        _deadline = None
        _address = None

        def connection_made(self, transport) -> None:
            super().connection_made(transport)
            address = self.client[0] if self.client else ""
            cap_here = limits.connections_per_address if per_address else 0
            if len(self.connections) > limits.max_connections or (cap_here and by_address.get(address, 0) >= cap_here):
                # refused connections do not count against anyone: a flood of them cannot crowd out others
                self.connections.discard(self)
                transport.write(raw_refusal(429, retry_after=5))
                transport.close()
                return
            self._address = address
            by_address[address] = by_address.get(address, 0) + 1
            self._arm(limits.header_timeout)

        def connection_lost(self, exc) -> None:
            self._disarm()
            if self._address is not None:
                left = by_address.get(self._address, 1) - 1
                if left > 0:
                    by_address[self._address] = left
                else:
                    by_address.pop(self._address, None)
                self._address = None
            super().connection_lost(exc)

        def _arm(self, seconds: float) -> None:
            self._disarm()
            self._deadline = self.loop.call_later(seconds, self._too_slow)

        def _disarm(self) -> None:
            if self._deadline is not None:
                self._deadline.cancel()
                self._deadline = None

        def _too_slow(self) -> None:
            self._deadline = None
            if self.transport.is_closing():
                return
            waiting = self.cycle is None or self.cycle.response_complete
            if waiting:  # no request being served: its head did not arrive in time
                self.transport.write(raw_refusal(408))
                self.transport.close()

        def handle_events(self) -> None:
            before = self.cycle
            super().handle_events()
            if self.cycle is not before:  # a request head arrived
                self._disarm()

        def on_response_complete(self) -> None:
            # the next request head is due within the idle time plus the header time
            if not self.transport.is_closing():
                self._arm(limits.idle_timeout + limits.header_timeout)
            super().on_response_complete()

    return StudioH11


def raise_fd_limit(limits: Limits) -> None:
    """Raise this process's soft descriptor limit so ``max_connections`` fits; InputError when the
    hard limit is too low for it."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    need = 2 * limits.max_connections + FD_MARGIN  # room for refused connections still closing
    if soft >= need:
        return
    if hard != resource.RLIM_INFINITY and hard < need:
        raise InputError(
            f"{{max_connections}} {limits.max_connections} needs {need} file descriptors and this process may "
            f"open {hard} (ulimit -Hn): lower it or raise the limit",
            options={"max_connections": "max_connections"},
        )
    resource.setrlimit(resource.RLIMIT_NOFILE, (need, hard))


def config_for(app, host: str, port: int, limits: Limits, *, behind_proxy: bool = False, log_level: str = "warning"):
    """The uvicorn.Config the studio runs with (``studio serve`` and the tests alike)."""
    import uvicorn

    return uvicorn.Config(
        app,
        host=host,
        port=port,
        http=protocol_for(limits, per_address=not behind_proxy),
        timeout_keep_alive=limits.idle_timeout,
        h11_max_incomplete_event_size=HEADER_BYTES,
        proxy_headers=False,  # the app reads X-Forwarded-* itself, and only with behind_proxy
        server_header=False,
        lifespan="off",
        log_level=log_level,
        backlog=min(2048, limits.max_connections * 2),
    )


def serve(app, host: str, port: int, limits: Limits, *, behind_proxy: bool = False) -> None:
    import uvicorn

    raise_fd_limit(limits)
    uvicorn.Server(config_for(app, host, port, limits, behind_proxy=behind_proxy)).run()
