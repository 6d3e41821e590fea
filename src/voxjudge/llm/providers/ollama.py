"""Ollama's native chat API (``POST /api/chat``), used by ``openai/`` judges whose ``--base-url``
is an Ollama server: its ``format`` field takes the answer's JSON schema and Ollama decodes under
it. Pure translation, tested against the fake server; not run against a real Ollama here."""

from __future__ import annotations

from typing import Any

from voxjudge.llm.errors import PermanentError
from voxjudge.llm.types import Completion, ProviderResult, Request, TextPart, Usage

CHAT_PATH = "/api/chat"  # from the server root, not under /v1


def to_ollama_payload(request: Request, model: str) -> dict[str, Any]:
    """One sample per call (the native API has no ``n``); options as Ollama names them."""
    messages = []
    for m in request.messages:
        if any(not isinstance(p, TextPart) for p in m.parts):
            raise PermanentError("ollama: audio parts are not sent through the native chat API")
        messages.append({"role": m.role, "content": m.text_content})
    options: dict[str, Any] = {"temperature": request.temperature, "num_predict": request.max_tokens}
    if request.seed is not None:
        options["seed"] = request.seed
    payload: dict[str, Any] = {"model": model, "messages": messages, "stream": False, "options": options}
    if request.schema is not None:
        payload["format"] = request.schema
    return payload


def from_ollama_response(data: dict[str, Any], *, structured: bool = False) -> ProviderResult:
    message = data.get("message")
    if not isinstance(message, dict):
        raise PermanentError("ollama: response has no message")
    return ProviderResult(
        [Completion(str(message.get("content") or ""), data.get("done_reason"))],
        Usage(int(data.get("prompt_eval_count") or 0), int(data.get("eval_count") or 0)),
        structured=structured,
    )
