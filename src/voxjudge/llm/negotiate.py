"""Structured-output negotiation with OpenAI-compatible servers, remembered for the run.

Servers differ in what ``response_format`` they take: OpenAI and vLLM accept ``json_schema``;
llama-cpp-python's server answers it with HTTP 500 and accepts ``json_object`` with a ``schema``;
others take neither. The order tried is ``json_schema`` -> ``json_object`` (+ schema) ->
``prompt`` (the schema in the prompt, the answer validated here). A mode is abandoned when the
server's error names the response format, or when the same error comes back twice in that mode.
The mode that worked is kept per (base URL, model) for the rest of the process; ``take_notices``
gives the CLI one line per server that ended up below json_schema, once.
"""

from __future__ import annotations

import threading

MODES = ("json_schema", "json_object", "prompt")
_NAMES_FORMAT = ("response_format", "json_schema", "json_object", "structured output", "responseformat")

_lock = threading.Lock()
_chosen: dict[tuple[str | None, str], str] = {}
_why: dict[tuple[str | None, str], str] = {}
_noticed: set[tuple[tuple[str | None, str], str]] = set()


def chosen(base_url: str | None, model: str) -> str | None:
    with _lock:
        return _chosen.get((base_url, model))


def remember(base_url: str | None, model: str, mode: str, why: str = "") -> None:
    with _lock:
        _chosen[(base_url, model)] = mode
        if why:
            _why[(base_url, model)] = why


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
    with _lock:
        _chosen.clear()
        _why.clear()
        _noticed.clear()
        _notes.clear()
        _noted.clear()


def names_response_format(message: str) -> bool:
    text = message.lower()
    return any(k in text for k in _NAMES_FORMAT)


def next_mode(mode: str) -> str | None:
    k = MODES.index(mode)
    return MODES[k + 1] if k + 1 < len(MODES) else None
