"""Anthropic messages API. Structured output is forced tool use with the schema as input_schema."""

from __future__ import annotations

import json
import time
from typing import Any

from voxjudge.llm.errors import PermanentError
from voxjudge.llm.providers._common import (
    api_key,
    classify,
    json_instruction,
    parameter_names,
    parse_body,
    split_known,
)
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


def to_anthropic_payload(request: Request, model: str, *, tools: bool = True) -> dict[str, Any]:
    system = request.system_text
    messages: list[dict[str, Any]] = []
    for m in request.messages:
        if m.role == "system":
            continue
        if any(isinstance(p, AudioPart) for p in m.parts):
            raise PermanentError("anthropic: these models do not take audio input; use an openai/ or gemini/ judge")
        blocks = [{"type": "text", "text": p.text} for p in m.parts if isinstance(p, TextPart)]
        messages.append({"role": m.role, "content": blocks})
    if request.schema is not None and not tools and messages:
        messages[-1]["content"].append({"type": "text", "text": json_instruction(request.schema)})
    payload: dict[str, Any] = {
        "model": model,
        "max_tokens": request.max_tokens,
        "temperature": request.temperature,
        "messages": messages,
    }
    if system:
        payload["system"] = system
    if request.schema is not None and tools:
        payload["tools"] = [
            {"name": request.schema_name, "description": "Record the answer.", "input_schema": request.schema}
        ]
        payload["tool_choice"] = {"type": "tool", "name": request.schema_name}
    return payload


def from_anthropic_response(data: dict[str, Any]) -> ProviderResult:
    blocks = data.get("content") or []
    tool = next((b for b in blocks if b.get("type") == "tool_use"), None)
    if tool is not None:
        text = json.dumps(tool.get("input"), ensure_ascii=False)
    else:
        text = "".join(b.get("text", "") for b in blocks if b.get("type") == "text")
    usage = data.get("usage") or {}
    return ProviderResult(
        [Completion(text, data.get("stop_reason"))],
        Usage(int(usage.get("input_tokens") or 0), int(usage.get("output_tokens") or 0)),
        structured=tool is not None,
    )


class AnthropicBackend:
    supports_n = False  # n samples are n calls
    capabilities = Capabilities(n_samples=False, audio=False)

    def __init__(self, spec: JudgeSpec):
        import anthropic  # the 'anthropic' extra

        self.spec = spec
        key = api_key("ANTHROPIC_API_KEY", required=spec.base_url is None, provider="anthropic") or "not-needed"
        self.client = anthropic.AsyncAnthropic(api_key=key, base_url=spec.base_url, max_retries=0, timeout=None)
        self.tools = spec.options.get("structured", "on") != "off"
        self._params = parameter_names(self.client.messages.create)
        self._create = self.client.messages.with_raw_response.create

    async def complete(self, request: Request, n: int) -> ProviderResult:
        if n != 1:
            raise ValueError("anthropic backend makes one sample per call")
        payload = to_anthropic_payload(request, self.spec.model, tools=self.tools)
        start = time.perf_counter()
        try:
            raw = await self._create(**split_known(self._params, payload))
        except Exception as exc:
            raise classify(exc, "anthropic", str(self.client.base_url)) from exc
        result = from_anthropic_response(parse_body(raw.http_response, "anthropic"))
        result.latency = time.perf_counter() - start
        return result

    async def aclose(self) -> None:
        await self.client.close()
