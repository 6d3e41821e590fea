"""Provider name -> backend factory. Built-in providers are imported only when used."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Protocol

from voxjudge.llm.spec import JudgeSpec
from voxjudge.llm.types import ProviderResult, Request


class Backend(Protocol):
    """A provider adapter: translates one request into one API call, nothing more.

    It raises ``TransientError`` for what is worth retrying and ``PermanentError`` otherwise;
    caching, retries, limits, validation and accounting belong to the wrapper (``Judge``).
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
}
_CUSTOM: dict[str, Factory] = {}


def register_provider(name: str, factory: Factory) -> None:
    """Add a provider; ``name/model`` specs then resolve to ``factory(spec)``."""
    _CUSTOM[name.lower()] = factory


def registered_providers() -> list[str]:
    return sorted({*_BUILTIN, *_CUSTOM})


def create_backend(spec: JudgeSpec) -> Backend:
    if spec.provider in _CUSTOM:
        return _CUSTOM[spec.provider](spec)
    module, _, attr = _BUILTIN[spec.provider].partition(":")
    return getattr(importlib.import_module(module), attr)(spec)
