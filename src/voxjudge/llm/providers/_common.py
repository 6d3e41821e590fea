"""Helpers the provider adapters share: keys, SDK error classification, JSON-in-text prompting."""

from __future__ import annotations

import email.utils
import errno
import json
import os
import time
from typing import Any

from voxjudge.llm.errors import ConfigError, PermanentError, TransientError, Unreachable, UnusableURL

_TRANSIENT_STATUS = {408, 409, 425, 429, 500, 502, 503, 504, 520, 522, 524, 529}
_TRANSIENT_NAMES = ("Timeout", "Connect", "RemoteProtocol", "ReadError", "WriteError", "PoolTimeout", "Overloaded")


def api_key(*names: str, required: bool, provider: str, server: str = "base_url") -> str | None:
    """The first of the environment variables ``names`` that is set; ``server``: the setting that
    points the client at a local server instead (an embedder's is ``embedder_base_url``)."""
    for name in names:
        value = os.environ.get(name)
        if value:
            return value
    if required:
        raise ConfigError(
            f"{provider}: no API key; set {' or '.join(names)} (or use {{{server}}} for a local server)",
            options={server: "base_url"},
        )
    return None


def parse_retry_after(headers: Any) -> float | None:
    """Seconds to wait from Retry-After (seconds or HTTP date) or retry-after-ms."""
    if headers is None:
        return None
    try:
        ms = headers.get("retry-after-ms")
        if ms is not None:
            return max(0.0, float(ms) / 1000)
        value = headers.get("retry-after")
    except (AttributeError, TypeError, ValueError):  # a header it cannot read: back off as usual
        return None
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        try:
            parsed = email.utils.parsedate_to_datetime(value)
        except (TypeError, ValueError):  # neither seconds nor an HTTP date ("soon")
            return None
        return max(0.0, parsed.timestamp() - time.time()) if parsed else None


def unreachable_reason(exc: BaseException) -> str | None:
    """Why no connection could be made at all, from anywhere in the exception's chain (SDKs wrap
    the socket error twice), or None for what may pass: timeouts, resets, dropped connections."""
    import socket
    import ssl

    seen: set[int] = set()
    e: BaseException | None = exc
    while e is not None and id(e) not in seen:
        seen.add(id(e))
        if isinstance(e, (ssl.SSLError, ssl.CertificateError)) or type(e).__name__ in _TLS_NAMES:
            return f"TLS failed ({_first_line(e)})"
        if isinstance(e, socket.gaierror) or type(e).__name__ == "ClientConnectorDNSError":
            return "the host name does not resolve"
        if isinstance(e, ConnectionRefusedError):
            return "connection refused"
        if isinstance(e, OSError) and e.errno in _UNREACHABLE_ERRNO:
            return _UNREACHABLE_ERRNO[e.errno]
        os_error = getattr(e, "os_error", None)  # aiohttp's connector errors carry the socket error
        if isinstance(os_error, BaseException) and os_error is not e:
            e = os_error
            continue
        e = e.__cause__ or e.__context__
    return None


def unreachable(exc: BaseException, provider: str, url: str | None) -> Unreachable | None:
    why = unreachable_reason(exc)
    if why is None:
        return None
    return Unreachable(f"{provider}: cannot reach {url or 'the API'}: {why}", url=url)


def unusable_url(exc: BaseException, provider: str, url: str | None) -> UnusableURL | None:
    """The client refused the URL itself, from anywhere in the exception's chain (aiohttp's
    ``InvalidURL`` and ``NonHttpUrlClientError``, httpx's ``UnsupportedProtocol`` and ``InvalidURL``,
    their redirect variants included), or None. No request left: a retry would fail alike."""
    seen: set[int] = set()
    e: BaseException | None = exc
    while e is not None and id(e) not in seen:
        seen.add(id(e))
        if any(k.__name__ in _URL_ERROR_NAMES for k in type(e).__mro__):
            return UnusableURL(
                f"{provider}: no request can be sent to {url or 'the URL'} ({type(e).__name__}: {_first_line(e)}); "
                "a server URL needs http:// or https:// and a host"
            )
        e = e.__cause__ or e.__context__
    return None


