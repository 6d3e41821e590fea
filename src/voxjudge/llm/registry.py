"""Provider name -> backend factory. Built-in providers are imported only when used."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from voxjudge.llm.errors import ConfigError
from voxjudge.llm.spec import JudgeSpec, note_provider
from voxjudge.llm.types import ProviderResult, Request


@dataclass(frozen=True)
class Capabilities:
    """What a backend can do; evaluators branch on these, never on a provider's name.

    ``n_samples``: several samples in one call. ``audio``: audio parts in prompts.
    ``constrained``: the schema is enforced while decoding (a pattern pinning an item's words
    really binds), so per-item schemas are worth one request per item.
    """

    n_samples: bool = False
    audio: bool = False
    constrained: bool = False


class Backend(Protocol):
    """A provider adapter: translates one request into one API call, nothing more.

    It raises ``TransientError`` for what is worth retrying and ``PermanentError`` otherwise;
    caching, retries, limits, validation and accounting belong to the wrapper (``Judge``).
    A backend may declare ``capabilities`` (a ``Capabilities``); ``supports_n`` alone also works.
    """

    spec: JudgeSpec
    supports_n: bool

    async def complete(self, request: Request, n: int) -> ProviderResult: ...

    async def aclose(self) -> None: ...


Factory = Callable[[JudgeSpec], Backend]

_BUILTIN = {
    "openai": "voxjudge.llm.providers.openai:OpenAIBackend",
    "anthropic": "voxjudge.llm.providers.anthropic:AnthropicBackend",
    "gemini": "voxjudge.llm.providers.gemini:GeminiBackend",
    "local": "voxjudge.llm.providers.local:LocalBackend",
    "fake": "voxjudge.llm.providers.fake:FakeBackend",
    "vllm": "voxjudge.llm.providers.vllm:VLLMBackend",
}
# The optional SDK each provider needs, and the pip extra that installs it.
_EXTRAS = {
    "openai": {"openai", "aiohttp"},
    "anthropic": {"anthropic"},
    "gemini": {"google", "google.genai"},
    "local": {"llama_cpp"},
    "vllm": {"vllm"},
}
_CUSTOM: dict[str, Factory] = {}


def register_provider(name: str, factory: Factory) -> None:
    """Add a provider; ``name/model`` specs then resolve to ``factory(spec)``."""
    _CUSTOM[name.lower()] = factory
    note_provider(name)


def registered_providers() -> list[str]:
    return sorted({*_BUILTIN, *_CUSTOM})


def backend_class(spec: JudgeSpec) -> Any:
    """The factory of a spec's backend, without creating it (no key or SDK needed)."""
    if spec.provider in _CUSTOM:
        return _CUSTOM[spec.provider]
    module, _, attr = _BUILTIN[spec.provider].partition(":")
    return getattr(importlib.import_module(module), attr)


def create_backend(spec: JudgeSpec) -> Backend:
    try:
        return backend_class(spec)(spec)
    except ModuleNotFoundError as e:
        missing = (e.name or "").split(".")[0]
        wanted = _EXTRAS.get(spec.provider, set())
        if missing and any(w.split(".")[0] == missing for w in wanted):
            raise ConfigError(
                f"{spec.provider}/ judges need the {missing} package: pip install 'voxjudge[{spec.provider}]'"
            ) from None
        raise


def capabilities_of(backend: Any, spec: JudgeSpec | None = None) -> Capabilities:
    if spec is not None and hasattr(backend, "capabilities_for"):
        return backend.capabilities_for(spec)  # what this spec's options make of the backend
    declared = getattr(backend, "capabilities", None)
    if isinstance(declared, Capabilities):
        return declared
    # Undeclared: what supports_n says; audio unknown, so let the call itself decide.
    return Capabilities(n_samples=bool(getattr(backend, "supports_n", False)), audio=True)
