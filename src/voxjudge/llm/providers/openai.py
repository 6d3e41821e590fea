"""OpenAI chat completions, and any OpenAI-compatible server (vLLM, Ollama, llama.cpp, LM Studio)."""

from __future__ import annotations

import time
from typing import Any

from voxjudge.llm.errors import ConfigError, PermanentError
from voxjudge.llm.providers._common import (
    api_key,
    classify,
    is_strict_compatible,
    json_instruction,
    parameter_names,
    parse_body,
    split_known,
)
from voxjudge.llm.spec import JudgeSpec
from voxjudge.llm.types import (
    AudioPart,
    Completion,
    Message,
    ProviderResult,
    Request,
    TextPart,
    Usage,
)


def to_openai_messages(messages: tuple[Message, ...], json_in_text: dict | None = None) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for k, m in enumerate(messages):
        parts: list[dict[str, Any]] = []
        for p in m.parts:
            if isinstance(p, TextPart):
                parts.append({"type": "text", "text": p.text})
            elif isinstance(p, AudioPart):
                if m.role != "user":
                    raise PermanentError("openai: audio can only be sent in user messages")
                if p.format not in ("wav", "mp3"):
                    raise PermanentError(f"openai: input_audio takes wav or mp3, not {p.format}")
                parts.append({"type": "input_audio", "input_audio": {"data": p.base64, "format": p.format}})
        if json_in_text is not None and k == len(messages) - 1:
            parts.append({"type": "text", "text": json_instruction(json_in_text)})
        if all(p["type"] == "text" for p in parts):
            out.append({"role": m.role, "content": "".join(p["text"] for p in parts)})
        else:
            out.append({"role": m.role, "content": parts})
    return out


def to_openai_payload(request: Request, model: str, n: int, *, structured: bool = True) -> dict[str, Any]:
    """Chat-completions body. Without server-side structured output the schema goes in the prompt."""
    payload: dict[str, Any] = {
        "model": model,
        "messages": to_openai_messages(request.messages, None if structured or not request.schema else request.schema),
        "temperature": request.temperature,
        "max_tokens": request.max_tokens,
    }
    if request.seed is not None:
        payload["seed"] = request.seed
    if n != 1:
        payload["n"] = n
    if request.schema is not None and structured:
        payload["response_format"] = {
            "type": "json_schema",
            "json_schema": {
                "name": request.schema_name,
                "schema": request.schema,
                "strict": is_strict_compatible(request.schema),
            },
        }
    return payload


def from_openai_response(data: dict[str, Any], *, structured: bool = False) -> ProviderResult:
    choices = sorted(data.get("choices") or [], key=lambda c: c.get("index", 0))
    if not choices:
        raise PermanentError("openai: response has no choices")
    samples = []
    for c in choices:
        message = c.get("message") or {}
        content = message.get("content")
        if isinstance(content, list):  # some compatible servers return content parts
            content = "".join(p.get("text", "") for p in content if isinstance(p, dict))
        samples.append(Completion(content or message.get("refusal") or "", c.get("finish_reason")))
    usage = data.get("usage") or {}
    return ProviderResult(
        samples,
        Usage(int(usage.get("prompt_tokens") or 0), int(usage.get("completion_tokens") or 0)),
        structured=structured,
    )


def _rejects_schema(err: PermanentError) -> bool:
    text = str(err).lower()
    return err.status in (400, 422) and any(k in text for k in ("response_format", "json_schema", "structured"))


class OpenAIBackend:
    """``transport``: ``sdk`` (the official openai package) or ``http`` (the lean aiohttp
    transport). Default: the SDK for OpenAI itself, ``http`` for ``--base-url`` servers, where
    client CPU per request is what limits throughput."""

    supports_n = True

    def __init__(self, spec: JudgeSpec):
        self.spec = spec
        key = api_key("OPENAI_API_KEY", required=spec.base_url is None, provider="openai") or "not-needed"
        self.transport = spec.options.get("transport", "http" if spec.base_url else "sdk")
        if self.transport not in ("sdk", "http"):
            raise ConfigError(f"openai: transport must be sdk or http, not {self.transport!r}")
        if self.transport == "http":
            from voxjudge.llm.providers._http import JSONTransport

            if not spec.base_url:
                raise ConfigError("openai: transport=http needs --base-url; OpenAI itself goes through the SDK")
            self.http = JSONTransport(spec.base_url, {"Authorization": f"Bearer {key}"}, "openai")
        else:
            import openai  # the 'openai' extra

            self.client = openai.AsyncOpenAI(api_key=key, base_url=spec.base_url, max_retries=0, timeout=None)
            self._params = parameter_names(self.client.chat.completions.create)
            self._create = self.client.chat.completions.with_raw_response.create
        mode = spec.options.get("structured", "auto")
        # auto: try JSON-schema output, fall back to JSON-in-text if the server rejects it.
        self.structured: bool | None = {"on": True, "off": False, "llama-cpp": True}.get(mode)
        # llama-cpp: llama-cpp-python's server, sent the grammar schema voxjudge.llm.grammar sizes
        # to max_tokens, so it decodes with the same grammar as an in-process local/ judge.
        self.grammar = mode == "llama-cpp"
        self.constrained = self.grammar

    def answer_fits(self, request: Request) -> bool:
        if not self.grammar or request.schema is None:
            return True
        from voxjudge.llm.grammar import AnswerTooLong, answer_grammar

        try:
            answer_grammar(request.schema, request.max_tokens)
        except AnswerTooLong:
            return False
        return True

    async def complete(self, request: Request, n: int) -> ProviderResult:
        use_schema = request.schema is not None and self.structured is not False
        try:
            return await self._call(request, n, use_schema)
        except PermanentError as err:
            if use_schema and self.structured is None and _rejects_schema(err):
                self.structured = False
                return await self._call(request, n, False)
            raise

    async def _call(self, request: Request, n: int, structured: bool) -> ProviderResult:
        payload = to_openai_payload(request, self.spec.model, n, structured=structured)
        if self.grammar and request.schema is not None:
            from voxjudge.llm.grammar import answer_grammar

            grammar = answer_grammar(request.schema, request.max_tokens)
            payload["response_format"] = {"type": "json_object", "schema": grammar.schema}
        start = time.perf_counter()
        if self.transport == "http":
            data = await self.http.post("/chat/completions", payload)
        else:
            try:
                raw = await self._create(**split_known(self._params, payload))
            except Exception as exc:  # SDK and transport errors are classified, not swallowed
                raise classify(exc, "openai") from exc
            data = parse_body(raw.http_response, "openai")
        result = from_openai_response(data, structured=structured and request.schema is not None)
        result.latency = time.perf_counter() - start
        if structured and request.schema is not None and self.structured is None:
            self.structured = True
        return result

    async def aclose(self) -> None:
        if self.transport == "http":
            await self.http.aclose()
        else:
            await self.client.close()
