"""OpenAI chat completions, and any OpenAI-compatible server (vLLM, Ollama, llama.cpp, LM Studio)."""

from __future__ import annotations

import time
from typing import Any

from voxjudge.llm import negotiate
from voxjudge.llm.errors import ConfigError, PermanentError, TransientError, Unreachable, UnusableURL
from voxjudge.llm.grammar import GrammarError
from voxjudge.llm.providers._common import (
    api_key,
    classify,
    is_strict_compatible,
    json_instruction,
    parameter_names,
    parse_body,
    split_known,
    token_count,
)
from voxjudge.llm.registry import Capabilities
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


def to_openai_payload(
    request: Request, model: str, n: int, *, structured: bool | str = True, field: str = ""
) -> dict[str, Any]:
    """Chat-completions body. ``structured``: ``json_schema`` (or True), ``json_object`` (the
    schema beside it, as llama-cpp-python's server takes it), ``grammar`` (llama.cpp: the GBNF
    of the grammar schema in a ``grammar`` field; without llama-cpp-python here, the grammar
    schema in the field ``field`` names, else as ``json_object``), ``guided`` (vLLM: the schema
    in ``field``, ``structured_outputs`` or ``guided_json``) or ``prompt`` (or False: the schema
    goes in the prompt)."""
    mode = {True: "json_schema", False: "prompt"}.get(structured, structured)  # type: ignore[call-overload]
    in_prompt = request.schema if request.schema is not None and mode == "prompt" else None
    payload: dict[str, Any] = {
        "model": model,
        "messages": to_openai_messages(request.messages, in_prompt),
        "temperature": request.temperature,
        "max_tokens": request.max_tokens,
    }
    if request.seed is not None:
        payload["seed"] = request.seed
    if n != 1:
        payload["n"] = n
    if request.schema is not None and mode == "json_schema":
        payload["response_format"] = {
            "type": "json_schema",
            "json_schema": {
                "name": request.schema_name,
                "schema": request.schema,
                "strict": is_strict_compatible(request.schema),
            },
        }
    elif request.schema is not None and mode == "json_object":
        # llama-cpp-python's dialect: its server turns the schema into a decoding grammar, so it
        # gets the grammar schema (bounded, patterns it translates exactly), the very one an
        # in-process local/ judge decodes with. Unenforceable features raise GrammarError.
        from voxjudge.llm.grammar import answer_grammar

        grammar = answer_grammar(request.schema, request.max_tokens)
        payload["response_format"] = {"type": "json_object", "schema": grammar.schema}
    elif request.schema is not None and mode == "grammar":
        from voxjudge.llm.grammar import answer_grammar, local_gbnf

        grammar = answer_grammar(request.schema, request.max_tokens)
        gbnf = local_gbnf(grammar)
        if gbnf is not None:
            payload["grammar"] = gbnf  # what an in-process local/ judge decodes with, byte for byte
        elif field:
            payload[field] = grammar.schema  # llama-server converts it itself
        else:
            payload["response_format"] = {"type": "json_object", "schema": grammar.schema}
    elif request.schema is not None and mode == "guided":
        payload[field or "guided_json"] = {"json": request.schema} if field == "structured_outputs" else request.schema
    return payload


def from_openai_response(data: dict[str, Any], *, structured: bool = False) -> ProviderResult:
    """The samples and usage of a chat-completions body. A body of another shape (choices that are
    not objects, content that is not text) is the server's error, not a crash here; token counts
    that are not whole numbers of 0 or more are not believed (a negative count would lower the
    cost, and let a run pass its cost limit)."""
    choices = data.get("choices")
    if not choices:
        raise PermanentError("openai: response has no choices")
    if not isinstance(choices, list) or not all(isinstance(c, dict) for c in choices):
        raise PermanentError(f"openai: unexpected response: 'choices' is not a list of objects ({_shown(choices)})")
    try:
        choices = sorted(choices, key=lambda c: c.get("index", 0))
    except TypeError:  # indices that do not compare (a string among numbers): keep the server's order
        pass
    samples = []
    for c in choices:
        message = c.get("message") or {}
        if not isinstance(message, dict):
            what = f"a choice's 'message' is not an object ({_shown(message)})"
            raise PermanentError(f"openai: unexpected response: {what}")
        content = message.get("content")
        if isinstance(content, list):  # some compatible servers return content parts
            texts = (p.get("text") for p in content if isinstance(p, dict))
            content = "".join(t for t in texts if isinstance(t, str))
        text = content or message.get("refusal") or ""
        if not isinstance(text, str):
            raise PermanentError(f"openai: unexpected response: the answer is not text ({_shown(text)})")
        samples.append(Completion(text, c.get("finish_reason")))
    usage = data.get("usage")
    usage = usage if isinstance(usage, dict) else {}
    return ProviderResult(
        samples,
        Usage(token_count(usage.get("prompt_tokens")), token_count(usage.get("completion_tokens"))),
        structured=structured,
    )