def classify(exc: BaseException, provider: str, url: str | None = None) -> TransientError | PermanentError:
    """Map an SDK or HTTP exception to what the wrapper should do about it."""
    dead = unusable_url(exc, provider, url) or unreachable(exc, provider, url)
    if dead is not None:
        return dead
    status = getattr(exc, "status_code", None)
    if status is None and isinstance(getattr(exc, "code", None), int):
        status = exc.code  # google-genai
    response = getattr(exc, "response", None)
    retry_after = parse_retry_after(getattr(response, "headers", None))
    name = type(exc).__name__
    message = f"{provider}: {name}" + (f" {status}" if status else "") + f": {str(exc)[:300]}"
    if status in _TRANSIENT_STATUS or (status is None and any(n in name for n in _TRANSIENT_NAMES)):
        return TransientError(message, status=status, retry_after=retry_after)
    if status is None and isinstance(exc, (ConnectionError, TimeoutError)):
        return TransientError(message)
    return PermanentError(message, status=status)


def _first_line(e: BaseException) -> str:
    text = str(e).strip().splitlines()
    return (text[0] if text else type(e).__name__)[:200]


_TLS_NAMES = {"ClientSSLError", "ClientConnectorSSLError", "ClientConnectorCertificateError"}
_URL_ERROR_NAMES = {"InvalidURL", "NonHttpUrlClientError", "UnsupportedProtocol"}
_UNREACHABLE_ERRNO = {errno.ENETUNREACH: "the network is unreachable", errno.EHOSTUNREACH: "no route to host"}


def json_instruction(schema: dict[str, Any]) -> str:
    """Appended to the prompt when the server cannot enforce a schema (JSON-in-text mode)."""
    return (
        "\n\nReply with a single JSON value and nothing else (no prose, no code fences). "
        "It must validate against this JSON Schema:\n" + json.dumps(schema, ensure_ascii=False)
    )


_STRICT: dict[int, tuple[Any, bool]] = {}


def is_strict_compatible(schema: Any) -> bool:
    """OpenAI's strict mode needs every object closed and every property required.
    Memoised by the schema object's identity: a run sends the same schema with every request."""
    hit = _STRICT.get(id(schema))
    if hit is not None and hit[0] is schema:
        return hit[1]
    result = _strict(schema)
    if len(_STRICT) > 1024:
        _STRICT.clear()
    _STRICT[id(schema)] = (schema, result)
    return result


def _strict(schema: Any) -> bool:
    if isinstance(schema, dict):
        if schema.get("type") == "object" or "properties" in schema:
            props = schema.get("properties", {})
            if schema.get("additionalProperties") is not False or set(schema.get("required", [])) != set(props):
                return False
        return all(_strict(v) for v in schema.values())
    if isinstance(schema, list):
        return all(_strict(v) for v in schema)
    return True


def token_count(value: Any) -> int:
    """A token count a server reported, as a whole number of 0 or more: a count that is missing,
    not a number (``"ten"``, ``true``) or negative counts 0, never less (it would lower the cost
    and let a run pass its cost limit)."""
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        return 0
    try:
        number = float(value)
    except ValueError:
        return 0
    return int(number) if number > 0 and number != float("inf") else 0


def parse_body(http_response: Any, provider: str) -> dict[str, Any]:
    """JSON body of a 2xx response; a garbled body (a proxy hiccup) is worth a retry."""
    try:
        data = http_response.json()
    except ValueError as exc:
        raise TransientError(f"{provider}: malformed JSON in response body ({exc})") from exc
    if not isinstance(data, dict):
        raise TransientError(f"{provider}: response body is not a JSON object")
    return data


def parameter_names(method: Any) -> frozenset[str]:
    import inspect

    return frozenset(inspect.signature(method).parameters)


def split_known(params: frozenset[str], payload: dict[str, Any]) -> dict[str, Any]:
    """Keyword arguments for an SDK method: what its signature names goes in directly, the rest
    in ``extra_body``, so a parameter an SDK release dropped from its signature still reaches the API."""
    known = {k: v for k, v in payload.items() if k in params}
    extra = {k: v for k, v in payload.items() if k not in params}
    if extra:
        known["extra_body"] = extra
    return known
