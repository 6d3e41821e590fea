"""Lazy package exports: a name is imported from its module on first use, so importing a
package (and building the CLI parser) pulls in no numerical library until one is needed."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any


def lazy_exports(package: str, namespace: dict[str, Any], exports: dict[str, str]) -> tuple[Callable, Callable]:
    """``__getattr__`` and ``__dir__`` for ``package`` exporting ``name -> module`` lazily."""

    def __getattr__(name: str) -> Any:
        module = exports.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)
        namespace[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted(set(namespace) | set(exports))

    return __getattr__, __dir__