def _shown(value: Any) -> str:
    import json

    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= 80 else text[:77] + "..."


_FIXED_MODES = {
    "on": "json_schema",
    "json_schema": "json_schema",
    "json_object": "json_object",
    "grammar": "grammar",
    "guided": "guided",
    "format": "format",
    "off": "prompt",
    "prompt": "prompt",
}
# Modes in which the server decodes under the schema, patterns included (what the LMRE builder's
# word-pinning needs); json_object only as llama-cpp-python's server takes it (with the schema).
CONSTRAINED_MODES = frozenset({"grammar", "guided", "format", "json_object"})
ENFORCED_MODES = frozenset({"json_schema", "grammar", "guided", "format"})


def _dialect(spec: JudgeSpec):
    """The server's constrained-decoding dialect when the mode is negotiated (``servers``)."""
    if spec.options.get("structured", "auto") != "auto" or not spec.base_url:
        return None
    from voxjudge.llm import servers

    found = servers.dialect(spec.base_url)
    if found is not None and found.mode == "format" and spec.options.get("transport") == "sdk":
        return None  # the native API needs the http transport; /v1 maps json_schema to format itself
    return found


class OpenAIBackend:
    """``transport``: ``sdk`` (the official openai package) or ``http`` (the lean aiohttp
    transport). Default: the SDK for OpenAI itself, ``http`` for ``--base-url`` servers, where
    client CPU per request is what limits throughput.

    ``structured``: ``auto`` (default: ask the server what it offers, see ``voxjudge.llm.servers``,
    then negotiate, see ``voxjudge.llm.negotiate``), or one fixed mode: ``json_schema`` (``on``),
    ``json_object``, ``grammar``, ``guided``, ``format``, ``prompt`` (``off``)."""

    supports_n = True
    capabilities = Capabilities(n_samples=True, audio=True)

    @classmethod
    def capabilities_for(cls, spec: JudgeSpec) -> Capabilities:
        option = spec.options.get("structured", "auto")
        if option != "auto":
            constrained = _FIXED_MODES.get(option) in CONSTRAINED_MODES
        else:
            found = _dialect(spec)
            chosen = negotiate.chosen(spec.base_url, spec.model)
            constrained = found is not None and (chosen is None or chosen == found.mode)
        return Capabilities(n_samples=True, audio=True, constrained=constrained)

    def answer_fits(self, request: Request) -> bool:
        """Under a grammar, whether the answer's worst case fits max_tokens (else split the batch)."""
        if self.mode not in ("json_object", "grammar") or request.schema is None:
            return True
        from voxjudge.llm.grammar import AnswerTooLong, answer_grammar

        try:
            answer_grammar(request.schema, request.max_tokens)
        except AnswerTooLong:
            return False
        return True

    def __init__(self, spec: JudgeSpec):
        self.spec = spec
        key = api_key("OPENAI_API_KEY", required=spec.base_url is None, provider="openai") or "not-needed"
        self.transport = spec.options.get("transport", "http" if spec.base_url else "sdk")
        if self.transport not in ("sdk", "http"):
            raise ConfigError(f"openai: transport must be sdk or http, not {self.transport!r}")
        if self.transport == "http":
            from voxjudge.llm.providers._http import JSONTransport

            if not spec.base_url:
                raise ConfigError(
                    "openai: transport=http needs {base_url}; OpenAI itself goes through the SDK",
                    options={"base_url": "base_url"},
                )
            self.http = JSONTransport(spec.base_url, {"Authorization": f"Bearer {key}"}, "openai")
        else:
            import openai  # the 'openai' extra

            self.client = openai.AsyncOpenAI(api_key=key, base_url=spec.base_url, max_retries=0, timeout=None)
            self._params = parameter_names(self.client.chat.completions.create)
            self._create = self.client.chat.completions.with_raw_response.create
        option = spec.options.get("structured", "auto")
        if option != "auto" and option not in _FIXED_MODES:
            raise ConfigError(f"openai: structured must be auto, {', '.join(_FIXED_MODES)}; not {option!r}")
        self.fixed_mode = _FIXED_MODES.get(option)
        self._last_error: dict[str, str] = {}

    @property
    def dialect(self):
        return _dialect(self.spec)

    @property
    def mode(self) -> str:
        if self.fixed_mode:
            return self.fixed_mode
        chosen = negotiate.chosen(self.spec.base_url, self.spec.model)
        if chosen:
            return chosen
        found = self.dialect
        return found.mode if found is not None else negotiate.MODES[0]

    @property
    def structured(self) -> bool:
        """Whether the server enforces the schema in the mode in use."""
        return self.mode in ENFORCED_MODES

    async def complete(self, request: Request, n: int) -> ProviderResult:
        if request.schema is None:
            return await self._call(request, n, "prompt")
        while True:
            mode = self.mode
            try:
                result = await self._call(request, n, mode)
            except GrammarError:
                if self.fixed_mode is not None:
                    raise  # asked for a grammar: say what cannot be one
                # This schema has a feature no grammar enforces (the server's grammar mode stays
                # for the others): the schema goes in the prompt, the answer is validated here.
                return await self._call(request, n, "prompt")
            except (PermanentError, TransientError) as err:
                fallback = self._fallback(mode, err)
                if fallback is None:
                    # Name the mode, so an error repeated after a mode change is not mistaken
                    # for the same deterministic error repeated.
                    raise _with_mode(err, mode) from err
                negotiate.remember(self.spec.base_url, self.spec.model, fallback, why=_short(err))
                continue
            if self.fixed_mode is None and negotiate.chosen(self.spec.base_url, self.spec.model) is None:
                found = self.dialect
                server = found.server if found is not None and found.mode == mode else ""
                negotiate.remember(self.spec.base_url, self.spec.model, mode, server=server)
            return result

    def _fallback(self, mode: str, err: PermanentError | TransientError) -> str | None:
        """The next mode to try after ``err``, or None to let the error through (and be retried)."""
        if self.fixed_mode is not None or negotiate.next_mode(mode) is None or err.status in (401, 403, 429):
            return None
        if err.status is None:  # dropped connection, garbled body: transient, not a rejection
            return None
        message = str(err)
        if negotiate.names_response_format(message) or self._last_error.get(mode) == message:
            return negotiate.next_mode(mode)
        self._last_error[mode] = message
        return None

    async def _call(self, request: Request, n: int, mode: str) -> ProviderResult:
        if mode == "format" and self.transport == "http" and request.schema is not None:
            return await self._call_ollama(request)
        found = self.dialect
        field = found.field if found is not None and found.mode == mode else ""
        if mode in ("grammar", "guided") and not field and self.fixed_mode:
            field = {"grammar": "", "guided": "guided_json"}[mode]
        payload = to_openai_payload(request, self.spec.model, n, structured=mode, field=field)
        start = time.perf_counter()
        if self.transport == "http":
            data = await self.http.post("/chat/completions", payload)
        else:
            try:
                raw = await self._create(**split_known(self._params, payload))
            except Exception as exc:  # SDK and transport errors are classified, not swallowed
                raise classify(exc, "openai", str(self.client.base_url)) from exc
            data = parse_body(raw.http_response, "openai")
        result = from_openai_response(data, structured=mode in ENFORCED_MODES and request.schema is not None)
        result.latency = time.perf_counter() - start
        return result

    async def _call_ollama(self, request: Request) -> ProviderResult:
        """Ollama's native chat with ``format``: one sample per call (the Judge asks for the rest)."""
        from voxjudge.llm.providers.ollama import CHAT_PATH, from_ollama_response, to_ollama_payload
        from voxjudge.llm.servers import root_of

        start = time.perf_counter()
        data = await self.http.post(
            root_of(self.spec.base_url or "") + CHAT_PATH, to_ollama_payload(request, self.spec.model)
        )
        result = from_ollama_response(data, structured=True)
        result.latency = time.perf_counter() - start
        return result

    async def aclose(self) -> None:
        if self.transport == "http":
            await self.http.aclose()
        else:
            await self.client.close()


def _with_mode(err: PermanentError | TransientError, mode: str) -> PermanentError | TransientError:
    if isinstance(err, (Unreachable, UnusableURL)):
        return err  # no answer in any mode
    message = f"{err} [response_format: {mode}]"
    if isinstance(err, TransientError):
        return TransientError(message, status=err.status, retry_after=err.retry_after)
    return PermanentError(message, status=err.status)


def _short(err: Exception) -> str:
    text = str(err)
    return text if len(text) <= 160 else text[:157] + "..."
