"""Which server-side constrained decoding an OpenAI-compatible server offers, learned from what
it publishes, once per server root for the process.

Error-driven negotiation (``negotiate``) cannot find these: servers ignore request fields they do
not know, so a ``grammar`` sent to vLLM or a ``guided_json`` sent to llama.cpp would be dropped
without a word and the answer would only look constrained. So the server is asked what it takes,
with plain GETs that cost no tokens, in this order:

* ``/openapi.json`` (FastAPI servers): llama-cpp-python's server declares a ``grammar`` field in
  its chat request -> ``grammar`` (the GBNF the in-process ``local/`` path builds); vLLM declares
  ``structured_outputs`` (>= 0.10) or ``guided_json`` -> ``guided``.
* ``/props`` (llama.cpp's own ``llama-server``): ``default_generation_settings`` -> ``grammar``.
* ``/api/version`` (Ollama): ``version`` -> ``format`` (its native ``/api/chat`` with ``format``).

Anything else (OpenAI itself, LM Studio, proxies) gets no dialect and the usual negotiation.
"""

from __future__ import annotations

import json
import threading
import urllib.error
import urllib.request
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

PROBE_TIMEOUT = 2.0  # seconds per GET: a local server answers in milliseconds


@dataclass(frozen=True)
class Dialect:
    """``mode``: the structured-output mode to try first (``grammar``, ``guided``, ``format``);
    ``server``: what was found, for notices; ``field``: the request field that carries the schema
    (``guided``), or the grammar schema when no GBNF can be written here (``grammar``)."""

    mode: str
    server: str
    field: str = ""


_lock = threading.Lock()
_known: dict[str, Dialect | None] = {}


def root_of(base_url: str) -> str:
    parts = urlsplit(base_url)
    return f"{parts.scheme}://{parts.netloc}"


def dialect(base_url: str | None) -> Dialect | None:
    """The server's dialect (probed on first use, then remembered), or None."""
    if not base_url:
        return None
    root = root_of(base_url)
    with _lock:
        if root in _known:
            return _known[root]
    found = _probe(root)
    with _lock:
        _known[root] = found
    return found


def remember(base_url: str, found: Dialect | None) -> None:
    """Set a server's dialect (tests; a worker told by the driver)."""
    with _lock:
        _known[root_of(base_url)] = found


def reset() -> None:
    with _lock:
        _known.clear()


def _probe(root: str) -> Dialect | None:
    api = _get(root + "/openapi.json")
    if api is _UNREACHABLE:
        return None  # the first real call says so, with the URL
    if isinstance(api, dict):
        found = from_openapi(api)
        if found is not None:
            return found
    props = _get(root + "/props")
    if isinstance(props, dict) and "default_generation_settings" in props:
        return Dialect("grammar", "llama.cpp server", "json_schema")  # its field for a schema it converts
    version = _get(root + "/api/version")
    if isinstance(version, dict) and isinstance(version.get("version"), str):
        return Dialect("format", f"Ollama {version['version']}")
    return None


def from_openapi(api: dict[str, Any]) -> Dialect | None:
    """The dialect an OpenAPI document declares in its chat-completion request schema."""
    schemas = (api.get("components") or {}).get("schemas") or {}
    title = str((api.get("info") or {}).get("title") or "")
    for name, schema in schemas.items():
        props = schema.get("properties") if isinstance(schema, dict) else None
        if not isinstance(props, dict) or "messages" not in props or "Chat" not in name:
            continue
        if "structured_outputs" in props:
            return Dialect("guided", title or "vLLM", "structured_outputs")
        if "guided_json" in props:
            return Dialect("guided", title or "vLLM", "guided_json")
        if "grammar" in props:
            return Dialect("grammar", title or "llama-cpp-python")
    return None


_UNREACHABLE = object()


def _get(url: str) -> Any:
    try:
        with urllib.request.urlopen(url, timeout=PROBE_TIMEOUT) as resp:  # noqa: S310 (the user's server)
            if resp.status != 200:
                return None
            return json.loads(resp.read(4 << 20))
    except urllib.error.HTTPError:
        return None  # 404 and the like: not this kind of server
    except (urllib.error.URLError, OSError):
        return _UNREACHABLE  # refused, no such host, TLS, no answer in time: stop asking
    except ValueError:
        return None
