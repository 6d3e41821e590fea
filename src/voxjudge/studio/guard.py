"""The guard every response passes (Host check, security headers) and what the app believes about
the browser's side of a TLS proxy.

Behind a proxy (``behind_proxy``), X-Forwarded-Proto, X-Forwarded-Host and X-Forwarded-For are
read, and of each only the LAST value (over all header lines, comma-separated values included):
the one the proxy in front appended or set. Earlier values were sent by the client and can say
anything. Without ``behind_proxy`` none of them is read.
"""

from __future__ import annotations

from starlette.datastructures import Headers, MutableHeaders
from starlette.responses import PlainTextResponse

SECURITY_HEADERS = {
    "Content-Security-Policy": "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; "
    "media-src 'self'; object-src 'none'; frame-ancestors 'none'; form-action 'self'; base-uri 'none'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",  # "no-referrer" would make browsers send Origin: null on our own forms
    "X-Frame-Options": "DENY",
    "Cross-Origin-Opener-Policy": "same-origin",
    "Cross-Origin-Resource-Policy": "same-origin",
}


def host_name(host: str) -> str:
    """The host part of a Host header (no port, no IPv6 brackets), lower-cased."""
    host = host.strip().lower()
    if host.startswith("["):
        return host[1 : host.find("]")] if "]" in host else host
    return host.rsplit(":", 1)[0] if host.count(":") == 1 else host


def forwarded(headers: Headers, name: str) -> str | None:
    """The last value of header ``name`` over all its lines: the one the proxy added."""
    values = [v.strip() for line in headers.getlist(name) for v in line.split(",")]
    values = [v for v in values if v]
    return values[-1] if values else None


def scheme_of(scope, headers: Headers, behind_proxy: bool) -> str:
    """http or https as the browser sees it: the proxy's X-Forwarded-Proto only when told to trust it."""
    if behind_proxy:
        proto = (forwarded(headers, "x-forwarded-proto") or "").lower()
        if proto in ("http", "https"):
            return proto
    return scope.get("scheme", "http")


def public_host(headers: Headers, behind_proxy: bool) -> str:
    if behind_proxy:
        host = forwarded(headers, "x-forwarded-host")
        if host:
            return host
    return headers.get("host", "")


def client_address(scope, headers: Headers, behind_proxy: bool) -> str:
    """The browser's address: the proxy's X-Forwarded-For entry behind a proxy, else the peer's."""
    if behind_proxy:
        addr = forwarded(headers, "x-forwarded-for")
        if addr:
            return addr
    client = scope.get("client")
    return client[0] if client else ""


class Guard:
    """ASGI middleware: refuse unknown Host headers; add the security headers to every response."""

    def __init__(self, app, allowed_hosts: set[str], behind_proxy: bool):
        self.app = app
        self.allowed = {h.lower() for h in allowed_hosts}
        self.behind_proxy = behind_proxy

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        headers = Headers(scope=scope)
        secure = scheme_of(scope, headers, self.behind_proxy) == "https"

        async def with_headers(message):
            if message["type"] == "http.response.start":
                h = MutableHeaders(scope=message)
                for k, v in SECURITY_HEADERS.items():
                    h[k] = v
                if "cache-control" not in h:
                    h["Cache-Control"] = "no-store"
                if secure:
                    h["Strict-Transport-Security"] = "max-age=31536000"
            await send(message)

        host = host_name(public_host(headers, self.behind_proxy))
        if host not in self.allowed:
            resp = PlainTextResponse(f"unknown host {host!r}: add it to the app's allowed hosts", status_code=400)
            return await resp(scope, receive, with_headers)
        return await self.app(scope, receive, with_headers)
