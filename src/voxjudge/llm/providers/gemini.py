"""Gemini through google-genai: text and inline audio parts, response schema, seed, candidates."""

from __future__ import annotations

import time
from typing import Any

from voxjudge.llm.providers._common import api_key, classify, json_instruction
from voxjudge.llm.registry import Capabilities
from voxjudge.llm.spec import JudgeSpec
from voxjudge.llm.types import (
    AudioPart,
    Completion,
    ProviderResult,
    Request,
    TextPart,
    Usage,
)


def to_gemini_request(request: Request, n: int, *, structured: bool = True) -> dict[str, Any]:
    """``contents`` and ``config`` as plain data (audio as raw bytes; the SDK encodes it)."""
    system = request.system_text
    contents: list[dict[str, Any]] = []
    for m in request.messages:
        if m.role == "system":
            continue
        parts: list[dict[str, Any]] = []
        for p in m.parts:
            if isinstance(p, TextPart):
                parts.append({"text": p.text})
            elif isinstance(p, AudioPart):
                parts.append({"inline_data": {"mime_type": p.mime_type, "data": p.data}})
        contents.append({"role": "model" if m.role == "assistant" else "user", "parts": parts})
    if request.schema is not None and not structured and contents:
        contents[-1]["parts"].append({"text": json_instruction(request.schema)})
    config: dict[str, Any] = {
        "temperature": request.temperature,
        "max_output_tokens": request.max_tokens,
        "candidate_count": n,
    }
    if request.seed is not None:
        config["seed"] = request.seed
    if system:
        config["system_instruction"] = system
    if request.schema is not None and structured:
        config["response_mime_type"] = "application/json"
        config["response_json_schema"] = request.schema
    return {"contents": contents, "config": config}


def from_gemini_response(data: dict[str, Any], *, structured: bool = False) -> ProviderResult:
    samples = []
    for c in data.get("candidates") or []:
        parts = ((c.get("content") or {}).get("parts")) or []
        text = "".join(p.get("text") or "" for p in parts if not p.get("thought"))
        reason = c.get("finish_reason") or c.get("finishReason")
        samples.append(Completion(text, str(reason) if reason is not None else None))
    meta = data.get("usage_metadata") or data.get("usageMetadata") or {}
    usage = Usage(
        int(meta.get("prompt_token_count") or meta.get("promptTokenCount") or 0),
        int(meta.get("candidates_token_count") or meta.get("candidatesTokenCount") or 0),
    )
    if not samples:
        from voxjudge.llm.errors import PermanentError

        feedback = data.get("prompt_feedback") or data.get("promptFeedback")
        raise PermanentError(f"gemini: no candidates returned (prompt feedback: {feedback})")
    return ProviderResult(samples, usage, structured=structured)


class GeminiBackend:
    supports_n = True
    capabilities = Capabilities(n_samples=True, audio=True)

    def __init__(self, spec: JudgeSpec):
        import logging

        from google import genai  # the 'gemini' extra
        from google.genai import types

        # The SDK logs a warning whenever several candidates come back; that is what we asked for.
        logging.getLogger("google_genai.types").setLevel(logging.ERROR)

        self.spec = spec
        key = api_key("GEMINI_API_KEY", "GOOGLE_API_KEY", required=spec.base_url is None, provider="gemini")
        # One attempt per call: retries are the Judge's (left on, the SDK sleeps 1-10 s and tries a
        # refused connection again by itself before any error reaches us).
        retry = {"retry_options": types.HttpRetryOptions(attempts=1)} if hasattr(types, "HttpRetryOptions") else {}
        http = types.HttpOptions(base_url=spec.base_url, **retry) if (spec.base_url or retry) else None
        self.client = genai.Client(api_key=key or "not-needed", http_options=http)
        self.structured = spec.options.get("structured", "on") != "off"

    async def complete(self, request: Request, n: int) -> ProviderResult:
        body = to_gemini_request(request, n, structured=self.structured)
        start = time.perf_counter()
        try:
            response = await self.client.aio.models.generate_content(
                model=self.spec.model, contents=body["contents"], config=body["config"]
            )
        except Exception as exc:
            raise classify(exc, "gemini", self.spec.base_url) from exc
        data = response.model_dump(mode="json", exclude_none=True)
        result = from_gemini_response(data, structured=self.structured and request.schema is not None)
        result.latency = time.perf_counter() - start
        return result

    async def aclose(self) -> None:
        close = getattr(self.client.aio, "aclose", None)
        if close is not None:
            await close()
