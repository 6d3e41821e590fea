"""Open judges on GPUs through vLLM's offline engine: ``vllm/<model>`` (a local path or a model
name vLLM resolves from its own cache; voxjudge never downloads weights).

Engine options come from the spec's query (``vllm/path/to/Qwen?tensor_parallel_size=2&
max_model_len=8192``). Structured output is vLLM's constrained decoding, so the schema binds.
The request translation below is pure (plain dicts), tested without vLLM; only ``VLLMBackend``
imports it. On ``--engine ray`` each worker actor gets a GPU and holds one engine.
"""

from __future__ import annotations

import asyncio
from typing import Any

from voxjudge.llm.errors import ConfigError, PermanentError
from voxjudge.llm.registry import Capabilities
from voxjudge.llm.spec import JudgeSpec
from voxjudge.llm.types import AudioPart, Completion, ProviderResult, Request, TextPart, Usage

# Engine arguments a spec may set, with their types (anything else is refused, not guessed).
ENGINE_OPTIONS: dict[str, type] = {
    "tensor_parallel_size": int,
    "gpu_memory_utilization": float,
    "max_model_len": int,
    "dtype": str,
    "quantization": str,
    "seed": int,
    "enforce_eager": bool,
    "trust_remote_code": bool,
}
_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off"}


def engine_kwargs(spec: JudgeSpec) -> dict[str, Any]:
    """``vllm.LLM(**engine_kwargs(spec))``: the model and the options the spec names."""
    kwargs: dict[str, Any] = {"model": spec.model}
    for key, raw in spec.options.items():
        kind = ENGINE_OPTIONS.get(key)
        if kind is None:
            raise ConfigError(f"vllm: unknown option {key!r}; known: {', '.join(sorted(ENGINE_OPTIONS))}")
        try:
            if kind is bool:
                if raw.lower() not in _TRUE | _FALSE:
                    raise ValueError(raw)
                kwargs[key] = raw.lower() in _TRUE
            else:
                kwargs[key] = kind(raw)
        except ValueError:
            raise ConfigError(f"vllm: option {key}={raw!r} is not a {kind.__name__}") from None
    return kwargs


def to_chat_messages(request: Request) -> list[dict[str, Any]]:
    """OpenAI-style chat messages as ``LLM.chat`` takes them; audio as base64 data URLs."""
    out = []
    for m in request.messages:
        if all(isinstance(p, TextPart) for p in m.parts):
            out.append({"role": m.role, "content": m.text_content})
            continue
        content: list[dict[str, Any]] = []
        for p in m.parts:
            if isinstance(p, TextPart):
                content.append({"type": "text", "text": p.text})
            elif isinstance(p, AudioPart):
                url = f"data:audio/{p.format};base64,{p.base64}"
                content.append({"type": "audio_url", "audio_url": {"url": url}})
        out.append({"role": m.role, "content": content})
    return out


def sampling_kwargs(request: Request, n: int) -> dict[str, Any]:
    """Fields of ``SamplingParams``; ``json_schema`` becomes vLLM's structured-output parameter."""
    kwargs: dict[str, Any] = {"n": n, "temperature": request.temperature, "max_tokens": request.max_tokens}
    if request.seed is not None:
        kwargs["seed"] = request.seed
    if request.schema is not None:
        kwargs["json_schema"] = request.schema
    return kwargs


def from_output(output: Any) -> ProviderResult:
    """A vLLM ``RequestOutput`` (prompt_token_ids, outputs[i].text/token_ids/finish_reason)."""
    samples = [Completion(o.text, o.finish_reason) for o in output.outputs]
    usage = Usage(len(output.prompt_token_ids or ()), sum(len(o.token_ids or ()) for o in output.outputs))
    return ProviderResult(samples, usage, structured=True)


def _sampling_params(vllm: Any, kwargs: dict[str, Any]) -> Any:
    schema = kwargs.pop("json_schema", None)
    if schema is None:
        return vllm.SamplingParams(**kwargs)
    params = vllm.sampling_params
    if hasattr(params, "StructuredOutputsParams"):  # vLLM >= 0.11
        return vllm.SamplingParams(**kwargs, structured_outputs=params.StructuredOutputsParams(json=schema))
    return vllm.SamplingParams(**kwargs, guided_decoding=params.GuidedDecodingParams(json=schema))


class VLLMBackend:
    capabilities = Capabilities(n_samples=True, audio=True, constrained=True)
    supports_n = True

    def __init__(self, spec: JudgeSpec):
        kwargs = engine_kwargs(spec)  # bad options fail before the heavy import
        try:
            import vllm
        except ImportError:
            raise ConfigError("vllm/ judges need vLLM and a GPU: pip install vllm") from None
        self.spec = spec
        self._vllm = vllm
        self.llm = vllm.LLM(**kwargs)
        self._lock = asyncio.Lock()  # one generate at a time per engine; vLLM batches inside it

    async def complete(self, request: Request, n: int) -> ProviderResult:
        params = _sampling_params(self._vllm, sampling_kwargs(request, n))
        messages = to_chat_messages(request)
        async with self._lock:
            try:
                outputs = await asyncio.to_thread(self.llm.chat, messages, params, use_tqdm=False)
            except (ValueError, TypeError) as e:
                raise PermanentError(f"vllm: {e}") from None
        return from_output(outputs[0])

    async def aclose(self) -> None:
        return None
