"""Local GGUF models through llama-cpp-python (the optional 'local' extra).

Structured output is constrained decoding: the request's JSON schema becomes a grammar, or a
GBNF grammar file given as ``local/model.gguf?grammar=path.gbnf`` is used instead, so even tiny
models can only emit valid structure.
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

from voxjudge.llm.errors import ConfigError, PermanentError
from voxjudge.llm.spec import JudgeSpec
from voxjudge.llm.types import AudioPart, Completion, ProviderResult, Request, Usage


def to_llama_payload(request: Request, *, grammar: bool = False) -> dict[str, Any]:
    """Arguments for ``Llama.create_chat_completion`` (the grammar object is added by the backend)."""
    messages = []
    for m in request.messages:
        if any(isinstance(p, AudioPart) for p in m.parts):
            raise PermanentError("local: GGUF chat models here take text only")
        messages.append({"role": m.role, "content": m.text_content})
    payload: dict[str, Any] = {
        "messages": messages,
        "temperature": request.temperature,
        "max_tokens": request.max_tokens,
    }
    if request.seed is not None:
        payload["seed"] = request.seed
    if request.schema is not None and not grammar:
        payload["response_format"] = {"type": "json_object", "schema": request.schema}
    return payload


def from_llama_response(data: dict[str, Any]) -> ProviderResult:
    choice = (data.get("choices") or [{}])[0]
    usage = data.get("usage") or {}
    return ProviderResult(
        [Completion((choice.get("message") or {}).get("content") or "", choice.get("finish_reason"))],
        Usage(int(usage.get("prompt_tokens") or 0), int(usage.get("completion_tokens") or 0)),
        structured=True,
    )


class LocalBackend:
    supports_n = False

    def __init__(self, spec: JudgeSpec):
        try:
            import llama_cpp
        except ImportError:
            raise ConfigError("local/ judges need llama-cpp-python: pip install 'voxjudge[local]'") from None
        path = Path(spec.model)
        if not path.is_file():
            raise ConfigError(f"local: model file {path} not found (give the path to a .gguf file)")
        self.spec = spec
        self.llm = llama_cpp.Llama(model_path=str(path), n_ctx=int(spec.options.get("n_ctx", 4096)), verbose=False)
        self.grammar = None
        if "grammar" in spec.options:
            gpath = Path(spec.options["grammar"])
            if not gpath.is_file():
                raise ConfigError(f"local: grammar file {gpath} not found")
            self.grammar = llama_cpp.LlamaGrammar.from_file(str(gpath), verbose=False)
        self._lock = asyncio.Lock()  # one generation at a time: the model is not thread-safe

    async def complete(self, request: Request, n: int) -> ProviderResult:
        payload = to_llama_payload(request, grammar=self.grammar is not None)
        if self.grammar is not None:
            payload["grammar"] = self.grammar
        start = time.perf_counter()
        async with self._lock:
            data = await asyncio.to_thread(self.llm.create_chat_completion, **payload)
        result = from_llama_response(data)
        result.latency = time.perf_counter() - start
        return result

    async def aclose(self) -> None:
        self.llm = None
