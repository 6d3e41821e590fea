"""Structured-output negotiation with OpenAI-compatible servers, remembered for the run.

Servers differ in what ``response_format`` they take: OpenAI and vLLM accept ``json_schema``;
llama-cpp-python's server answers it with HTTP 500 and accepts ``json_object`` with a ``schema``;
others take neither. The order tried is ``json_schema`` -> ``json_object`` (+ schema) ->
``prompt`` (the schema in the prompt, the answer validated here). A mode is abandoned when the
server's error names the response format, or when the same error comes back twice in that mode.
A server that says it offers its own constrained decoding (``servers``) starts with that mode.
The mode that worked is kept per (base URL, model) for the rest of the process; ``take_notices``
gives the CLI one line per server that ended up on another mode than json_schema, once.
"""

from __future__ import annotations

import threading

MODES = ("json_schema", "json_object", "prompt")
# Where a mode goes when the server refuses it. The first three are the server-side constrained
# decoding a server says it offers (``servers``): llama.cpp's grammar, vLLM's guided decoding,
# Ollama's format; each falls back to the generic chain.
_NEXT = {
    "grammar": "json_object",
    "guided": "json_schema",
    "format": "json_schema",
    "json_schema": "json_object",
    "json_object": "prompt",
}
_HOW = {
    "grammar": "the answer's grammar (server-side constrained decoding)",
    "guided": "guided decoding with the schema (server-side)",
    "format": "its format field with the schema (server-side constrained decoding)",
}
_NAMES_FORMAT = (
    "response_format",
    "json_schema",
    "json_object",
    "structured output",
    "responseformat",
    "grammar",
    "guided_json",
    "structured_outputs",
)

_lock = threading.Lock()
_chosen: dict[tuple[str | None, str], str] = {}
_why: dict[tuple[str | None, str], str] = {}
_noticed: set[tuple[tuple[str | None, str], str]] = set()


def chosen(base_url: str | None, model: str) -> str | None:
    with _lock:
        return _chosen.get((base_url, model))


def remember(base_url: str | None, model: str, mode: str, why: str = "", server: str = "") -> None:
    """``server``: what the server said it is, when the mode is its own constrained decoding."""
    with _lock:
        _chosen[(base_url, model)] = mode
        if why:
            _why[(base_url, model)] = why
        if server:
            _servers[(base_url, model)] = server


_servers: dict[tuple[str | None, str], str] = {}


_notes: list[str] = []
_noted: set[tuple[str | None, str, str]] = set()


def note(base_url: str | None, model: str, text: str) -> None:
    """Another thing learnt about a server (e.g. it ignores ``n``), said once."""
    with _lock:
        if (base_url, model, text) not in _noted:
            _noted.add((base_url, model, text))
            _notes.append(f"{base_url or 'the default endpoint'} ({model}) {text}")


def relay(text: str) -> None:
    """A notice a worker process learnt (the Ray engine), said here once."""
    with _lock:
        if (None, "", text) not in _noted:
            _noted.add((None, "", text))
            _notes.append(text)


def take_notices() -> list[str]:
    """One line per server whose mode is not json_schema, each said once (for its final mode)."""
    out = []
    with _lock:
        for key, mode in _chosen.items():
            if mode == MODES[0] or (key, mode) in _noticed:
                continue
            _noticed.add((key, mode))
            base_url, model = key
            if mode in _HOW:
                server = _servers.get(key)
                out.append(f"{base_url} ({model}{', ' + server if server else ''}): answers decoded under {_HOW[mode]}")
                continue
            how = "json_object with the schema" if mode == "json_object" else "the schema in the prompt"
            why = _why.get(key)
            out.append(
                f"{base_url or 'the default endpoint'} ({model}) does not take json_schema output; "
                f"using {how} for this run" + (f" (last refusal: {why})" if why else "")
            )
        out += _notes
        _notes.clear()
    return out


def reset() -> None:
    """Forget every choice (tests; a new run in the same process)."""
    from voxjudge.llm import servers

    servers.reset()
    with _lock:
        _chosen.clear()
        _why.clear()
        _servers.clear()
        _noticed.clear()
        _notes.clear()
        _noted.clear()


def names_response_format(message: str) -> bool:
    text = message.lower()
    return any(k in text for k in _NAMES_FORMAT)


def next_mode(mode: str) -> str | None:
    return _NEXT.get(mode)
